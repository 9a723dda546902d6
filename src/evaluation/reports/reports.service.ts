import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RunEntity } from '../runs/run.entity';
import { toRunDto } from '../runs/runs.dto';
import { caseDifference, CaseDifference, comparisonDelta } from './compare-runs';
import { decodeReportCursor, encodeReportCursor, ReportCaseKey } from './report-cursor';
import type { ReportFilterQueryDto, ReportQueryDto } from './report.dto';
import { FINISHED_RUN_STATUSES, reportEtag } from './report-etag';
import { markdownCaseRow, markdownFailureLines, markdownHead, MARKDOWN_CASES_HEAD, MARKDOWN_NO_FAILURES } from './report-markdown';
import type { ReportCase, ReportRule, RunReport } from './report.types';

/** Columns of a run a report's head needs (never its model bindings or lease). */
const REPORT_RUN_COLUMNS = Object.fromEntries(
  (['id', 'scenarioId', 'scenarioName', 'scenarioVersion', 'targetId', 'targetName', 'status', 'triggeredBy', 'campaignId', 'concurrency', 'repeatCount', 'caseCount', 'summary', 'error', 'createdAt', 'startedAt', 'finishedAt'] as const).map((column) => [column, true]),
) as Partial<Record<keyof RunEntity, true>>;

/** A run's stored case results ($1), for the ETag of its finished report: results are only ever added. */
const RESULT_COUNT_SQL = `SELECT count(*)::int AS results FROM eval_case_result WHERE run_id = $1`;

/** A case result row as the JSON report reads it (the case's input and expected come from its snapshot row). */
interface ReportCaseRow {
  case_id: string;
  repeat_index: number;
  position: number;
  status: ReportCase['status'];
  output: string | null;
  latency_ms: number | null;
  score: number | null;
  error: string | null;
  transcript: ReportCase['transcript'];
  turns: string[] | null;
  input: string | null;
  expected: string | null;
  rules: ReportRule[] | null;
}

/** A run read for a report, with what its ETag depends on. */
export interface ReportRun {
  run: RunEntity;
  /** Null while the run is not finished (no ETag then). */
  etag: string | null;
}

/** A report body produced as it is read: `chunks` are written in order; nothing is read before the first pull. */
export interface ReportStream {
  chunks: AsyncGenerator<string>;
}

/**
 * Reports of runs: single (JSON and Markdown) and comparison (evaluation-platform.md, Endpoints: /api/reports).
 *
 * Issue 23 item 3: a report is never built in memory. Case results are read in the index order
 * (run, position, repetition) in keyset batches of EVAL_REPORT_BATCH_SIZE, one statement each with no transaction,
 * so the pool connection goes back between two batches and a slow client holds none; each batch is turned into
 * text (the JSON shape of before, element by element with JSON.stringify) and handed to the writer, which waits for
 * the socket to drain. Server memory so stays flat in the number of cases. Filters (`status`, `tag`, `rule_type`)
 * and paging (`size`, `cursor` → `next_cursor`) are opt-in.
 */
