import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { nearestRank } from '../rules/run-summary';
import type { CaseStatus } from '../runs/case-result.entity';
import { LIVE_RUN_STATUSES, RunStatus } from '../runs/run.entity';
import { CampaignEntity, CampaignPlanEntry } from './campaign.entity';

/** Per-scenario aggregation over a set of runs of one campaign (the campaign report and the patrol use the same). */
export interface ScenarioResults {
  scenario_id: string;
  scenario_name: string;
  scenario_version: number;
  /** Runs counted / of them `completed`. */
  runs: number;
  completed_runs: number;
  /** Case results expected (cases × repeats of each counted run), of them passed / failed / errored. */
  total_cases: number;
  passed_cases: number;
  failed_cases: number;
  errored_cases: number;
  /** passed_cases / total_cases, 0..1 rounded to 4 decimals (0 when no cases); a case missing from a run (not executed) counts as not passed. */
  pass_rate: number;
  /** Nearest-rank percentiles of the stored case latencies (ms); null when none. */
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  /** Distinct case ids that failed or errored in any counted run, sorted. */
  failed_case_ids: string[];
}

/** The aggregation over a set of runs of one campaign: totals, one entry per plan scenario, and the runs counted. */
export interface CampaignResults {
  runs: number;
  completed_runs: number;
  total_cases: number;
  passed_cases: number;
  failed_cases: number;
  errored_cases: number;
  pass_rate: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  /** One per plan scenario (even with no runs yet), in plan order. */
  scenarios: ScenarioResults[];
  /** The runs aggregated. */
  run_ids: string[];
}

/** One stored case result of a run, as the aggregation needs it. */
export interface CampaignCaseFact {
  caseId: string;
  status: CaseStatus;
  /** Latency of the judged reply, ms; null when the target never replied. */
  latencyMs: number | null;
}

/** The facts of one run the aggregation needs (read from eval_run / eval_case_result). */
export interface CampaignRunFacts {
  runId: string;
  /** The run's scenario (runs keep it after the scenario is deleted). */
  scenarioId: string | null;
  status: RunStatus;
  /** Case results the run should produce: cases in its snapshot × repeat count. */
  expectedCases: number;
  /** The case results stored (one per case and repetition). */
  cases: CampaignCaseFact[];
}

/** Running totals of a group of runs. */
interface Tally {
  runs: number;
  completedRuns: number;
  totalCases: number;
  passed: number;
  failed: number;
  errored: number;
  latencies: number[];
  failedCaseIds: Set<string>;
}

const newTally = (): Tally => ({ runs: 0, completedRuns: 0, totalCases: 0, passed: 0, failed: 0, errored: 0, latencies: [], failedCaseIds: new Set() });

/** Adds one run to a tally. Expected cases below the stored ones (never in practice) count the stored ones. */
function addRun(tally: Tally, run: CampaignRunFacts): void {
  tally.runs++;
  if (run.status === 'completed') tally.completedRuns++;
  tally.totalCases += Math.max(run.expectedCases, run.cases.length);
  for (const result of run.cases) {
    if (result.status === 'passed') tally.passed++;
    else {
      if (result.status === 'failed') tally.failed++;
      else tally.errored++;
      tally.failedCaseIds.add(result.caseId);
    }
    if (typeof result.latencyMs === 'number' && Number.isFinite(result.latencyMs)) tally.latencies.push(result.latencyMs);
  }
}

/** passed / total, 0..1 rounded to 4 decimals; 0 when total is 0. */
const passRate = (passed: number, total: number) => (total === 0 ? 0 : Math.round((passed / total) * 10_000) / 10_000);

/** The figures shared by a scenario row and the totals. */
function figures(tally: Tally) {
  return {
    runs: tally.runs,
    completed_runs: tally.completedRuns,
    total_cases: tally.totalCases,
    passed_cases: tally.passed,
    failed_cases: tally.failed,
    errored_cases: tally.errored,
    pass_rate: passRate(tally.passed, tally.totalCases),
    latency_p50_ms: nearestRank(tally.latencies, 50),
    latency_p95_ms: nearestRank(tally.latencies, 95),
  };
}

