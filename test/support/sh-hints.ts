import { useShell } from '../../src/render/shell-command.js';

/*
 * Each test file starts with hints written for sh, whatever the platform: the files share a
 * worker's modules, and the dialect is otherwise what the platform gives (cmd.exe on Windows) or
 * what a run before chose. A test of another dialect chooses it itself (shell-command.test.ts);
 * a command run in-process chooses by its environment and gives the dialect back (main.ts).
 */
useShell('sh');