@Injectable()
export class ReportsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The run of a report and the ETag of the representation `representation` for `query`.
   * @throws NotFoundException (404)
   */
  async reportRun(runId: string, representation: string, query: object): Promise<ReportRun> {
    const run = await this.findRun(runId);
    const etag = FINISHED_RUN_STATUSES.includes(run.status) ? reportEtag(representation, [await this.version(run)], { ...query }) : null;
    return { run, etag };
  }

  /**
   * Two runs of one scenario to compare, and the comparison's ETag (both finished).
   * @throws BadRequestException (400) runs of different scenarios; NotFoundException (404) unknown run
   */
  async compareRuns(runIdA: string, runIdB: string): Promise<{ runA: RunEntity; runB: RunEntity; etag: string | null }> {
    const [runA, runB] = await Promise.all([this.findRun(runIdA), this.findRun(runIdB)]);
    if (!runA.scenarioId || runA.scenarioId !== runB.scenarioId) {
      throw new BadRequestException('Only runs of the same scenario can be compared.');
    }
    const finished = [runA, runB].every((run) => FINISHED_RUN_STATUSES.includes(run.status));
    const etag = finished ? reportEtag('compare', await Promise.all([this.version(runA), this.version(runB)]), {}) : null;
    return { runA, runB, etag };
  }

  /**
   * The JSON report of a run (evaluation-platform.md, Resources: Single report), as text chunks: `run_id`, `status`,
   * `header`, `summary`, then `cases` in scenario order (position, repetition), each with its rules; with paging,
   * then `next_cursor`. Without filters and paging the document is the same as the whole report always was.
   * @throws BadRequestException (400) a bad cursor or a size over EVAL_REPORT_PAGE_MAX (when the first chunk is pulled)
   */
  reportJson(run: RunEntity, query: ReportQueryDto): ReportStream {
    const paged = query.size !== undefined || query.cursor !== undefined;
    const page = paged ? this.pageOf(query) : undefined;
    const head = JSON.stringify(reportHead(run));
    const self = this;
    async function* chunks(): AsyncGenerator<string> {
      let text = `${head.slice(0, -1)},"cases":[`;
      let first = true;
      const cursor = { next: null as ReportCaseKey | null };
      for await (const rows of self.caseBatches(run, query, page, true, cursor)) {
        for (const row of rows) {
          text += (first ? '' : ',') + JSON.stringify(toReportCase(row));
          first = false;
        }
        yield text;
        text = '';
      }
      text += paged ? `],"next_cursor":${JSON.stringify(cursor.next ? encodeReportCursor(cursor.next) : null)}}` : ']}';
      yield text;
    }
    return { chunks: chunks() };
  }

  /**
   * The Markdown report of a run, as text chunks (the same lines renderReportMarkdown writes for the same cases):
   * one pass over the failed and errored cases, one over every case for the table.
   */
  reportMarkdown(run: RunEntity, filters: ReportFilterQueryDto): ReportStream {
    const self = this;
    async function* chunks(): AsyncGenerator<string> {
      const lines = (list: string[]) => list.map((line) => `${line}\n`).join('');
      let text = lines(markdownHead(reportHead(run)));
      // The failures section lists the failed and errored cases among those the filters choose.
      const failed = { ...filters, status: (filters.status ?? ['failed', 'errored']).filter((status) => status !== 'passed') };
      let failures = 0;
      if (failed.status.length > 0) {
        for await (const rows of self.markdownBatches(run, failed, 'failures')) {
          text += lines(rows.flatMap((row) => markdownFailureLines({ ...row, rules: row.rules ?? [] })));
          failures += rows.length;
          yield text;
          text = '';
        }
      }
      if (failures === 0) text += lines([MARKDOWN_NO_FAILURES]);
      yield text + lines(MARKDOWN_CASES_HEAD);
      for await (const rows of self.markdownBatches(run, filters, 'cases')) {
        yield rows.map((row) => `${markdownCaseRow(row)}\n`).join('');
      }
    }
    return { chunks: chunks() };
  }

  /**
   * The comparison report of two runs (evaluation-platform.md, Resources: Comparison report) as text chunks:
   * `run_a`, `run_b`, `delta` (run_b − run_a) and `cases` matched by case id, in run_a's order then run_b's new ones.
   * The match is PostgreSQL's: run_a's cases in keyset batches left-joined to run_b's results of the same case id
   * (all repetitions, folded), then run_b's cases with no result in run_a (the anti-join): together the full outer
   * join, read a batch at a time in the output's order.
   */
  compareJson(runA: RunEntity, runB: RunEntity): ReportStream {
    const self = this;
    async function* chunks(): AsyncGenerator<string> {
      const head = JSON.stringify({ run_a: toRunDto(runA), run_b: toRunDto(runB), delta: comparisonDelta(runA.summary, runB.summary) });
      let text = `${head.slice(0, -1)},"cases":[`;
      let first = true;
      for await (const cases of self.comparisonBatches(runA, runB)) {
        for (const item of cases) {
          text += (first ? '' : ',') + JSON.stringify(item);
          first = false;
        }
        yield text;
        text = '';
      }
      yield `${text}]}`;
    }
    return { chunks: chunks() };
  }

  /** The run with the columns a report reads. @throws NotFoundException (404) */
  private async findRun(id: string): Promise<RunEntity> {
    const run = await this.dataSource.getRepository(RunEntity).findOne({ where: { id }, select: REPORT_RUN_COLUMNS });
    if (!run) throw new NotFoundException(`No run ${id}.`);
    return run;
  }

  private async version(run: RunEntity) {
    const [{ results }] = (await this.dataSource.query(RESULT_COUNT_SQL, [run.id])) as { results: number }[];
    return { id: run.id, status: run.status, finishedAt: run.finishedAt, results };
  }

  /** The page a paged query asks for. @throws BadRequestException (400) */
  private pageOf(query: ReportQueryDto): { size: number; after: ReportCaseKey | null } {
    const { pageMax } = this.config.evalReports;
    const size = query.size ?? pageMax;
    if (size > pageMax) throw new BadRequestException(`size must not be greater than ${pageMax} (EVAL_REPORT_PAGE_MAX).`);
    if (query.cursor === undefined) return { size, after: null };
    const after = decodeReportCursor(query.cursor);
    if (!after) throw new BadRequestException('cursor is not a next_cursor this server issued.');
    return { size, after };
  }

  /**
   * The report's case rows in (position, repetition) order, in keyset batches. With `page`, at most `page.size`
   * rows after `page.after`; `cursor.next` is then set to the last row's key when more rows follow.
   */
  private async *caseBatches(
    run: RunEntity,
    filters: ReportFilterQueryDto,
    page: { size: number; after: ReportCaseKey | null } | undefined,
    withRules: boolean,
    cursor: { next: ReportCaseKey | null },
  ): AsyncGenerator<ReportCaseRow[]> {
    let remaining = page ? page.size : Number.POSITIVE_INFINITY;
    const limit = () => Math.min(this.config.evalReports.batchSize, remaining + 1);
    let last: ReportCaseKey | null = page?.after ?? null;
    const read = (after: ReportCaseKey, toPosition: number, rows: number) => {
      const { sql, parameters } = caseQuery(run.id, filters, after, toPosition, rows, withRules);
      return this.dataSource.query(sql, parameters) as Promise<ReportCaseRow[]>;
    };
    for await (const rows of windowedKeyset(run, page?.after ?? null, this.config.evalReports.batchSize, limit, read, rowKey)) {
      const taken = rows.length > remaining ? rows.slice(0, remaining) : rows;
      if (taken.length > 0) {
        last = rowKey(taken[taken.length - 1]);
        remaining -= taken.length;
        yield taken;
      }
      if (rows.length > taken.length) {
        cursor.next = last;
        return;
      }
    }
  }

  /** Rows for the Markdown report: `failures` (status, error, failed rules) or `cases` (the table's columns). */
  private async *markdownBatches(run: RunEntity, filters: ReportFilterQueryDto, part: 'failures' | 'cases'): AsyncGenerator<ReportCaseRow[]> {
    const batchSize = this.config.evalReports.batchSize;
    const read = (after: ReportCaseKey, toPosition: number, rows: number) => {
      const { sql, parameters } = markdownQuery(run.id, filters, after, toPosition, rows, part);
      return this.dataSource.query(sql, parameters) as Promise<ReportCaseRow[]>;
    };
    yield* windowedKeyset(run, null, batchSize, () => batchSize, read, rowKey);
  }

  /** The comparison's cases in batches: run_a's cases (by position) joined to run_b's, then run_b's new ones. */
  private async *comparisonBatches(runA: RunEntity, runB: RunEntity): AsyncGenerator<CaseDifference[]> {
    const batchSize = this.config.evalReports.batchSize;
    for (const [sql, run] of [[COMPARE_A_SQL, runA], [COMPARE_B_ONLY_SQL, runB]] as const) {
      const read = (after: ReportCaseKey, toPosition: number, rows: number) =>
        this.dataSource.query(sql, [runA.id, runB.id, after.position, rows, toPosition]) as Promise<ComparisonRow[]>;
      // One row per case: a position is done once read, whatever its repetitions.
      const positionKey = (row: ComparisonRow): ReportCaseKey => ({ position: row.position, repeatIndex: AFTER_EVERY_REPETITION });
      for await (const rows of windowedKeyset({ ...run, repeatCount: 1 }, null, batchSize, () => batchSize, read, positionKey)) {
        yield rows.map((row) => caseDifference(row.case_id, results(row.statuses_a, row.scores_a), results(row.statuses_b, row.scores_b)));
      }
    }
  }
}

