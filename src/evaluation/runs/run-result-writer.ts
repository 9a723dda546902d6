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
 * Writes a run's case results in batches (issue 14 item 3) by group commit: a result is stored at once when no store
 * is running; results that finish while one runs wait for it and go together in the next statement (at most
 * `batchSize` each). A quiet run so stores each result as soon as it has it (a killed instance loses no more than
 * the statement in flight, as with one statement per case), and a busy one (hundreds of cases in flight) writes a
 * statement per batch rather than per case. When `batchSize` results are already waiting, the case adding one
 * waits for the store in flight: a slow database slows the run down rather than the buffer growing. A store that
 * fails makes every later `add` and `flush` reject with its error.
 */
export class RunResultWriter {
  private buffer: StoredCaseResult[] = [];
  /** The drain loop, while one runs. */
  private active: Promise<void> | undefined;
  /** The statement in flight. */
  private current: Promise<void> | undefined;
  private failure: unknown;

  /**
   * @param store stores one batch (retries while the database is away are its own business)
   * @param batchSize most results per statement (>= 1)
   */
  constructor(
    private readonly store: (batch: StoredCaseResult[]) => Promise<void>,
    private readonly batchSize: number,
  ) {}

  /** Hands one result over; resolves at once, or after the store in flight when a batch is already waiting. @throws the error of an earlier store */
  async add(result: StoredCaseResult): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.buffer.push(result);
    this.active ??= this.drain();
    while (this.buffer.length > this.batchSize && this.current) await this.current;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits until every result handed over is stored. @throws the error of a store */
  async flush(): Promise<void> {
    while (this.active) await this.active;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Stores batches until none is waiting (or a store failed). */
  private async drain(): Promise<void> {
    try {
      while (this.buffer.length > 0 && this.failure === undefined) {
        const batch = this.buffer.splice(0, this.batchSize);
        this.current = this.store(batch).catch((error: unknown) => {
          this.failure = error;
        });
        await this.current;
      }
    } finally {
      this.current = undefined;
      this.active = undefined;
    }
  }
}
