/* eslint-disable no-control-regex -- these tests look for terminal control characters on purpose */
import { describe, expect, it } from 'vitest';
import { colourLevel, createStyle, type ColourLevel } from '../../src/render/colours.js';

describe('colourLevel', () => {
  const tty = (env: NodeJS.ProcessEnv, isTTY = true, flagNoColor = false) => colourLevel({ flagNoColor, env, isTTY });

  it.each<[string, NodeJS.ProcessEnv, boolean, ColourLevel]>([
    ['a plain terminal', { TERM: 'xterm' }, true, 1],
    ['a 256-colour terminal', { TERM: 'xterm-256color' }, true, 2],
    ['a truecolor terminal', { TERM: 'xterm-256color', COLORTERM: 'truecolor' }, true, 3],
    ['COLORTERM=24bit', { COLORTERM: '24bit' }, true, 3],
    ['a pipe', { TERM: 'xterm-256color', COLORTERM: 'truecolor' }, false, 0],
    ['TERM=dumb', { TERM: 'dumb' }, true, 0],
    ['NO_COLOR=1', { NO_COLOR: '1', TERM: 'xterm' }, true, 0],
    ['an empty NO_COLOR (ignored)', { NO_COLOR: '', TERM: 'xterm' }, true, 1],
    ['NO_COLOR over FORCE_COLOR', { NO_COLOR: '1', FORCE_COLOR: '3' }, true, 0],
    ['FORCE_COLOR=0 on a terminal', { FORCE_COLOR: '0', TERM: 'xterm' }, true, 0],
    ['FORCE_COLOR=false', { FORCE_COLOR: 'false' }, true, 0],
    ['an empty FORCE_COLOR into a pipe', { FORCE_COLOR: '' }, false, 1],
    ['FORCE_COLOR=1 into a pipe', { FORCE_COLOR: '1' }, false, 1],
    ['FORCE_COLOR=true', { FORCE_COLOR: 'true' }, false, 1],
    ['FORCE_COLOR=2', { FORCE_COLOR: '2' }, false, 2],
    ['FORCE_COLOR=3 with TERM=dumb', { FORCE_COLOR: '3', TERM: 'dumb' }, false, 3],
    ['FORCE_COLOR=7 (clamped)', { FORCE_COLOR: '7' }, false, 3],
    ['FORCE_COLOR=yes (forces basic)', { FORCE_COLOR: 'yes' }, false, 1],
  ])('%s', (_what, env, isTTY, level) => {
    expect(tty(env, isTTY)).toBe(level);
  });

  it('gives no colour with --no-color, whatever FORCE_COLOR says', () => {
    expect(tty({ FORCE_COLOR: '3', COLORTERM: 'truecolor' }, true, true)).toBe(0);
  });
});

describe('createStyle', () => {
  it('adds nothing at level 0', () => {
    const style = createStyle(0);
    const all = [
      style.approve('A'),
      style.review('R'),
      style.decline('D'),
      style.action('APPROVE', 'A'),
      style.dim('d'),
      style.bold('b'),
      style.heading('h'),
      style.severity('HIGH', 'H'),
      style.sandboxBadge('SANDBOX'),
    ];
    expect(all).toEqual(['A', 'R', 'D', 'A', 'd', 'b', 'h', 'H', 'SANDBOX']);
  });

  it('colours decisions green, yellow and red at level 1, and leaves an unknown decision plain', () => {
    const style = createStyle(1);
    expect(style.action('APPROVE', 'APPROVE')).toBe(style.approve('APPROVE'));
    expect(style.approve('APPROVE')).toMatch(/^\x1b\[32m.*APPROVE/);
    expect(style.review('REVIEW')).toMatch(/^\x1b\[33m.*REVIEW/);
    expect(style.decline('DECLINE')).toMatch(/^\x1b\[31m.*DECLINE/);
    expect(style.action('ESCALATE', 'ESCALATE')).toBe('ESCALATE');
  });

  it('colours severities HIGH red, MEDIUM yellow, LOW cyan, others plain', () => {
    const style = createStyle(1);
    expect(style.severity('HIGH', 'x')).toBe('\x1b[31mx\x1b[39m');
    expect(style.severity('MEDIUM', 'x')).toBe('\x1b[33mx\x1b[39m');
    expect(style.severity('LOW', 'x')).toBe('\x1b[36mx\x1b[39m');
    expect(style.severity('CRITICAL', 'x')).toBe('x');
  });
});
