import type { ScenarioCase } from '../scenarios/scenario.entity';

/** One (case, repetition) of a run still to execute. */
export interface RunWorkItem {
  testCase: ScenarioCase;
  /** The case's 0-based position in the run's snapshot. */
  position: number;
  repeatIndex: number;
}

/**
 * One keyset page of a run's cases that have no stored result for repetition $3, after position $2, at most $4.
 * Reads `eval_run_case` by its primary key (run_id, position); the check for a stored result uses the unique index
 * (run_id, case_id, repeat_index). A resumed run so skips every (case, repetition) already stored.
 */
export const PENDING_RUN_CASES_SQL = `
  SELECT rc.position, rc.content
    FROM eval_run_case rc
   WHERE rc.run_id = $1 AND rc.position > $2
     AND NOT EXISTS (SELECT 1 FROM eval_case_result cr WHERE cr.run_id = $1 AND cr.case_id = rc.case_id AND cr.repeat_index = $3)
   ORDER BY rc.position
   LIMIT $4`;

/** Runs a statement and returns its rows (the DataSource's `query`). */
export type QueryRows = (sql: string, parameters: unknown[]) => Promise<unknown[]>;

/**
 * The pending work of a run (issue 14 item 3: a run's memory is bounded by concurrency and page size, not by its
 * cases): repetition by repetition, its cases without a stored result in position order, read `pageSize` at a time
 * with a keyset on position. The next page is read while the current one is worked through, so at most two pages
 * are held and workers seldom wait for a read.
 * @returns a pull function: the next item, or undefined when there is none left; it rejects with the read's error
 */
export function pendingRunItems(query: QueryRows, runId: string, repeatCount: number, pageSize: number): () => Promise<RunWorkItem | undefined> {
  async function* pages(): AsyncGenerator<RunWorkItem[]> {
    for (let repeatIndex = 0; repeatIndex < repeatCount; repeatIndex++) {
      let after = -1;
      for (;;) {
        const rows = (await query(PENDING_RUN_CASES_SQL, [runId, after, repeatIndex, pageSize])) as { position: number; content: ScenarioCase }[];
        if (rows.length === 0) break;
        yield rows.map((row) => ({ testCase: row.content, position: row.position, repeatIndex }));
        after = rows[rows.length - 1].position;
        if (rows.length < pageSize) break;
      }
    }
  }
  const source = pages();
  let ahead: Promise<IteratorResult<RunWorkItem[]>> | undefined = source.next();
  let page: RunWorkItem[] = [];
  let index = 0;
  return async () => {
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
    const item = page[index];
    page[index++] = undefined as unknown as RunWorkItem; // let a taken case go as soon as its work ends
    return item;
  };
}
