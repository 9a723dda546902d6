import type { ScenarioCase } from '../scenarios/scenario.entity';
import type { Pulled } from './bounded-pool';

/** One (case, repetition) of a run still to execute. */
export interface RunWorkItem {
  testCase: ScenarioCase;
  /** The case's 0-based position in the run's snapshot. */
  position: number;
  repeatIndex: number;
}

/**
 * A window of a run's case snapshot: positions $2 < position <= $3 of run $1, by its primary key (run_id, position).
 * Bounded by the window whatever plan PostgreSQL picks (with stale statistics a join or a LIMIT alone let it read
 * and sort every remaining row of the run per page; seen at 1 s per page).
 */
export const RUN_CASE_WINDOW_SQL = `SELECT position, content FROM eval_run_case WHERE run_id = $1 AND position > $2 AND position <= $3 ORDER BY position`;

/** Positions in the same window that have a stored result for repetition $4 (index on run, position, repetition). */
export const STORED_POSITIONS_SQL = `SELECT position FROM eval_case_result WHERE run_id = $1 AND position > $2 AND position <= $3 AND repeat_index = $4`;

/** Runs a statement and returns its rows (the DataSource's `query`). */
export type QueryRows = (sql: string, parameters: unknown[]) => Promise<unknown[]>;

/**
 * The pending work of a run (issue 14 item 3: a run's memory is bounded by concurrency and page size, not by its
 * cases): repetition by repetition, its cases without a stored result in position order, read in windows of
 * `pageSize` positions (keyset on position; two bounded statements each). A resumed run so skips every (case,
 * repetition) already stored. The next window is read while the current one is worked through, so at most two are
 * held and workers seldom wait for a read.
 * @param caseCount the run's cases: positions 0 … caseCount − 1
 * @returns a pull function: the next item (at once when the page at hand has one, else a promise of it), or undefined
 *   when there is none left; its promise rejects with the read's error
 */
export function pendingRunItems(query: QueryRows, runId: string, caseCount: number, repeatCount: number, pageSize: number): () => Pulled<RunWorkItem> {
  async function* pages(): AsyncGenerator<RunWorkItem[]> {
    for (let repeatIndex = 0; repeatIndex < repeatCount; repeatIndex++) {
      for (let after = -1; after < caseCount - 1; after += pageSize) {
        const until = after + pageSize;
        const [rows, stored] = await Promise.all([
          query(RUN_CASE_WINDOW_SQL, [runId, after, until]) as Promise<{ position: number; content: ScenarioCase }[]>,
          query(STORED_POSITIONS_SQL, [runId, after, until, repeatIndex]) as Promise<{ position: number }[]>,
        ]);
        const done = new Set(stored.map((row) => row.position));
        const pending = rows.filter((row) => !done.has(row.position)).map((row) => ({ testCase: row.content, position: row.position, repeatIndex }));
        if (pending.length > 0) yield pending;
      }
    }
  }
  const source = pages();
  let ahead: Promise<IteratorResult<RunWorkItem[]>> | undefined = source.next();
  let page: RunWorkItem[] = [];
  let index = 0;
  const take = (): RunWorkItem => {
    const item = page[index];
    page[index++] = undefined as unknown as RunWorkItem; // let a taken case go as soon as its work ends
    return item;
  };
  const read = async (): Promise<RunWorkItem | undefined> => {
    while (index >= page.length) {
      if (!ahead) return undefined;
      const result = await ahead;
      if (result.done) {
        ahead = undefined;
        return undefined;
      }
      page = result.value;
      index = 0;
      ahead = source.next(); // read ahead while this page is worked through
      ahead.catch(() => undefined); // its error surfaces when the next pull awaits it
    }
    return take();
  };
  return () => (index < page.length ? take() : read());
}
