import { createHash } from 'node:crypto';

/** Run statuses after which a run's report no longer changes (issue 23 item 3: finished runs' reports carry an ETag). */
export const FINISHED_RUN_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];

/** What a report's content depends on, for one run. */
export interface ReportRunVersion {
  id: string;
  status: string;
  finishedAt: Date | null;
  /** Stored case results (results are only ever added: a late result of a cancelled run's case changes this). */
  results: number;
}

/**
 * The ETag of a report representation (issue 23 item 3), or null while a run is not finished (its report still
 * changes). Strong: the same runs, representation and query always produce the same bytes. Pure.
 * @param representation e.g. `json`, `markdown`, `compare`
 * @param query the options that shape the body (filters, paging), in any key order
 */
export function reportEtag(representation: string, runs: readonly ReportRunVersion[], query: Record<string, unknown>): string | null {
  if (runs.some((run) => !FINISHED_RUN_STATUSES.includes(run.status))) return null;
  const canonicalQuery = Object.keys(query)
    .filter((key) => query[key] !== undefined)
    .sort()
    .map((key) => [key, Array.isArray(query[key]) ? [...(query[key] as unknown[])].map(String).sort() : query[key]]);
  const versions = runs.map((run) => [run.id, run.status, run.finishedAt?.toISOString() ?? null, run.results]);
  const digest = createHash('sha256').update(JSON.stringify(['report-v1', representation, versions, canonicalQuery])).digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

/**
 * Whether an `If-None-Match` header matches `etag` (RFC 9110 §13.1.2: weak comparison, `*` matches any). Pure.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
