import { setTimeout as delay } from 'node:timers/promises';
import {
  abortError,
  EvalApiClient,
  EvalApiError,
  type EvalReport,
  type EvalRun,
  type EvalRunStatus,
  type EvalRunSummary,
  type SkillTrigger,
} from './eval-api.client';

/** Default time between two polls of GET /api/runs/{id}, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 2_000;
/** Default overall time limit of {@link evaluateWithSkill} (create, poll, report), in ms: 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** At most this many failed or errored cases are listed in the summary text; the rest are counted. */
export const MAX_LISTED_FAILURES = 20;

/** Waits `ms` milliseconds; must reject when `signal` aborts. Injectable so tests control time. */
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options of {@link evaluateWithSkill}. Times are in milliseconds. */
export interface SkillOptions {
  /** Platform base URL (http or https). */
  apiUrl: string;
  /** API key sent as `X-API-Key`; wins over `sessionToken`. One of the two is required. */
  apiKey?: string;
  /** Session token from sign-in, sent as `Authorization: Bearer`. */
  sessionToken?: string;
  /** Scenario to run (UUID). */
  scenarioId: string;
  /** Target to run against (UUID). */
  targetId: string;
  /** `triggered_by` of the run: `ai_assistant` (default) or `cli`. */
  triggeredBy?: SkillTrigger;
  /** Time between polls, ms (default 2000; must be > 0). */
  pollIntervalMs?: number;
  /** Overall limit from the start of the call, ms (default 600000; >= 0). On expiry the result has status `timeout`. */
  timeoutMs?: number;
  /** Minimum pass rate 0..1 for `ok`; unset means any completed run is ok. */
  minPassRate?: number;
  /** Cases in flight at once (server default 4). */
  concurrency?: number;
  /** Times each case is run (server default 1). */
  repeatCount?: number;
  /** Per-request HTTP timeout, ms (default 30000). */
  requestTimeoutMs?: number;
  /** Replaces the wait between polls (tests). Default: a timer that honours `signal`. */
  sleep?: SleepFn;
  /** Replaces the clock used for the timeout, epoch ms (tests). Default `Date.now`. */
  now?: () => number;
  /** Aborts the evaluation: pending requests and waits stop and the call rejects with the abort reason. */
  signal?: AbortSignal;
  /** Called with the created run and then with every polled run whose status changed (progress display). */
  onStatus?: (run: EvalRun) => void;
}

/** Outcome status of the skill: a run status, or `timeout` when the run was not terminal before `timeoutMs`. */
export type SkillStatus = EvalRunStatus | 'timeout';

/** What {@link evaluateWithSkill} resolves to. */
export interface SkillResult {
  /** Id of the created run. */
  runId: string;
  /** Final run status, or `timeout`. */
  status: SkillStatus;
  /** `summary.pass_rate` (0..1), null when the run has no summary (e.g. timed out or failed early). */
  passRate: number | null;
  /** The run's summary object, null when it has none. */
  summary: EvalRunSummary | null;
  /** The report of a terminal run (GET /api/reports/{id}); null on timeout. */
  report: EvalReport | null;
  /** The last run record read. */
  run: EvalRun;
  /** The minimum pass rate applied, when one was given. */
  minPassRate?: number;
  /** The structured summary text ({@link formatSkillSummary}). */
  text: string;
  /** True when the run completed and its pass rate is >= `minPassRate` (when given). */
  ok: boolean;
  /** Why `ok` is false (run failed or cancelled, pass rate under the minimum, timeout); absent when ok. */
  reason?: string;
}

/** Verdict details that {@link formatSkillSummary} can append; all optional. */
export interface SummaryVerdict {
  ok?: boolean;
  reason?: string;
  minPassRate?: number;
  /** Overrides the shown status (e.g. `timeout`). */
  status?: SkillStatus;
}

