import pkg from '../../package.json' with { type: 'json' };

/** fraudctl's version (package.json), for `--version` and the User-Agent header. */
export const VERSION: string = pkg.version;
