import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the live processes whose command line contains `marker` (read from /proc). */
export function processesWith(marker: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
}