const TERMINAL: readonly EvalRunStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Runs one evaluation the way an assistant skill does (evaluation-platform.md, Events: "The skill client for
 * assistants"): creates a run (POST /api/runs, `triggered_by` default `ai_assistant`), polls GET /api/runs/{id}
 * every `pollIntervalMs` until it is `completed` or `failed` (or `cancelled`) or `timeoutMs` has passed since the
 * call began, then reads GET /api/reports/{id} and builds the structured summary text.
 *
 * While polling, transient failures (no response, HTTP 502/503/504) are retried at the next interval until the
 * timeout; the run keeps executing on the server (runs resume after a server restart).
 *
 * @returns the result; a timeout is a result with `status: 'timeout'` and `ok: false`, never an exception. On
 *   timeout the run is left running on the server.
 * @throws RangeError for invalid options (interval <= 0, negative timeout, minPassRate outside 0..1)
 * @throws EvalApiError for HTTP errors (message from the problem's title/detail, never containing the credentials)
 *   and, outside polling, network failures
 * @throws the abort reason (or an `AbortError`) when `signal` aborts
 */
export async function evaluateWithSkill(options: SkillOptions): Promise<SkillResult> {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  validateOptions(options, pollIntervalMs, timeoutMs);
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const { signal, minPassRate } = options;
  const client = new EvalApiClient({
    apiUrl: options.apiUrl,
    apiKey: options.apiKey,
    sessionToken: options.sessionToken,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  const deadline = now() + timeoutMs;
  if (signal?.aborted) throw abortError(signal);

  let run = await client.createRun(
    {
      scenario_id: options.scenarioId,
      target_id: options.targetId,
      triggered_by: options.triggeredBy ?? 'ai_assistant',
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.repeatCount !== undefined ? { repeat_count: options.repeatCount } : {}),
    },
    signal,
  );
  options.onStatus?.(run);
  let lastTransient: string | undefined;

  while (!TERMINAL.includes(run.status)) {
    const remaining = deadline - now();
    if (remaining <= 0) {
      let reason = `run ${run.id} still ${run.status} after ${timeoutMs} ms (timeout)`;
      if (lastTransient) reason += `; last poll error: ${lastTransient}`;
      const text = formatSkillSummary(null, run, { ok: false, reason, minPassRate, status: 'timeout' });
      return { runId: run.id, status: 'timeout', passRate: run.summary?.pass_rate ?? null, summary: run.summary, report: null, run, minPassRate, text, ok: false, reason };
    }
    await sleep(Math.min(pollIntervalMs, remaining), signal);
    if (signal?.aborted) throw abortError(signal);
    try {
      const next = await client.getRun(run.id, signal);
      lastTransient = undefined;
      if (next.status !== run.status) options.onStatus?.(next);
      run = next;
    } catch (err) {
      if (err instanceof EvalApiError && err.transient) {
        lastTransient = err.message;
        continue;
      }
      throw err;
    }
  }

  const report = await client.getReport(run.id, signal);
  const summary = run.summary ?? report.summary ?? null;
  const passRate = summary?.pass_rate ?? null;
  let reason: string | undefined;
  if (run.status === 'failed') reason = `run failed${run.error ? `: ${oneLine(run.error, 300)}` : ''}`;
  else if (run.status === 'cancelled') reason = 'run was cancelled';
  else if (minPassRate !== undefined && (passRate ?? 0) < minPassRate) {
    reason = `pass rate ${percent(passRate ?? 0)} is under the minimum ${percent(minPassRate)}`;
  }
  const ok = reason === undefined;
  const text = formatSkillSummary(report, run, { ok, reason, minPassRate });
  return { runId: run.id, status: run.status, passRate, summary, report, run, minPassRate, text, ok, ...(reason ? { reason } : {}) };
}

/**
 * Builds the structured summary text of a run (evaluation-platform.md, Events: "returns a structured summary
 * text"): one `Key: value` line each for scenario name with `v<n>`, target, run id, triggered by, status, pass rate
 * (%, with the minimum when given), cases passed/failed/errored, rules passed/total, latency p50/p95 (ms) and
 * duration (ms); then a `Result:` line when a verdict is given; then the failed and errored cases with each failed
 * rule's type and reason (at most {@link MAX_LISTED_FAILURES} cases, then `… and N more`).
 *
 * Texts from the server (names, reasons, errors) are collapsed to one line and shortened; nothing secret is ever
 * part of a run or report.
 * @param report the run's report, or null when there is none (timeout): then the failures section is omitted
 * @param run the run record (names, version and summary are taken from it when the report lacks them)
 * @param verdict optional outcome to show (see {@link SkillResult})
 */
export function formatSkillSummary(report: EvalReport | null, run: EvalRun | null, verdict: SummaryVerdict = {}): string {
  const scenario = report?.header.scenario_name ?? run?.scenario_name ?? '?';
  const version = report?.header.version ?? run?.version_label ?? (run ? `v${run.scenario_version}` : '?');
  const target = report?.header.target_name ?? run?.target_name ?? '?';
  const runId = report?.run_id ?? run?.id ?? '?';
  const triggeredBy = report?.header.triggered_by ?? run?.triggered_by;
  const status = verdict.status ?? run?.status ?? report?.status ?? '?';
  const summary = run?.summary ?? report?.summary ?? null;
  const ms = (value: number | null | undefined) => (typeof value === 'number' ? `${value} ms` : 'n/a');

  const lines = [
    `Scenario:     ${oneLine(scenario, 200)} ${version}`,
    `Target:       ${oneLine(target, 200)}`,
    `Run:          ${runId}${triggeredBy ? ` (triggered by ${triggeredBy})` : ''}`,
    `Status:       ${status}`,
  ];
  if (summary) {
    const minimum = verdict.minPassRate !== undefined ? ` (minimum ${percent(verdict.minPassRate)})` : '';
    lines.push(
      `Pass rate:    ${percent(summary.pass_rate)}${minimum}`,
      `Cases:        ${summary.passed_cases}/${summary.total_cases} passed, ${summary.failed_cases} failed, ${summary.errored_cases} errored`,
      `Rules:        ${summary.passed_rules}/${summary.total_rules} passed`,
      `Latency:      p50 ${ms(summary.latency_p50_ms)}, p95 ${ms(summary.latency_p95_ms)}`,
      `Duration:     ${ms(summary.duration_ms)}`,
    );
  } else {
    lines.push('Pass rate:    n/a (no summary yet)');
  }
  if (run?.error) lines.push(`Error:        ${oneLine(run.error, 300)}`);
  if (verdict.ok !== undefined) lines.push(`Result:       ${verdict.ok ? 'PASS' : `FAIL - ${oneLine(verdict.reason ?? 'not ok', 400)}`}`);

  if (report) {
    const failures = report.cases.filter((item) => item.status !== 'passed');
    lines.push('');
    if (failures.length === 0) {
      lines.push(report.cases.length > 0 ? 'Failed cases: none' : 'Failed cases: none (no cases ran)');
    } else {
      lines.push(`Failed cases (${failures.length}):`);
      for (const item of failures.slice(0, MAX_LISTED_FAILURES)) {
        const label = `${oneLine(item.case_id, 120)}${item.repeat_index > 0 ? ` (repeat ${item.repeat_index + 1})` : ''}`;
        if (item.status === 'errored') {
          lines.push(`- ${label}: errored: ${oneLine(item.error ?? 'no reply', 300)}`);
          continue;
        }
        lines.push(`- ${label}: failed`);
        for (const rule of item.rules.filter((candidate) => !candidate.pass)) {
          lines.push(`  - rule ${rule.index + 1} ${rule.type}: ${oneLine(rule.reason || 'failed', 300)}`);
        }
      }
      if (failures.length > MAX_LISTED_FAILURES) lines.push(`… and ${failures.length - MAX_LISTED_FAILURES} more`);
    }
  }
  return lines.join('\n');
}

/** A 0..1 rate as a percentage with one decimal, e.g. `83.3%`. */
function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** Collapses whitespace runs (newlines included) to one space and shortens to `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function validateOptions(options: SkillOptions, pollIntervalMs: number, timeoutMs: number): void {
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs <= 0) throw new RangeError(`pollIntervalMs must be a positive number of ms, got ${pollIntervalMs}`);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new RangeError(`timeoutMs must be a number of ms >= 0, got ${timeoutMs}`);
  const { minPassRate } = options;
  if (minPassRate !== undefined && !(Number.isFinite(minPassRate) && minPassRate >= 0 && minPassRate <= 1)) {
    throw new RangeError(`minPassRate must be between 0 and 1, got ${minPassRate}`);
  }
  if (!options.scenarioId) throw new RangeError('scenarioId is required');
  if (!options.targetId) throw new RangeError('targetId is required');
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (err) {
    if (signal?.aborted) throw abortError(signal);
    throw err;
  }
}
