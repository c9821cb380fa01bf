// A Secret Service of the test's own: a private D-Bus session bus (dbus-run-session) with GNOME
// Keyring on it, its login keyring created and unlocked with a test password, every file of it
// under one directory (HOME, the XDG directories, the runtime directory). Nothing reaches the
// user's own session bus or keyring: processes get this bus's address, or no address at all.
// Plain JavaScript (with secret-service.d.mts) because bench:startup uses it too.
//
// Needs dbus-run-session, gnome-keyring-daemon, secret-tool and dbus-send (Debian: dbus,
// gnome-keyring, libsecret-tools), and for a prompt on a display Xvfb (xvfb); .ci/run installs
// them when missing.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const KEYRING_PASSWORD = 'test-keyring-password';
const COLLECTION = '/org/freedesktop/secrets/collection/login';

// Inside the private session: create and unlock the login keyring, start the secrets component,
// say the bus's address, then live as long as our stdin is open (dbus-run-session then stops the
// bus, and GNOME Keyring leaves with it).
const SESSION_SCRIPT = [
  'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock > /dev/null',
  'gnome-keyring-daemon --start --components=secrets > /dev/null',
  'echo "bus $DBUS_SESSION_BUS_ADDRESS"',
  'exec cat > /dev/null',
].join(' && ');

function run(file, args, env, input) {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env, timeout: 10_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    // A tool that exits without reading its input (secret-tool lookup) closes the pipe: not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** The directories of a home of its own under `dir`, made; no bus in it. */
export function privateHome(dir) {
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_RUNTIME_DIR: join(dir, 'runtime'),
  };
  for (const d of [env.XDG_CONFIG_HOME, env.XDG_DATA_HOME, env.XDG_STATE_HOME]) mkdirSync(d, { recursive: true });
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return env;
}

/**
 * Starts the private bus and keyring under `dir`; resolves once the keyring answers on the bus.
 * With `display` (an X display, e.g. Xvfb's), the keyring can show its unlock prompt there
 * (gcr-prompter, started by the bus when asked for): a prompt nobody answers. Without one, a
 * locked keyring refuses at once, as on a headless server.
 */
export function startSecretService(dir, { display } = {}) {
  const home = privateHome(dir);
  return new Promise((resolve, reject) => {
    const sessionEnv = { ...home, KEYRING_PASSWORD, ...(display ? { DISPLAY: display } : {}) };
    const child = spawn('dbus-run-session', ['--', 'sh', '-c', SESSION_SCRIPT], {
      env: sessionEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Its stdin only keeps it alive; a session that already ended is not an error when it is closed.
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the private Secret Service did not start within 10 s: ${stderr}`));
    }, 10_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new Error(
          `cannot start dbus-run-session (${error.message}): install dbus, gnome-keyring and libsecret-tools (apt-get install dbus gnome-keyring libsecret-tools)`,
        ),
      );
    });
    const exited = new Promise((done) => child.once('exit', done));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the private Secret Service ended (${code}) before it started: ${stderr}`));
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = /^bus (\S+)$/m.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      const env = { ...home, DBUS_SESSION_BUS_ADDRESS: m[1] };
      resolve({
        env,
        home,
        secretTool: (args, input) => run('secret-tool', args, env, input),
        lock: () =>
          run(
            'dbus-send',
            [
              '--session',
              '--dest=org.freedesktop.secrets',
              '--print-reply',
              '/org/freedesktop/secrets',
              'org.freedesktop.Secret.Service.Lock',
              `array:objpath:${COLLECTION}`,
            ],
            env,
          ),
        // The daemon left dbus-run-session's tree when it forked: the bus knows which process owns the name.
        keyringPid: async () => {
          const reply = await run(
            'dbus-send',
            [
              '--session',
              '--dest=org.freedesktop.DBus',
              '--print-reply',
              '/org/freedesktop/DBus',
              'org.freedesktop.DBus.GetConnectionUnixProcessID',
              'string:org.freedesktop.secrets',
            ],
            env,
          );
          const m = /uint32 (\d+)/.exec(reply.stdout);
          if (!m) throw new Error(`no process owns org.freedesktop.secrets on the private bus: ${reply.stderr}`);
          return Number(m[1]);
        },
        hasOwner: async (name) => {
          const reply = await run(
            'dbus-send',
            [
              '--session',
              '--dest=org.freedesktop.DBus',
              '--print-reply',
              '/org/freedesktop/DBus',
              'org.freedesktop.DBus.NameHasOwner',
              `string:${name}`,
            ],
            env,
          );
          return /boolean true/.test(reply.stdout);
        },
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.stdin.end();
            await exited;
            clearTimeout(kill);
          }
        },
      });
    });
  });
}