/** A repetition index above every real one: the key (p, this) means "after every result of position p". */
const AFTER_EVERY_REPETITION = 2_147_483_647;

const rowKey = (row: { position: number; repeat_index: number }): ReportCaseKey => ({ position: row.position, repeatIndex: row.repeat_index });

/**
 * Reads a run's rows in key order, `limit()` at a time, each statement bounded to a window of positions as well
 * as by its LIMIT: whatever plan PostgreSQL picks for a statement (with stale statistics it may read every
 * remaining row of the run and sort them rather than walk the index), its work stays bounded by the window, so a
 * whole report costs O(cases), never O(cases² / batch). Windows start `batchSize / repeatCount` positions wide and
 * double, up to 64 times that, while they come back sparse (filters).
 * @param run its `caseCount` bounds the positions (0 … caseCount − 1) and `repeatCount` the rows per position
 * @param start the key to continue after (null: from the start)
 * @param read rows after `after`, at positions up to `toPosition`, in key order, at most `limit`
 */
async function* windowedKeyset<Row>(
  run: Pick<RunEntity, 'caseCount' | 'repeatCount'>,
  start: ReportCaseKey | null,
  batchSize: number,
  limit: () => number,
  read: (after: ReportCaseKey, toPosition: number, limit: number) => Promise<Row[]>,
  keyOf: (row: Row) => ReportCaseKey,
): AsyncGenerator<Row[]> {
  const lastPosition = run.caseCount - 1;
  const narrowest = Math.max(1, Math.ceil(batchSize / Math.max(1, run.repeatCount)));
  let width = narrowest;
  let after: ReportCaseKey = start ?? { position: -1, repeatIndex: AFTER_EVERY_REPETITION };
  for (;;) {
    const from = after.repeatIndex === AFTER_EVERY_REPETITION ? after.position + 1 : after.position;
    if (from > lastPosition) return;
    const toPosition = Math.min(from + width - 1, lastPosition);
    const wanted = limit();
    const rows = await read(after, toPosition, wanted);
    if (rows.length > 0) yield rows;
    if (rows.length >= wanted) {
      after = keyOf(rows[rows.length - 1]);
      continue;
    }
    after = { position: toPosition, repeatIndex: AFTER_EVERY_REPETITION };
    if (rows.length < wanted / 2) width = Math.min(width * 2, narrowest * 64);
  }
}

