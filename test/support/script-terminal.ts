import { spawn } from 'node:child_process';
import { BIN, nodeWarnings } from './cli.js';
import { need } from './prerequisites.js';

/**
 * Runs fraudctl on a real pseudo-terminal (util-linux `script`), answering prompts as they
 * appear. `steps` are [text to wait for, keys to send].
 */
export function onTerminal(
  args: string[],
  steps: [RegExp, string][],
  env: NodeJS.ProcessEnv,
  size: { columns: number; rows: number } = { columns: 80, rows: 24 },
): Promise<{ code: number | null; screen: string }> {
  need('script');
  // The terminal's size is set inside it, so the program sees exactly these columns.
  const command = `stty cols ${size.columns} rows ${size.rows}; exec ${[process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...env, TERM: 'xterm' } });
    let screen = '';
    let step = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`stuck at step ${step}; screen so far:\n${screen}`));
    }, 15_000);
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      while (step < steps.length && steps[step]![0].test(screen)) {
        child.stdin.write(steps[step]![1]);
        step++;
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const warnings = nodeWarnings(screen);
      if (warnings.length > 0) reject(new Error(`Node warning on the terminal: ${warnings.join(' | ')}`));
      else resolve({ code, screen });
    });
  });
}