/**
 * Aggregates runs of one campaign (issue 4, Campaigns: "campaign report … same aggregation the patrol uses (per
 * scenario: runs, pass rate, failed cases)"). Pure.
 *
 * - Only terminal runs count (`completed`, `failed`, `cancelled`); queued or running runs in `runs` are skipped.
 * - `total_cases` is what the runs should have produced (cases × repeats), so a case that was never executed
 *   (a cancelled or failed run) is a case not passed: it lowers `pass_rate` without being `failed` or `errored`.
 * - Latency percentiles are nearest-rank over the stored case latencies (ms), null when there are none.
 * - `scenarios`: one entry per distinct plan scenario, in plan order (a scenario planned twice is one entry
 *   with both runs), present even with no runs. A run whose scenario is not in the plan counts in the totals only.
 *
 * @param plan the campaign's plan (scenario names and versions come from it)
 * @param runs the runs' facts; order does not matter (`run_ids` keeps the given order)
 */
export function aggregateCampaignResults(plan: readonly CampaignPlanEntry[], runs: readonly CampaignRunFacts[]): CampaignResults {
  const byScenario = new Map<string, { entry: CampaignPlanEntry; tally: Tally }>();
  for (const entry of plan) if (!byScenario.has(entry.scenarioId)) byScenario.set(entry.scenarioId, { entry, tally: newTally() });
  const total = newTally();
  const runIds: string[] = [];
  for (const run of runs) {
    if (LIVE_RUN_STATUSES.includes(run.status)) continue;
    runIds.push(run.runId);
    addRun(total, run);
    const group = run.scenarioId === null ? undefined : byScenario.get(run.scenarioId);
    if (group) addRun(group.tally, run);
  }
  return {
    ...figures(total),
    scenarios: [...byScenario.values()].map(({ entry, tally }) => ({
      scenario_id: entry.scenarioId,
      scenario_name: entry.scenarioName,
      scenario_version: entry.scenarioVersion,
      ...figures(tally),
      failed_case_ids: [...tally.failedCaseIds].sort(),
    })),
    run_ids: runIds,
  };
}

/** Terminal run statuses as SQL sees them. */
const TERMINAL_RUN_STATUSES: RunStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Reads a campaign's run facts with SQL and aggregates them with {@link aggregateCampaignResults}. Used by the
 * campaign report (GET /api/campaigns/{id}/report), the campaign analysis and the patrol.
 */
@Injectable()
export class CampaignResultsQuery {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Aggregates the campaign's terminal runs (all, or only `runIds` when given: ids of other campaigns' runs or of
   * live runs are ignored); uses `manager` when given (inside a transaction).
   * @throws NotFoundException (404) unknown campaign
   */
  async aggregate(campaignId: string, options: { runIds?: string[]; manager?: EntityManager } = {}): Promise<CampaignResults> {
    const manager = options.manager ?? this.dataSource.manager;
    const campaign = await manager.findOne(CampaignEntity, { where: { id: campaignId }, select: { id: true, plan: true } });
    if (!campaign) throw new NotFoundException(`No campaign ${campaignId}.`);
    if (options.runIds?.length === 0) return aggregateCampaignResults(campaign.plan, []);
    const params: unknown[] = [campaignId, TERMINAL_RUN_STATUSES];
    if (options.runIds) params.push(options.runIds);
    const runRows: { id: string; scenario_id: string | null; status: RunStatus; expected: number }[] = await manager.query(
      `SELECT id, scenario_id, status, case_count * repeat_count AS expected
         FROM eval_run
        WHERE campaign_id = $1 AND status = ANY($2::varchar[])${options.runIds ? ' AND id = ANY($3::uuid[])' : ''}
        ORDER BY created_at, id`,
      params,
    );
    const caseRows: { run_id: string; case_id: string; status: CaseStatus; latency_ms: number | null }[] = runRows.length
      ? await manager.query(`SELECT run_id, case_id, status, latency_ms FROM eval_case_result WHERE run_id = ANY($1::uuid[])`, [runRows.map((row) => row.id)])
      : [];
    const casesByRun = new Map<string, CampaignCaseFact[]>();
    for (const row of caseRows) {
      const list = casesByRun.get(row.run_id) ?? [];
      list.push({ caseId: row.case_id, status: row.status, latencyMs: row.latency_ms === null ? null : Number(row.latency_ms) });
      casesByRun.set(row.run_id, list);
    }
    return aggregateCampaignResults(
      campaign.plan,
      runRows.map((row) => ({ runId: row.id, scenarioId: row.scenario_id, status: row.status, expectedCases: Number(row.expected), cases: casesByRun.get(row.id) ?? [] })),
    );
  }
}
