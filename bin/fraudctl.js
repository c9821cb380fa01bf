#!/usr/bin/env node
// The executable: everything lives in the bundle that `npm run build` writes to dist/ (the
// published package carries it; a source checkout builds it, README's set-up).
let main;
try {
  main = await import('../dist/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.js')) throw error;
  const root = new URL('..', import.meta.url).pathname;
  process.stderr.write(`error: fraudctl is not built (no dist/ in ${root})\nrun npm run build in ${root}, then run fraudctl again\n`);
  process.exit(1);
}
await main.runProcess();