/** One case of a comparison as PostgreSQL folds it: each run's statuses and scores in repetition order (null: none). */
interface ComparisonRow {
  position: number;
  case_id: string;
  statuses_a: ReportCase['status'][] | null;
  scores_a: (number | null)[] | null;
  statuses_b: ReportCase['status'][] | null;
  scores_b: (number | null)[] | null;
}

function results(statuses: ReportCase['status'][] | null, scores: (number | null)[] | null): Pick<ReportCase, 'status' | 'score'>[] | undefined {
  return statuses ? statuses.map((status, index) => ({ status, score: scores?.[index] ?? null })) : undefined;
}

/** Statuses and scores of one case of run $1, repetitions in order (array_agg over its index order). */
const FOLD = `array_agg(status ORDER BY repeat_index) AS statuses, array_agg(score ORDER BY repeat_index) AS scores`;

/**
 * A batch of run_a's ($1) cases at positions $3 < position <= $5 (at most $4), grouped per case over the (run,
 * position, repetition) index, each left-joined to run_b's ($2) results of the same case id (unique index on run,
 * case id, repetition).
 */
const COMPARE_A_SQL = `
  WITH a AS (
    SELECT position, case_id, ${FOLD}
      FROM eval_case_result WHERE run_id = $1 AND position > $3 AND position <= $5
     GROUP BY position, case_id ORDER BY position LIMIT $4
  )
  SELECT a.position, a.case_id, a.statuses AS statuses_a, a.scores AS scores_a, b.statuses AS statuses_b, b.scores AS scores_b
    FROM a LEFT JOIN LATERAL (SELECT ${FOLD} FROM eval_case_result WHERE run_id = $2 AND case_id = a.case_id) b ON true
   ORDER BY a.position`;

/** A batch of run_b's ($2) cases at positions $3 < position <= $5 (at most $4) that have no result in run_a ($1). */
const COMPARE_B_ONLY_SQL = `
  SELECT b.position, b.case_id, NULL::varchar[] AS statuses_a, NULL::real[] AS scores_a,
         array_agg(b.status ORDER BY b.repeat_index) AS statuses_b, array_agg(b.score ORDER BY b.repeat_index) AS scores_b
    FROM eval_case_result b
   WHERE b.run_id = $2 AND b.position > $3 AND b.position <= $5
     AND NOT EXISTS (SELECT 1 FROM eval_case_result a WHERE a.run_id = $1 AND a.case_id = b.case_id)
   GROUP BY b.position, b.case_id ORDER BY b.position LIMIT $4`;

/** The rules of case result `cr` as a JSON array in rule order (null when none); `onlyFailed` keeps the failed ones. */
function rulesColumn(onlyFailed: boolean): string {
  return `(SELECT json_agg(json_build_object('index', rr.rule_index, 'type', rr.type, 'pass', rr.pass, 'score', rr.score, 'weight', rr.weight, 'reason', rr.reason) ORDER BY rr.rule_index)
             FROM eval_rule_result rr WHERE rr.case_result_id = cr.id${onlyFailed ? ' AND NOT rr.pass' : ''}) AS rules`;
}

