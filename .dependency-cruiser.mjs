/*
 * The floors of src/, checked by dependency-cruiser from test/layering.test.ts (it needs Node 22
 * or later, which the suite runs on; the machine's own Node only typechecks and lints). Arrows
 * point down: the command tree and commands at the top, the work below, the shared rooms below
 * that, the service's shapes (src/contract/) at the bottom; the sandbox stands beside the CLI.
 *
 * Known violations: .dependency-cruiser-known-violations.json, the arrows up let through, written by
 * `npx depcruise src --config .dependency-cruiser.mjs --baseline`. It is empty: src/ has no arrow up,
 * and any new one is reported.
 */

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'sandbox-is-the-service',
      comment:
        'src/sandbox/ is the service, not part of the CLI: it imports only itself, src/contract/ and packages, ' +
        'and could be a package of its own as it is. Its errors are said by src/sandbox-host/.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/(sandbox|contract)/' },
    },
    {
      name: 'contract-imports-nothing-of-src',
      comment: "src/contract/ (the service's shapes, shared by CLI and sandbox) imports nothing else of src/.",
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/contract/' },
    },
    {
      name: 'nothing-below-imports-commands',
      comment:
        'The command files map argv to a work module and call it; only the command tree (src/program.ts) ' +
        'and the commands themselves import them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(commands/|program[.]ts$)' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'top-of-src-is-above',
      comment:
        'The files at the top of src/ (main, program, session) stand above every room; a room reaches ' +
        'only the Session, and only from its command.ts and deps.ts (the next rule).',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+[.]ts$', pathNot: '^src/session[.]ts$' },
    },
    {
      name: 'session-only-in-a-rooms-deps',
      comment:
        "A room's command.ts makes the Session (withSession) and its deps.ts builds the deps from it; " +
        'nothing else takes a Session: the run and the work get explicit, narrow deps.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: '^src/commands/[^/]+/(command|deps)[.]ts$' },
      to: { path: '^src/session[.]ts$' },
    },
    {
      name: 'no-circular-files',
      comment: 'No file imports, through any chain, a file that imports it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'No folder imports, through any chain, a folder that imports it: such a cycle is an arrow up.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they are arrows between rooms all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // import() counts as much as import: a lazy arrow up is an arrow up.
    moduleSystems: ['es6', 'cjs'],
  },
};
