/*
 * Not code: a device of the build (scripts/build.mjs injects an import of this file into every
 * module it bundles). esbuild puts each module into a chunk per set of entry points that reach
 * it, so the small modules the command tree shares with the lazily loaded parts (batch, review,
 * doctor, tables, the sandbox) would each be a file of their own, loaded one after another by
 * every command, each at a cost (docs/decisions/shared-modules-in-one-chunk.md).
 * Reached from every module through this file, they all land in one chunk. Only small modules
 * belong here: `--version` loads this chunk too.
 */
import './process/version.js';
import './errors/cli-error.js';
import './api/api-error.js';
import './api/retry-policy.js';
import './render/terminal-text.js';
import './contract/states.js';
import './contract/paths.js';
import './paths/xdg-paths.js';
import './profiles/config-file.js';
import './process/stranded-calls.js';
import './render/shell-command.js';
import './review-queue/keymap.js';
