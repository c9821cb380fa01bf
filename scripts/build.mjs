// Bundles the CLI into dist/ with esbuild. Code splitting keeps what one command needs
// (the sandbox's Fastify and SQLite, later prompts and tables) out of every other command's start-up.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Bundled: what client commands load (commander, undici, chalk, cli-table3, prompts), so start-up
  // reads a few files instead of hundreds. External: the sandbox's server-side packages (loaded
  // only by sandbox commands) and libsql, a native module.
  external: ['fastify', '@fastify/swagger', 'libsql', 'json-logic-engine', '@sinclair/typebox', 'safe-stable-stringify', 'env-paths'],
  minify: true,
  // Bundled CommonJS packages call require() for Node built-ins; give ESM chunks one.
  banner: { js: "import { createRequire as __fraudctlRequire } from 'node:module'; const require = __fraudctlRequire(import.meta.url);" },
  sourcemap: true,
  logLevel: 'warning',
});
