import { existsSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * How many of this process's file descriptors are open on `path`, from /proc/self/fd (null where
 * /proc cannot tell). Counted for that one path, not as the process's whole count of descriptors,
 * which other work in the same worker (a keep-alive socket closing, a file another module opens)
 * can move at any time.
 */
export function descriptorsOn(path: string): number | null {
  if (!existsSync('/proc/self/fd')) return null;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}
