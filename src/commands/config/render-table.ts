import Table from 'cli-table3';
import type { ProfileListing } from '../../profiles/stored-profiles.js';
import type { Style } from '../../render/colours.js';
import { sym } from '../../render/symbols.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { tableText } from '../../render/tables.js';

/**
 * `fraudctl config list`: one row a profile, the active one marked; keys arrive redacted, and
 * a key kept in the config file (not the credential store) is marked so; an analyst set for the
 * profile (its --log lines name them) and how many reason codes it has under its name.
 */
export function renderProfiles(profiles: readonly ProfileListing[], style: Style): string {
  const table = new Table({
    head: ['', 'profile', 'service', 'key', 'timeout', 'retries'].map((h) => style.heading(h)),
    style: { head: [], border: [] },
    // ASCII where the locale is not UTF-8 (symbols.ts).
    chars: { ...sym.tableChars },
    truncate: sym.ellipsis,
  });
  for (const p of profiles) {
    table.push([
      p.active ? style.bold('*') : '',
      terminalSafe(p.name) +
        (p.builtIn ? style.dim(' (built-in)') : '') +
        (p.analyst !== null ? `\n${style.dim(`analyst: ${terminalSafe(p.analyst)}`)}` : '') +
        (p.reasons.length > 0
          ? `\n${style.dim(`reasons: ${p.reasons.length}${p.requireReason ? ', required' : ''}`)}`
          : p.requireReason
            ? `\n${style.dim('reasons: required, none set')}`
            : ''),
      // Said where the URL is: this profile would send its key in clear text to another machine.
      terminalSafe(p.baseUrl) + (p.insecureHttp ? `\n${style.decline('insecure-http: key in clear text')}` : ''),
      terminalSafe(p.apiKey) + (p.keyStorage === 'file' ? `\n${style.dim('in the config file')}` : ''),
      `${p.timeoutSeconds} s`,
      String(p.retries),
    ]);
  }
  return tableText(table, style);
}
