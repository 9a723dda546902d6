/**
 * Rules of the start-up sweep of the deployment gateway's folders (issue 19 item 5; SiteReconciler). No I/O here.
 */

/** Takes a published site's transaction-scoped advisory lock ($1 its directory name): publish holds it until commit. */
export const SITE_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('atrium:deploy-site:' || $1))`;

/** Tries the same lock without waiting ($1 directory name); `locked` false while a publish of that site is committing. */
export const SITE_TRY_LOCK_SQL = `SELECT pg_try_advisory_xact_lock(hashtext('atrium:deploy-site:' || $1)) AS locked`;

/** What the sweep does with one leftover. */
export type LeftoverVerdict = 'remove' | 'keep';

/**
 * Whether a staging or upload leftover may be removed: when nothing in it changed for `graceMs` (another instance
 * sharing the folder may still be writing a younger one). `newestChangeMs` is the latest mtime/ctime found in it
 * (epoch ms); `graceMs` 0 removes everything (one instance owns the folders: the embedded database's case).
 */
export function leftoverVerdict(newestChangeMs: number, nowMs: number, graceMs: number): LeftoverVerdict {
  return graceMs <= 0 || nowMs - newestChangeMs >= graceMs ? 'remove' : 'keep';
}

/**
 * The published folders with no deployment row: `folders` are the directory names found under one namespace,
 * `rows` the directory names its rows name. Names that aren't deployment directory names (`[a-z0-9-]`) are left alone.
 */
export function orphanFolders(folders: readonly string[], rows: ReadonlySet<string>): string[] {
  return folders.filter((name) => /^[a-z0-9-]{1,96}$/.test(name) && !rows.has(name));
}
