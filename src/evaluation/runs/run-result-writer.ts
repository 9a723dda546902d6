/** One case result as the batch statement stores it (snake_case: the keys of {@link STORE_CASE_RESULTS_SQL}'s recordset). */
export interface StoredCaseResult {
  case_id: string;
  repeat_index: number;
  position: number;
  status: string;
  output: string | null;
  /** ms, whole */
  latency_ms: number | null;
  score: number | null;
  error: string | null;
  transcript: unknown[];
  rules_passed: number;
  rules_total: number;
  rules: { rule_index: number; type: string; pass: boolean; score: number; weight: number; reason: string }[];
}

/**
 * Stores a batch of case results of run $1 with their rule results in one statement ($2: a JSON array of
 * {@link StoredCaseResult}); atomic without a transaction. A result already stored by an earlier attempt is left
 * alone (unique index on run, case, repetition), and then no rule rows are added for it.
 */
export const STORE_CASE_RESULTS_SQL = `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($2::jsonb) AS item(case_id varchar, repeat_index integer, position integer, status varchar, output text,
      latency_ms integer, score real, error text, transcript jsonb, rules_passed integer, rules_total integer, rules jsonb)
  ), stored AS (
    INSERT INTO eval_case_result (run_id, case_id, repeat_index, position, status, output, latency_ms, score, error, transcript, rules_passed, rules_total, finished_at)
    SELECT $1, case_id, repeat_index, position, status, output, latency_ms, score, error, transcript, rules_passed, rules_total, now() FROM input
    ON CONFLICT (run_id, case_id, repeat_index) DO NOTHING
    RETURNING id, case_id, repeat_index
  )
  INSERT INTO eval_rule_result (case_result_id, rule_index, type, pass, score, weight, reason)
  SELECT stored.id, rule.rule_index, rule.type, rule.pass, rule.score, rule.weight, rule.reason
    FROM stored
    JOIN input ON input.case_id = stored.case_id AND input.repeat_index = stored.repeat_index,
         jsonb_to_recordset(input.rules) AS rule(rule_index integer, type varchar, pass boolean, score real, weight real, reason text)`;

/**
 * Writes a run's case results in batches (issue 14 item 3): results are buffered and stored by `store` once
 * `batchSize` are waiting or `flushMs` after the first one was buffered, one batch at a time. When a batch is full
 * the case that filled it waits for its store, so a slow database slows the run down rather than the buffer growing
 * (at most `batchSize` results wait, plus the batch being stored). A store that fails makes every later `add` and
 * `flush` reject with its error.
 */
export class RunResultWriter {
  private buffer: StoredCaseResult[] = [];
  private storing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;

  /**
   * @param store stores one batch (retries while the database is away are its own business)
   * @param batchSize results per statement (>= 1)
   * @param flushMs the longest a result waits in the buffer, ms
   */
  constructor(
    private readonly store: (batch: StoredCaseResult[]) => Promise<void>,
    private readonly batchSize: number,
    private readonly flushMs: number,
  ) {}

  /** Buffers one result; resolves at once, or once stored when it filled a batch. @throws the error of an earlier store */
  async add(result: StoredCaseResult): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.buffer.push(result);
    if (this.buffer.length >= this.batchSize) return this.flush();
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.flushMs);
  }

  /** Stores everything buffered so far and waits for every store. @throws the error of a store */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length > 0) {
      const batch = this.buffer;
      this.buffer = [];
      this.storing = this.storing.then(async () => {
        if (this.failure !== undefined) return;
        await this.store(batch).catch((error: unknown) => {
          this.failure = error;
        });
      });
    }
    await this.storing;
    if (this.failure !== undefined) throw this.failure;
  }
}
