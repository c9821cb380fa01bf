import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/*
 * An X display of the test's own (Xvfb, in memory, no TCP): somewhere a desktop program can open
 * a window nobody will ever look at, such as GNOME Keyring's unlock prompt. The server picks a
 * free display number and writes it to a pipe (-displayfd). Needs Xvfb (Debian: xvfb); .ci/run
 * installs it when missing.
 */

export interface VirtualDisplay {
  /** `:N`, for DISPLAY. */
  display: string;
  stop(): Promise<void>;
}

export function startXvfb(): Promise<VirtualDisplay> {
  return new Promise((resolve, reject) => {
    const child = spawn('Xvfb', ['-displayfd', '3', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((done) => child.once('exit', done));
    let stderr = '';
    let number = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Xvfb did not start within 10 s: ${stderr}`));
    }, 10_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start Xvfb (${error.message}): install it (apt-get install xvfb)`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb ended (${code}) before it started: ${stderr}`));
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    (child.stdio[3] as Readable).on('data', (d: Buffer) => {
      number += d.toString();
      if (!number.endsWith('\n')) return;
      clearTimeout(timer);
      resolve({
        display: `:${number.trim()}`,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            await exited;
          }
        },
      });
    });
  });
}
