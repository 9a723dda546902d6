import type { AnalysisReport, ProblemSeverity, RecommendationPriority } from './analysis-report.schema';

/**
 * The mechanical parts of a cycle comparison (evaluation-platform.md, Resources: Cycle comparison; issue 4, Cycle
 * comparison): metric deltas, problem evolution, recommendation tracking and the trend indicator. All pure.
 */

/** The metrics of a campaign (or of one scenario) a comparison reads; `CampaignResults` and `ScenarioResults` fit. */
export interface ComparedMetrics {
  pass_rate: number;
  passed_cases: number;
  total_cases: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

/** A campaign's results as the comparison reads them (the campaign results aggregation fits). */
export interface ComparedResults extends ComparedMetrics {
  scenarios: (ComparedMetrics & { scenario_id: string; scenario_name: string })[];
}

/** One metric in both campaigns; `delta` = current − baseline, null when either side is null. */
export interface MetricDelta {
  current: number | null;
  baseline: number | null;
  delta: number | null;
}

/** The compared metrics. Pass rates are 0..1; latencies ms. */
export interface MetricDeltaSet {
  pass_rate: MetricDelta;
  passed_cases: MetricDelta;
  total_cases: MetricDelta;
  latency_p50_ms: MetricDelta;
  latency_p95_ms: MetricDelta;
}

/** Deltas of one plan scenario. */
export interface ScenarioMetricDeltas extends MetricDeltaSet {
  scenario_id: string;
  scenario_name: string;
  /** The scenario has no results in the current campaign: it counts as 0 passed (a missing case is not a passing case). */
  missing_in_current: boolean;
  /** The scenario has no results in the baseline: its baseline side is null. */
  missing_in_baseline: boolean;
}

/** Overall and per-scenario deltas. */
export interface MetricDeltas {
  overall: MetricDeltaSet;
  scenarios: ScenarioMetricDeltas[];
}

/** A problem as the evolution lists it. */
export interface ProblemSummary {
  id: string;
  title: string;
  severity: ProblemSeverity;
}

/** A baseline problem that is still there in the current analysis. */
export interface PersistingProblem extends ProblemSummary {
  baseline_id: string;
  baseline_title: string;
  baseline_severity: ProblemSeverity;
  /** How it was matched: same id, else same normalised title. */
  matched_by: 'id' | 'title';
  /** Severity now against the baseline's. */
  severity_change: 'worse' | 'same' | 'better';
}

/** What became of the baseline's problems, and which problems are new. */
export interface ProblemEvolution {
  /** Baseline problems with no match in the current report. */
  resolved: ProblemSummary[];
  /** Current problems matched to a baseline problem. */
  persisting: PersistingProblem[];
  /** Current problems with no match in the baseline. */
  new: ProblemSummary[];
}

/** Whether one baseline recommendation was followed by an improvement. */
export interface RecommendationOutcome {
  recommendation_id: string;
  title: string;
  priority: RecommendationPriority;
  /** Baseline problems it addressed. */
  problem_ids: string[];
  resolved_problem_ids: string[];
  persisting_problem_ids: string[];
  /** Scenarios of its problems whose pass rate rose. */
  improved_scenario_ids: string[];
  followed_by_improvement: boolean;
  /** Why, in one sentence. */
  why: string;
}

export const TRENDS = ['improving', 'stable', 'regressing'] as const;
export type Trend = (typeof TRENDS)[number];

/** Overall pass-rate change (absolute, 0..1 scale) from which the trend moves off `stable`. */
export const TREND_PASS_RATE_THRESHOLD = 0.02;

/** The trend rule, as documented in the API. */
export const TREND_RULE =
  `regressing when the overall pass rate fell by ${TREND_PASS_RATE_THRESHOLD} or more, or a new critical problem appeared; ` +
  `improving when the overall pass rate rose by ${TREND_PASS_RATE_THRESHOLD} or more and no new critical or high problem appeared; ` +
  'stable otherwise (regressing wins when both hold).';

/** Rounds away float noise (pass rates have 4 decimals; latencies are whole ms). */
const round = (value: number) => Math.round(value * 10_000) / 10_000;

function delta(current: number | null, baseline: number | null): MetricDelta {
  return { current, baseline, delta: current === null || baseline === null ? null : round(current - baseline) };
}

function deltaSet(current: ComparedMetrics | null, baseline: ComparedMetrics | null): MetricDeltaSet {
  return {
    pass_rate: delta(current?.pass_rate ?? null, baseline?.pass_rate ?? null),
    passed_cases: delta(current?.passed_cases ?? null, baseline?.passed_cases ?? null),
    total_cases: delta(current?.total_cases ?? null, baseline?.total_cases ?? null),
    latency_p50_ms: delta(current?.latency_p50_ms ?? null, baseline?.latency_p50_ms ?? null),
    latency_p95_ms: delta(current?.latency_p95_ms ?? null, baseline?.latency_p95_ms ?? null),
  };
}

/** What a plan scenario with no results in the current campaign counts as: every baseline case not passed. */
function missing(baseline: ComparedMetrics): ComparedMetrics {
  return { pass_rate: 0, passed_cases: 0, total_cases: baseline.total_cases, latency_p50_ms: null, latency_p95_ms: null };
}

/**
 * Metric deltas, overall and per scenario (pass rate, passed cases, total cases, latency p50/p95); each as
 * `{current, baseline, delta}`. Scenarios are matched by id (the k-th occurrence with the k-th, for a plan listing
 * a scenario twice) and listed in the current plan's order, then baseline-only ones. A scenario missing from the
 * current results counts as 0 passed of the baseline's cases (a missing case is not a passing case); one missing
 * from the baseline has a null baseline side. Cases missing inside a scenario are already counted as not passed by
 * the campaign results aggregation.
 */
export function metricDeltas(current: ComparedResults, baseline: ComparedResults): MetricDeltas {
  const key = (list: ComparedResults['scenarios']) => {
    const seen = new Map<string, number>();
    return list.map((scenario) => {
      const id = scenario.scenario_id.toLowerCase();
      const occurrence = seen.get(id) ?? 0;
      seen.set(id, occurrence + 1);
      return `${id}#${occurrence}`;
    });
  };
  const currentKeys = key(current.scenarios);
  const baselineKeys = key(baseline.scenarios);
  const baselineByKey = new Map(baselineKeys.map((k, index) => [k, baseline.scenarios[index]]));
  const scenarios: ScenarioMetricDeltas[] = current.scenarios.map((scenario, index) => {
    const base = baselineByKey.get(currentKeys[index]) ?? null;
    return { scenario_id: scenario.scenario_id, scenario_name: scenario.scenario_name, ...deltaSet(scenario, base), missing_in_current: false, missing_in_baseline: base === null };
  });
  baselineKeys.forEach((k, index) => {
    if (currentKeys.includes(k)) return;
    const base = baseline.scenarios[index];
    scenarios.push({ scenario_id: base.scenario_id, scenario_name: base.scenario_name, ...deltaSet(missing(base), base), missing_in_current: true, missing_in_baseline: false });
  });
  return { overall: deltaSet(current, baseline), scenarios };
}

/**
 * A problem title reduced for matching: Unicode-normalised (NFKC), lower case, every run of characters that are
 * not letters or digits turned into one space, trimmed. "Refund policy — wrong!" and "refund policy wrong" match.
 */
export function normaliseTitle(title: string): string {
  return title.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const SEVERITY_RANK: Record<ProblemSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/**
 * Problem evolution between the baseline's report and the current one: a current problem matches a baseline
 * problem with the same id, else (among those still unmatched) one with the same normalised title; each matches at
 * most once. Matched = persisting (with the severity change), unmatched baseline = resolved, unmatched current = new.
 */
export function problemEvolution(baseline: readonly ProblemSummary[], current: readonly ProblemSummary[]): ProblemEvolution {
  const matchOf = new Map<number, { baseline: number; by: 'id' | 'title' }>();
  const taken = new Set<number>();
  current.forEach((problem, index) => {
    const found = baseline.findIndex((candidate, at) => !taken.has(at) && candidate.id === problem.id);
    if (found >= 0) {
      taken.add(found);
      matchOf.set(index, { baseline: found, by: 'id' });
    }
  });
  current.forEach((problem, index) => {
    if (matchOf.has(index)) return;
    const title = normaliseTitle(problem.title);
    const found = baseline.findIndex((candidate, at) => !taken.has(at) && title !== '' && normaliseTitle(candidate.title) === title);
    if (found >= 0) {
      taken.add(found);
      matchOf.set(index, { baseline: found, by: 'title' });
    }
  });
  const summary = (problem: ProblemSummary): ProblemSummary => ({ id: problem.id, title: problem.title, severity: problem.severity });
  const persisting: PersistingProblem[] = [];
  const added: ProblemSummary[] = [];
  current.forEach((problem, index) => {
    const match = matchOf.get(index);
    if (!match) {
      added.push(summary(problem));
      return;
    }
    const before = baseline[match.baseline];
    const change = SEVERITY_RANK[problem.severity] - SEVERITY_RANK[before.severity];
    persisting.push({
      ...summary(problem),
      baseline_id: before.id,
      baseline_title: before.title,
      baseline_severity: before.severity,
      matched_by: match.by,
      severity_change: change < 0 ? 'worse' : change > 0 ? 'better' : 'same',
    });
  });
  return { resolved: baseline.filter((_, at) => !taken.has(at)).map(summary), persisting, new: added };
}

/**
 * Recommendation tracking: for each baseline recommendation, whether it was followed by an improvement, i.e. at
 * least one problem it addressed was resolved, or the pass rate of at least one scenario of those problems (their
 * `scenario_ids` and evidence scenarios) rose. A recommendation addressing no problem is never counted as followed
 * by an improvement. This is a correlation over two cycles, not proof that the recommendation was applied.
 */
export function trackRecommendations(baseline: AnalysisReport, evolution: ProblemEvolution, deltas: MetricDeltas): RecommendationOutcome[] {
  const resolved = new Set(evolution.resolved.map((problem) => problem.id));
  const problemsById = new Map(baseline.problems.map((problem) => [problem.id, problem]));
  const scenarioDelta = new Map<string, { name: string; delta: number | null }>();
  for (const scenario of deltas.scenarios) {
    const id = scenario.scenario_id.toLowerCase();
    const previous = scenarioDelta.get(id);
    // A scenario listed twice: the smaller change counts (no improvement is claimed from one entry of two).
    const value = scenario.pass_rate.delta;
    if (!previous || (value !== null && (previous.delta === null || value < previous.delta))) scenarioDelta.set(id, { name: scenario.scenario_name, delta: value });
  }
  return baseline.recommendations.map((recommendation) => {
    const addressed = recommendation.problem_ids.filter((id) => problemsById.has(id));
    const resolvedIds = addressed.filter((id) => resolved.has(id));
    const persistingIds = addressed.filter((id) => !resolved.has(id));
    const scenarioIds = new Set<string>();
    for (const id of addressed) {
      const problem = problemsById.get(id)!;
      for (const scenarioId of problem.scenario_ids ?? []) scenarioIds.add(scenarioId.toLowerCase());
      for (const item of problem.evidence) if (item.scenario_id) scenarioIds.add(item.scenario_id.toLowerCase());
    }
    const improved = [...scenarioIds].filter((id) => (scenarioDelta.get(id)?.delta ?? 0) > 0);
    const followed = resolvedIds.length > 0 || improved.length > 0;
    const describeScenarios = (ids: string[]) =>
      ids.map((id) => {
        const entry = scenarioDelta.get(id);
        const change = entry?.delta ?? null;
        return `"${entry?.name ?? id}" (${change === null ? 'no data' : `${change > 0 ? '+' : ''}${change}`})`;
      }).join(', ');
    let why: string;
    if (addressed.length === 0) {
      why = 'It named no problem of the baseline report, so no improvement can be attributed to it.';
    } else if (followed) {
      const parts: string[] = [];
      if (resolvedIds.length) parts.push(`resolved problem${resolvedIds.length > 1 ? 's' : ''} ${resolvedIds.join(', ')}`);
      if (improved.length) parts.push(`pass rate rose in ${describeScenarios(improved)}`);
      why = `Followed by an improvement: ${parts.join('; ')}.`;
    } else {
      const scenarios = scenarioIds.size ? `; the pass rate of its scenarios did not rise: ${describeScenarios([...scenarioIds])}` : '; its problems name no scenario';
      why = `Not followed by an improvement: problem${persistingIds.length > 1 ? 's' : ''} ${persistingIds.join(', ')} persist${persistingIds.length > 1 ? '' : 's'}${scenarios}.`;
    }
    return {
      recommendation_id: recommendation.id,
      title: recommendation.title,
      priority: recommendation.priority,
      problem_ids: addressed,
      resolved_problem_ids: resolvedIds,
      persisting_problem_ids: persistingIds,
      improved_scenario_ids: improved,
      followed_by_improvement: followed,
      why,
    };
  });
}

/**
 * The trend indicator ({@link TREND_RULE}): `regressing` when the overall pass-rate delta is ≤ −0.02 or a new
 * problem is critical; else `improving` when the delta is ≥ +0.02 and no new problem is critical or high; else
 * `stable`. A null delta (no cases on a side) counts as 0.
 * @returns the trend and the reason it was chosen
 */
export function trendIndicator(overallPassRateDelta: number | null, newProblems: readonly ProblemSummary[]): { trend: Trend; reason: string } {
  const change = overallPassRateDelta ?? 0;
  const newCritical = newProblems.filter((problem) => problem.severity === 'critical');
  const newHigh = newProblems.filter((problem) => problem.severity === 'high');
  const signed = `${change > 0 ? '+' : ''}${round(change)}`;
  if (change <= -TREND_PASS_RATE_THRESHOLD || newCritical.length > 0) {
    const reasons = [];
    if (change <= -TREND_PASS_RATE_THRESHOLD) reasons.push(`the overall pass rate changed by ${signed} (≤ −${TREND_PASS_RATE_THRESHOLD})`);
    if (newCritical.length) reasons.push(`new critical problem${newCritical.length > 1 ? 's' : ''}: ${newCritical.map((p) => p.id).join(', ')}`);
    return { trend: 'regressing', reason: `Regressing: ${reasons.join('; ')}.` };
  }
  if (change >= TREND_PASS_RATE_THRESHOLD && newHigh.length === 0) {
    return { trend: 'improving', reason: `Improving: the overall pass rate changed by ${signed} (≥ +${TREND_PASS_RATE_THRESHOLD}) and no new critical or high problem appeared.` };
  }
  const why = change >= TREND_PASS_RATE_THRESHOLD
    ? `the overall pass rate rose by ${signed} but new high problem${newHigh.length > 1 ? 's' : ''} appeared: ${newHigh.map((p) => p.id).join(', ')}`
    : `the overall pass rate changed by ${signed} (less than ${TREND_PASS_RATE_THRESHOLD} either way) and no new critical problem appeared`;
  return { trend: 'stable', reason: `Stable: ${why}.` };
}

/** The mechanical comparison of two analysed campaigns. */
export interface MechanicalComparison {
  metrics: MetricDeltas;
  problem_evolution: ProblemEvolution;
  recommendation_tracking: RecommendationOutcome[];
  trend: Trend;
  trend_reason: string;
}

/** All mechanical parts at once, from both campaigns' results and reports. */
export function compareCycles(current: { results: ComparedResults; report: AnalysisReport }, baseline: { results: ComparedResults; report: AnalysisReport }): MechanicalComparison {
  const metrics = metricDeltas(current.results, baseline.results);
  const evolution = problemEvolution(baseline.report.problems, current.report.problems);
  const { trend, reason } = trendIndicator(metrics.overall.pass_rate.delta, evolution.new);
  return { metrics, problem_evolution: evolution, recommendation_tracking: trackRecommendations(baseline.report, evolution, metrics), trend, trend_reason: reason };
}
