import { execSync } from 'node:child_process';

/**
 * The UTF-8 locale a new cluster is initialised with (issue 23: trigrams of Chinese text need a UTF-8 LC_CTYPE):
 * C.UTF-8 where the system has it (glibc ≥ 2.35, Debian, Alpine), else the first *.UTF-8 locale installed, else
 * C.UTF-8 anyway (initdb then names the problem). `locale -a` unavailable (Windows): C.UTF-8.
 */
export function utf8Locale(available: readonly string[] = installedLocales()): string {
  const utf8 = available.filter((name) => /\.utf-?8$/i.test(name));
  return utf8.find((name) => /^c\.utf-?8$/i.test(name)) ?? utf8.find((name) => /^en_US\./i.test(name)) ?? utf8[0] ?? 'C.UTF-8';
}

function installedLocales(): string[] {
  try {
    return execSync('locale -a', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').map((line) => line.trim()).filter(Boolean);
  } catch {
    return [];
  }
}
