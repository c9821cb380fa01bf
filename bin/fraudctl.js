#!/usr/bin/env node
// The executable: everything lives in the bundle that `npm run build` writes to dist/ (the
// published package carries it; a source checkout builds it, README's set-up).
let main;
try {
  main = await import('../dist/main.js');
} catch (error) {
  // The path in Node's message has the platform's separator (dist\main.js on Windows).
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/dist[\\/]main\.js/.test(String(error.message))) throw error;
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(
    `error: fraudctl is not built (no dist/ in ${root})\nrun npm run build in ${root}, then run fraudctl again\n`,
  );
  process.exit(1);
}
await main.runProcess();
