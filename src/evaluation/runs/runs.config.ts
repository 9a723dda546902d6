import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const RUNS = 'Runs';
const REPORTS = 'Reports';

/**
 * The evaluation wing's run variables added by issue 19: caps on the model and target text a run stores (item 2) and
 * the run lease with its sweeper (acceptance 5; issue 20 extends the same lease to every job kind).
 */
export class RunVariables {
  @ConfigVariable({
    group: RUNS,
    description:
      'longest target reply a run stores (case output, transcript); a longer reply makes the case `errored` naming this variable, and the transcript keeps only its first characters, marked as cut',
    unit: 'chars',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(10_000_000)
  EVAL_TARGET_REPLY_MAX_CHARS: number = 100_000;

  @ConfigVariable({
    group: RUNS,
    description: 'longest answer of an llm-rubric judge that is read; a longer one fails the rule ("judge failed", naming this variable) unparsed',
    unit: 'chars',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(1_000_000)
  EVAL_JUDGE_ANSWER_MAX_CHARS: number = 20_000;

  @ConfigVariable({
    group: RUNS,
    description: 'a running run\'s lease: the instance executing it renews it every EVAL_RUN_HEARTBEAT_MS; once it is this old (the instance was killed or froze) the sweeper hands the run to another worker; more than twice EVAL_RUN_HEARTBEAT_MS',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  EVAL_RUN_LEASE_MS: number = 60_000;

  @ConfigVariable({ group: RUNS, description: 'how often the instance executing a run renews its lease', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  EVAL_RUN_HEARTBEAT_MS: number = 10_000;

  @ConfigVariable({ group: RUNS, description: 'how often the run sweeper looks for runs whose lease ran out (also once at start-up); one instance at a time (advisory lock)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  EVAL_RUN_SWEEP_INTERVAL_MS: number = 15_000;

  @ConfigVariable({ group: RUNS, description: 'cases a running run reads from the database at a time (keyset page); with the concurrency, this bounds a run\'s memory', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  EVAL_RUN_CASE_PAGE_SIZE: number = 250;

  @ConfigVariable({ group: RUNS, description: 'most case results a run stores in one statement (results are stored at once when no store is running; those finished meanwhile go together)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(5_000)
  EVAL_RUN_RESULT_BATCH_SIZE: number = 100;

  @ConfigVariable({ group: REPORTS, description: 'case results a report reads per statement; the pool connection is given back between two reads, so a slow client never holds one', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  EVAL_REPORT_BATCH_SIZE: number = 500;

  @ConfigVariable({ group: REPORTS, description: 'largest `size` (cases per page) a paged report accepts', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100_000)
  EVAL_REPORT_PAGE_MAX: number = 1_000;
}

/**
 * The slices `evalRuns`: `targetReplyMaxChars`, `judgeAnswerMaxChars` (characters), `leaseMs`, `heartbeatMs`,
 * `sweepIntervalMs` (ms), `casePageSize` (cases), `resultBatchSize` (results); and `evalReports`:
 * `batchSize` (cases per read), `pageMax` (cases per page), issue 23 item 3.
 */
export const runsConfig = declareConfig({
  wing: 'evaluation',
  variables: RunVariables,
  check: (vars) => (vars.EVAL_RUN_LEASE_MS <= 2 * vars.EVAL_RUN_HEARTBEAT_MS ? ['EVAL_RUN_LEASE_MS: must be more than twice EVAL_RUN_HEARTBEAT_MS'] : []),
  resolve: (vars) => ({
    evalRuns: {
      targetReplyMaxChars: vars.EVAL_TARGET_REPLY_MAX_CHARS,
      judgeAnswerMaxChars: vars.EVAL_JUDGE_ANSWER_MAX_CHARS,
      leaseMs: vars.EVAL_RUN_LEASE_MS,
      heartbeatMs: vars.EVAL_RUN_HEARTBEAT_MS,
      sweepIntervalMs: vars.EVAL_RUN_SWEEP_INTERVAL_MS,
      casePageSize: vars.EVAL_RUN_CASE_PAGE_SIZE,
      resultBatchSize: vars.EVAL_RUN_RESULT_BATCH_SIZE,
    },
    evalReports: {
      batchSize: vars.EVAL_REPORT_BATCH_SIZE,
      pageMax: vars.EVAL_REPORT_PAGE_MAX,
    },
  }),
});

/** The resolved slice. */
export type RunsConfig = ReturnType<typeof runsConfig.resolve>;

declare module '../../config/app-config' {
  /** The evaluation wing's `evalRuns` slice. */
  interface AppConfig extends RunsConfig {}
}