/** The WHERE of a report's case rows: run $1, after the key ($2, $3), at positions up to $4, then the opt-in filters. */
function caseWhere(runId: string, filters: ReportFilterQueryDto, after: ReportCaseKey, toPosition: number, parameters: unknown[]): string {
  parameters.push(runId, after.position, after.repeatIndex, toPosition);
  const where = ['cr.run_id = $1', '(cr.position, cr.repeat_index) > ($2, $3)', 'cr.position <= $4'];
  if (filters.status && filters.status.length > 0) {
    parameters.push(filters.status);
    where.push(`cr.status = ANY($${parameters.length}::varchar[])`);
  }
  if (filters.tag !== undefined) {
    parameters.push(filters.tag);
    where.push(`rc.content->'tags' @> jsonb_build_array($${parameters.length}::text)`);
  }
  if (filters.rule_type !== undefined) {
    parameters.push(filters.rule_type);
    where.push(`EXISTS (SELECT 1 FROM eval_rule_result rt WHERE rt.case_result_id = cr.id AND rt.type = $${parameters.length})`);
  }
  return where.join(' AND ');
}

/** One batch of the JSON report's case rows, served by ix_eval_case_result_run_position in its order. */
function caseQuery(runId: string, filters: ReportFilterQueryDto, after: ReportCaseKey, toPosition: number, limit: number, withRules: boolean): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const where = caseWhere(runId, filters, after, toPosition, parameters);
  parameters.push(limit);
  const sql = `
    SELECT cr.case_id, cr.repeat_index, cr.position, cr.status, cr.output, cr.latency_ms, cr.score, cr.error, cr.transcript,
           rc.content->'turns' AS turns, rc.content->'input' AS input, rc.content->'expected' AS expected${withRules ? `, ${rulesColumn(false)}` : ''}
      FROM eval_case_result cr
      LEFT JOIN eval_run_case rc ON rc.run_id = cr.run_id AND rc.position = cr.position
     WHERE ${where}
     ORDER BY cr.position, cr.repeat_index
     LIMIT $${parameters.length}`;
  return { sql, parameters };
}

/** One batch of the Markdown report's rows (`failures`: with the failed rules; `cases`: the table's columns, output cut). */
function markdownQuery(runId: string, filters: ReportFilterQueryDto, after: ReportCaseKey, toPosition: number, limit: number, part: 'failures' | 'cases'): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const where = caseWhere(runId, filters, after, toPosition, parameters);
  parameters.push(limit);
  // A table cell shows at most 500 characters of the output after escaping (each from at most 2 of the original).
  const columns = part === 'failures' ? `cr.error, ${rulesColumn(true)}` : 'cr.score, cr.latency_ms, left(cr.output, 1001) AS output';
  const join = filters.tag !== undefined ? 'LEFT JOIN eval_run_case rc ON rc.run_id = cr.run_id AND rc.position = cr.position' : '';
  const sql = `
    SELECT cr.case_id, cr.repeat_index, cr.position, cr.status, ${columns}
      FROM eval_case_result cr ${join}
     WHERE ${where}
     ORDER BY cr.position, cr.repeat_index
     LIMIT $${parameters.length}`;
  return { sql, parameters };
}

/** A case row as the report shows it (the same object, key for key, the whole report was built from). */
function toReportCase(row: ReportCaseRow): ReportCase {
  return {
    case_id: row.case_id,
    repeat_index: row.repeat_index,
    status: row.status,
    input: row.turns ?? row.input ?? '',
    expected: row.expected ?? null,
    output: row.output,
    latency_ms: row.latency_ms,
    score: row.score,
    error: row.error,
    transcript: row.transcript,
    rules: row.rules ?? [],
  };
}

/** The report's head: everything but `cases`, in the document's key order. */
function reportHead(run: RunEntity): Omit<RunReport, 'cases'> {
  return {
    run_id: run.id,
    status: run.status,
    header: {
      scenario_id: run.scenarioId,
      scenario_name: run.scenarioName,
      scenario_version: run.scenarioVersion,
      version: `v${run.scenarioVersion}`,
      target_id: run.targetId,
      target_name: run.targetName,
      triggered_by: run.triggeredBy,
      campaign_id: run.campaignId,
      created_at: run.createdAt.toISOString(),
      started_at: run.startedAt?.toISOString() ?? null,
      finished_at: run.finishedAt?.toISOString() ?? null,
    },
    summary: run.summary,
  };
}
