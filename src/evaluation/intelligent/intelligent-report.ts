/**
 * Shapes of the plan and of the structured report of an intelligent evaluation (stored as jsonb in the API's
 * snake_case form), and the pure cross-field checks that class-validator cannot express: uniqueness, coverage of
 * the plan's dimensions, references between findings and recommendations, and evidence references. Every check
 * returns field errors in the shape of the validation pipe (`{ field: 'findings[0].evidence[1].message_id',
 * messages }`), so a 400 looks the same whichever layer found the problem.
 */

export const REPORT_VERDICTS = ['pass', 'fail', 'partial'] as const;
export type ReportVerdict = (typeof REPORT_VERDICTS)[number];
export const FINDING_SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];
export const RECOMMENDATION_PRIORITIES = ['low', 'medium', 'high'] as const;
export type RecommendationPriority = (typeof RECOMMENDATION_PRIORITIES)[number];

/** One step of the planner's plan. */
export interface IntelligentPlanStep {
  id: string;
  title: string;
  description: string | null;
}

/** The plan submitted with planning → pending_approval. */
export interface IntelligentPlan {
  summary: string;
  /** What the report will score, one entry per dimension (e.g. `accuracy`, `tone`). */
  dimensions: string[];
  steps: IntelligentPlanStep[];
  metadata: Record<string, unknown>;
}

/** A score of one dimension, 0..1. */
export interface ReportScore {
  dimension: string;
  score: number;
  rationale: string | null;
}

/** A reference to what was said: a session of this evaluation, optionally one of its messages. */
export interface ReportEvidence {
  session_id: string;
  message_id: string | null;
  note: string | null;
}

export interface ReportFinding {
  id: string;
  title: string;
  severity: FindingSeverity;
  description: string | null;
  evidence: ReportEvidence[];
}

export interface ReportRecommendation {
  title: string;
  description: string | null;
  priority: RecommendationPriority;
  /** Ids of the findings this recommendation addresses. */
  finding_ids: string[];
}

/** The structured report that completes an intelligent evaluation. */
export interface IntelligentReport {
  summary: string;
  verdict: ReportVerdict;
  scores: ReportScore[];
  findings: ReportFinding[];
  recommendations: ReportRecommendation[];
}

/** One invalid field (same shape as the validation pipe's `errors[]`). */
export interface FieldError {
  field: string;
  messages: string[];
}

/** Adds `message` to the entry of `field`, creating it if needed. */
function push(errors: FieldError[], field: string, message: string): void {
  const entry = errors.find((error) => error.field === field);
  if (entry) entry.messages.push(message);
  else errors.push({ field, messages: [message] });
}

/** Field errors for each value of `values` seen before (exact match), at `<prefix>[i]<suffix>`. */
function duplicates(values: string[], prefix: string, suffix: string, what: string, errors: FieldError[]): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) push(errors, `${prefix}[${index}]${suffix}`, `${what} "${value}" appears more than once`);
    seen.add(value);
  });
}

/**
 * Cross-field checks of a plan: dimension names unique, step ids unique.
 * @returns field errors, empty when the plan is consistent
 */
export function checkPlanConsistency(plan: Pick<IntelligentPlan, 'dimensions' | 'steps'>): FieldError[] {
  const errors: FieldError[] = [];
  duplicates(plan.dimensions, 'plan.dimensions', '', 'dimension', errors);
  duplicates(plan.steps.map((step) => step.id), 'plan.steps', '.id', 'step id', errors);
  return errors;
}

/**
 * Cross-field checks of a report against the approved plan: score dimensions unique, every dimension of the plan
 * scored (a report may add dimensions the plan did not foresee), finding ids unique, and every `finding_ids` entry
 * of a recommendation naming a finding of the same report.
 * @param plannedDimensions the `dimensions` of the approved plan (empty when there is none)
 * @returns field errors, empty when the report is consistent
 */
export function checkReportConsistency(
  report: Pick<IntelligentReport, 'scores' | 'findings' | 'recommendations'>,
  plannedDimensions: readonly string[],
): FieldError[] {
  const errors: FieldError[] = [];
  const scored = report.scores.map((score) => score.dimension);
  duplicates(scored, 'scores', '.dimension', 'dimension', errors);
  for (const dimension of plannedDimensions) {
    if (!scored.includes(dimension)) push(errors, 'scores', `dimension "${dimension}" of the approved plan has no score`);
  }
  const findingIds = report.findings.map((finding) => finding.id);
  duplicates(findingIds, 'findings', '.id', 'finding id', errors);
  report.recommendations.forEach((recommendation, index) => {
    recommendation.finding_ids.forEach((id, position) => {
      if (!findingIds.includes(id)) push(errors, `recommendations[${index}].finding_ids[${position}]`, `"${id}" is not the id of a finding in this report`);
    });
  });
  return errors;
}

/** The session and message ids a report's evidence cites (deduplicated), to be looked up in one query each. */
export function citedIds(report: Pick<IntelligentReport, 'findings'>): { sessionIds: string[]; messageIds: string[] } {
  const sessionIds = new Set<string>();
  const messageIds = new Set<string>();
  for (const finding of report.findings) {
    for (const evidence of finding.evidence) {
      sessionIds.add(evidence.session_id);
      if (evidence.message_id) messageIds.add(evidence.message_id);
    }
  }
  return { sessionIds: [...sessionIds], messageIds: [...messageIds] };
}

/**
 * Checks each evidence reference against what this evaluation holds: the session must be one of its sessions,
 * the message (when given) one of its messages and in that very session.
 * @param knownSessions ids of the cited sessions that belong to the evaluation
 * @param knownMessages cited message id → its session id, for the cited messages that belong to the evaluation
 * @returns field errors at `findings[i].evidence[j].session_id|message_id`, empty when every reference holds
 */
export function checkEvidence(
  report: Pick<IntelligentReport, 'findings'>,
  knownSessions: ReadonlySet<string>,
  knownMessages: ReadonlyMap<string, string>,
): FieldError[] {
  const errors: FieldError[] = [];
  report.findings.forEach((finding, index) => {
    finding.evidence.forEach((evidence, position) => {
      const at = `findings[${index}].evidence[${position}]`;
      if (!knownSessions.has(evidence.session_id)) {
        push(errors, `${at}.session_id`, `session ${evidence.session_id} is not a session of this evaluation`);
        return;
      }
      if (!evidence.message_id) return;
      const sessionOfMessage = knownMessages.get(evidence.message_id);
      if (sessionOfMessage === undefined) push(errors, `${at}.message_id`, `message ${evidence.message_id} is not a message of this evaluation`);
      else if (sessionOfMessage !== evidence.session_id) push(errors, `${at}.message_id`, `message ${evidence.message_id} belongs to session ${sessionOfMessage}, not to session ${evidence.session_id}`);
    });
  });
  return errors;
}
