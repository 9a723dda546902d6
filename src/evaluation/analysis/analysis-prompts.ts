import type { ChatMessage } from '../../llm/chat-model';
import { ANALYSIS_REPORT_SCHEMA, SCENARIO_DIAGNOSIS_SCHEMA, type ScenarioDiagnosisAnswer } from './analysis-report.schema';
import type { MechanicalComparison, ProblemSummary } from './cycle-comparison';
import type { ScenarioResults } from '../campaigns/campaign-results';

/**
 * The prompts of the analysis job (issue 4: two phases, then the cycle comparison narration). Pure builders.
 * Each system prompt starts with a `Task: …` line naming the step, so logs (and scripted test models) can tell the
 * three kinds of call apart.
 */

/** First line of each kind of prompt. */
export const DIAGNOSIS_TASK = 'Task: scenario diagnosis';
export const SYNTHESIS_TASK = 'Task: campaign synthesis';
export const NARRATION_TASK = 'Task: cycle comparison narration';

/** The campaign as the prompts describe it. */
export interface PromptCampaign {
  id: string;
  name: string;
  line: string;
  target_name: string;
}

/** One failed or errored case result given to the diagnosis (texts already truncated). */
export interface FailureSample {
  run_id: string;
  case_id: string;
  repeat_index: number;
  status: 'failed' | 'errored';
  /** The virtual user's message(s), turns separated by a blank line. */
  input: string | null;
  /** The target's last reply. */
  output: string | null;
  /** Reasons of the rules that failed. */
  failed_rules: { type: string; reason: string }[];
  /** Why the case errored. */
  error: string | null;
}

/** A scenario's results as the prompts show them (the failure sample is given separately). */
export type PromptScenarioResults = Omit<ScenarioResults, 'failed_case_ids'>;

/** A stored phase-1 diagnosis. */
export interface StoredDiagnosis extends ScenarioDiagnosisAnswer {
  scenario_id: string;
  scenario_name: string;
  /** Failures given to the model / failed or errored case results there were. */
  sampled_failures: number;
  total_failures: number;
  /** Model calls it took. */
  attempts: number;
}

/**
 * Cuts `value` to at most `maxChars` characters, marking the cut (`… [truncated, N more characters]`). Null stays null.
 */
export function truncateText(value: string | null, maxChars: number): string | null {
  if (value === null || value.length <= maxChars) return value;
  return `${value.slice(0, maxChars)}… [truncated, ${value.length - maxChars} more characters]`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

const scenarioFacts = (scenario: PromptScenarioResults) => ({
  scenario_id: scenario.scenario_id,
  scenario_name: scenario.scenario_name,
  scenario_version: scenario.scenario_version,
  runs: scenario.runs,
  completed_runs: scenario.completed_runs,
  total_cases: scenario.total_cases,
  passed_cases: scenario.passed_cases,
  failed_cases: scenario.failed_cases,
  errored_cases: scenario.errored_cases,
  pass_rate: scenario.pass_rate,
  latency_p50_ms: scenario.latency_p50_ms,
  latency_p95_ms: scenario.latency_p95_ms,
});

/** Phase 1: the messages asking for one scenario's diagnosis, given its results and a sample of its failures. */
export function diagnosisMessages(input: { campaign: PromptCampaign; scenario: PromptScenarioResults; failures: FailureSample[]; totalFailures: number }): ChatMessage[] {
  const system = [
    DIAGNOSIS_TASK,
    'You analyse the results of an evaluation of an AI agent. You get the results of one test scenario and a sample of its failed or errored cases (input, the agent\'s output, the reasons of the rules that failed, errors).',
    'Diagnose why the agent fails: group failures into findings (patterns with a likely cause), each naming the case ids that show it. With no failures, say so in the summary and return no findings.',
    `Answer with one JSON object only, following this JSON Schema:\n${JSON.stringify(SCENARIO_DIAGNOSIS_SCHEMA)}`,
  ].join('\n\n');
  const user = json({
    campaign: input.campaign,
    scenario: scenarioFacts(input.scenario),
    failure_sample: { shown: input.failures.length, total_failed_or_errored_results: input.totalFailures, cases: input.failures },
  });
  return [{ role: 'system', content: system }, { role: 'user', content: user }];
}

/**
 * Phase 2: the messages asking for the structured report from the diagnoses. `references` lists what may be cited
 * (anything else is removed before storage); `earlierProblems` are the problems of the previous analysis of the
 * same plan, whose ids the model is asked to reuse for the same problems.
 */
export function synthesisMessages(input: {
  campaign: PromptCampaign;
  overall: Omit<PromptScenarioResults, 'scenario_id' | 'scenario_name' | 'scenario_version'>;
  scenarios: (PromptScenarioResults & { run_ids: string[] })[];
  diagnoses: StoredDiagnosis[];
  earlierProblems: ProblemSummary[];
}): ChatMessage[] {
  const system = [
    SYNTHESIS_TASK,
    'You write the analysis report of an evaluation campaign of an AI agent from the per-scenario diagnoses and results.',
    'List the distinct problems (most severe first) with evidence: each evidence item has a note and, where it applies, the run_id, scenario_id and case_id it comes from — use only ids given in the input. Give every problem at least one evidence item.',
    'Then recommendations, each naming the ids of the problems it addresses.',
    'Problem and recommendation ids are short slugs unique in the report. When a problem is the same as one of the earlier problems given, reuse its id.',
    `Answer with one JSON object only, following this JSON Schema:\n${JSON.stringify(ANALYSIS_REPORT_SCHEMA)}`,
  ].join('\n\n');
  const user = json({
    campaign: input.campaign,
    overall: input.overall,
    scenarios: input.scenarios.map((scenario) => ({ ...scenarioFacts(scenario), run_ids: scenario.run_ids })),
    diagnoses: input.diagnoses.map((item) => ({ scenario_id: item.scenario_id, scenario_name: item.scenario_name, summary: item.summary, findings: item.findings })),
    earlier_problems: input.earlierProblems,
  });
  return [{ role: 'system', content: system }, { role: 'user', content: user }];
}

/** The cycle comparison narration: a short plain-text account of the mechanical comparison. */
export function narrationMessages(input: { campaign: PromptCampaign; baseline: PromptCampaign; comparison: MechanicalComparison }): ChatMessage[] {
  const system = [
    NARRATION_TASK,
    'You compare two service cycles of an AI agent evaluated with the same plan: the current campaign against the baseline (the earlier one).',
    'Write 3 to 8 sentences of plain text (no JSON, no headings) for the people who run the agent: what changed in the metrics, which problems were resolved, persist or are new, which earlier recommendations were followed by an improvement, and the trend. Use only the facts given.',
  ].join('\n\n');
  const user = json({ current: input.campaign, baseline: input.baseline, comparison: input.comparison });
  return [{ role: 'system', content: system }, { role: 'user', content: user }];
}
