// Bundles the CLI into dist/ with esbuild. Code splitting keeps what one command needs
// (the sandbox's Fastify and SQLite, later prompts and tables) out of every other command's start-up.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { isBuiltin } from 'node:module';

/*
 * Node's built-in modules are taken with process.getBuiltinModule(), not `import`. An ESM
 * import of a built-in makes Node fill in every export of the module, running the lazy getters
 * that CommonJS code never touches: `import 'node:http'` loads Node's internal copy of undici
 * (for http.WebSocket), `import 'node:crypto'` all of WebCrypto, `import 'node:process'` and
 * `'node:fs'` readline, fs/promises and more — 131 internal modules on Node 26 for http and
 * crypto, against 19 (bench:startup).
 *
 * esbuild has no say over how an external import is written, so each chunk's import statements
 * of built-ins are rewritten here: `import{a as b}from"node:fs";` becomes `const{a:b}=
 * process.getBuiltinModule("node:fs");` on the chunk's first line (the banner's, which maps to
 * no source), and the statement itself becomes as many spaces. Every other position stays, and
 * so the source map holds; and as imports are hoisted anyway, declaring them first changes
 * nothing. The statements found must be the ones esbuild's metafile lists. A dynamic import()
 * of a built-in is left as it is: it happens only where needed. (A stub module per built-in
 * would not do: esbuild puts each shared one in a chunk of its own, one more file to load.)
 */
const IMPORT =
  /(?<=^|[;}\n])import\s*(?:([\w$]+)\s*,?\s*)?(?:\*\s*as\s*([\w$]+)\s*)?(?:\{([^}"]*)\}\s*)?(?:from\s*)?"([^"]+)";?/gm;

function rewriteBuiltinImports(text, expected, file) {
  const banner = text.indexOf('\n');
  const declarations = [];
  const rewritten = new Set();
  const body = text.slice(banner).replace(IMPORT, (statement, defaultName, namespaceName, named, source) => {
    if (!isBuiltin(source)) return statement;
    rewritten.add(source);
    const call = `process.getBuiltinModule(${JSON.stringify(source)})`;
    const whole = defaultName ?? namespaceName;
    if (whole) declarations.push(`${whole}=${call}`);
    if (named !== undefined) {
      const fields = named
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => s.replace(/^([\w$]+)\s+as\s+([\w$]+)$/, '$1:$2'));
      if (fields.length > 0) declarations.push(`{${fields.join(',')}}=${whole ?? call}`);
    }
    return ' '.repeat(statement.length);
  });
  const listed = [...expected].sort().join(', ');
  if ([...rewritten].sort().join(', ') !== listed)
    throw new Error(`${file}: rewrote imports of [${[...rewritten].sort().join(', ')}], esbuild lists [${listed}]`);
  if (declarations.length === 0) return text;
  return `${text.slice(0, banner)}const ${declarations.join(',')};${body}`;
}

/*
 * undici's client requires its HTTP/2 half as it loads, and that half requires node:http2 (about
 * 4 ms of every command on Node 26, bench:startup), though fraudctl never asks for HTTP/2. The
 * require is moved into a function, so esbuild's wrapper runs the module at the first HTTP/2
 * connection instead. Written by hand because no package does this; the build fails if a new
 * undici no longer has the line, rather than quietly losing the saving.
 */
const UNDICI_CLIENT = /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/;
const H2_REQUIRE = "const connectH2 = require('./client-h2.js')";
const deferUndiciHttp2 = {
  name: 'defer-undici-http2',
  setup(build) {
    build.onLoad({ filter: UNDICI_CLIENT }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (!text.includes(H2_REQUIRE)) throw new Error(`${path}: no "${H2_REQUIRE}" to defer; see scripts/build.mjs`);
      return {
        contents: text.replace(H2_REQUIRE, "const connectH2 = (...args) => require('./client-h2.js')(...args)"),
        loader: 'js',
      };
    });
  },
};

// --outdir DIR builds elsewhere (test/scripts/build.test.ts compares such a build with dist/).
const { values: flags } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } });
const outdir = resolve(flags.outdir);
await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: ['src/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Bundled: what client commands load (commander, undici, chalk, cli-table3, prompts), so start-up
  // reads a few files instead of hundreds. External: the sandbox's server-side packages (loaded
  // only by sandbox commands), libsql, a native module, and vega (only evaluate --html draws with it).
  external: [
    ...['fastify', '@fastify/swagger', 'libsql', 'json-logic-engine', '@sinclair/typebox', 'safe-stable-stringify'],
    ...['vega', 'vega-lite'],
  ],
  // See src/bundle-hub.ts: the small modules shared by the command tree and the lazy parts, in one chunk.
  inject: ['src/bundle-hub.ts'],
  minify: true,
  // Bundled CommonJS packages call require(), for Node built-ins only (a CommonJS require of a
  // built-in runs no getters): give ESM chunks one, which loads node:module only for anything
  // else. commander requires node:child_process as it loads, for executable sub-commands, which
  // fraudctl has none of: it gets a stand-in that takes the module at first use (about 2 ms of
  // every command). One line: the rewrite above adds to it.
  banner: {
    js:
      'let __fraudctlRequire;const require=(id)=>id==="node:child_process"?new Proxy({},{get:(_,key)=>process.getBuiltinModule(id)[key]}):' +
      'process.getBuiltinModule(id)??(__fraudctlRequire??=process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);',
  },
  plugins: [deferUndiciHttp2],
  sourcemap: true,
  metafile: true,
  write: false,
  logLevel: 'warning',
});
// FRAUDCTL_BUILD_META=FILE keeps esbuild's metafile: which modules went into which chunk, and their sizes.
if (process.env.FRAUDCTL_BUILD_META) await writeFile(process.env.FRAUDCTL_BUILD_META, JSON.stringify(result.metafile));
for (const file of result.outputFiles) {
  await mkdir(dirname(file.path), { recursive: true });
  if (!file.path.endsWith('.js')) {
    await writeFile(file.path, file.contents);
    continue;
  }
  // The metafile names outputs with forward slashes on every platform, Windows too.
  const name = relative(process.cwd(), file.path).split(sep).join('/');
  const imports = result.metafile.outputs[name]?.imports ?? [];
  const builtins = new Set(
    imports.filter((i) => i.external && i.kind === 'import-statement' && isBuiltin(i.path)).map((i) => i.path),
  );
  await writeFile(file.path, rewriteBuiltinImports(file.text, builtins, name));
}
