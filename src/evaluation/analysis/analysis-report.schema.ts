import Ajv, { type ValidateFunction } from 'ajv';

/**
 * The structured report of a campaign analysis and the per-scenario diagnosis of its first phase, as JSON Schemas
 * kept in the code (evaluation-platform.md, Resources: Campaign analysis "structured report validated against the
 * report schema"; issue 4, Campaign analysis). The model is asked for JSON matching these schemas; its answer is
 * validated with Ajv and, when invalid, retried with the validation errors fed back.
 *
 * Design notes:
 * - Every object has `additionalProperties: false`, so a stored report has exactly these fields (the validator
 *   used on model answers drops unknown fields instead of failing on them: they cost nothing to remove).
 * - References (`run_id`, `scenario_id`, `case_id`) are plain strings here; whether they exist in the campaign
 *   is checked afterwards, and foreign ones are removed before storage (see report-references.ts).
 * - Problem and recommendation ids are short slugs (`refund-policy`, `P3`), unique within a report; a later
 *   analysis of the same plan is shown the earlier problems and asked to reuse their ids, so cycle comparison can
 *   match problems by id (and by normalised title otherwise).
 * - `evidence` may be empty after foreign references were removed; the prompt asks for at least one item.
 */

/** Problem severities, most severe first. */
export const PROBLEM_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type ProblemSeverity = (typeof PROBLEM_SEVERITIES)[number];
/** Recommendation priorities, most urgent first. */
export const RECOMMENDATION_PRIORITIES = ['high', 'medium', 'low'] as const;
export type RecommendationPriority = (typeof RECOMMENDATION_PRIORITIES)[number];

/** Pattern of problem and recommendation ids: 1..64 of letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const REPORT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** One piece of evidence of a problem: what was seen, and where (each reference optional). */
export interface ReportEvidence {
  run_id?: string;
  scenario_id?: string;
  case_id?: string;
  note: string;
}

/** A problem found in the campaign. */
export interface ReportProblem {
  id: string;
  title: string;
  severity: ProblemSeverity;
  description: string;
  evidence: ReportEvidence[];
  /** Plan scenarios the problem shows in. */
  scenario_ids?: string[];
}

/** A recommended change, addressing problems of the same report. */
export interface ReportRecommendation {
  id: string;
  title: string;
  description: string;
  /** Ids of the problems it addresses (problems of this report). */
  problem_ids: string[];
  priority: RecommendationPriority;
}

/** The structured analysis report (phase 2, synthesis). */
export interface AnalysisReport {
  summary: string;
  problems: ReportProblem[];
  recommendations: ReportRecommendation[];
}

/** One finding of a scenario diagnosis. */
export interface DiagnosisFinding {
  title: string;
  severity: ProblemSeverity;
  description: string;
  /** Cases that show it (case ids of the scenario). */
  case_ids: string[];
}

/** The model's diagnosis of one scenario (phase 1). */
export interface ScenarioDiagnosisAnswer {
  summary: string;
  findings: DiagnosisFinding[];
}

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
const reference = { type: 'string', minLength: 1, maxLength: 64 };
const id = { type: 'string', pattern: REPORT_ID_PATTERN };

/** JSON Schema (draft-07) of {@link AnalysisReport}. */
export const ANALYSIS_REPORT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Campaign analysis report',
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'problems', 'recommendations'],
  properties: {
    summary: { ...text(8000), description: 'What the campaign shows overall, in a few sentences.' },
    problems: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'severity', 'description', 'evidence'],
        properties: {
          id: { ...id, description: 'Short slug, unique in the report; reuse the id of the same problem in an earlier analysis.' },
          title: text(200),
          severity: { type: 'string', enum: PROBLEM_SEVERITIES },
          description: text(4000),
          evidence: {
            type: 'array',
            maxItems: 20,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['note'],
              properties: { run_id: reference, scenario_id: reference, case_id: reference, note: text(2000) },
            },
          },
          scenario_ids: { type: 'array', maxItems: 100, uniqueItems: true, items: reference },
        },
      },
    },
    recommendations: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'description', 'problem_ids', 'priority'],
        properties: {
          id,
          title: text(200),
          description: text(4000),
          problem_ids: { type: 'array', maxItems: 50, uniqueItems: true, items: id },
          priority: { type: 'string', enum: RECOMMENDATION_PRIORITIES },
        },
      },
    },
  },
} as const;

/** JSON Schema (draft-07) of {@link ScenarioDiagnosisAnswer}. */
export const SCENARIO_DIAGNOSIS_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Scenario diagnosis',
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'findings'],
  properties: {
    summary: text(4000),
    findings: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'severity', 'description', 'case_ids'],
        properties: {
          title: text(200),
          severity: { type: 'string', enum: PROBLEM_SEVERITIES },
          description: text(4000),
          case_ids: { type: 'array', maxItems: 50, items: reference },
        },
      },
    },
  },
} as const;

/** The outcome of checking a model answer: the value, or readable errors to feed back. */
export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** Ajv errors reported per answer at most (the rest are summarised). */
const MAX_ERRORS = 8;

function compile(schema: object): ValidateFunction {
  // removeAdditional: unknown fields of a model answer are dropped (where additionalProperties is false), not refused.
  return new Ajv({ allErrors: true, strict: false, logger: false, removeAdditional: true }).compile(schema);
}

const validateReport = compile(ANALYSIS_REPORT_SCHEMA);
const validateDiagnosis = compile(SCENARIO_DIAGNOSIS_SCHEMA);

/**
 * Reads a model's answer as one JSON object: the whole text, or the text inside a ```json fence, or the first
 * `{` … last `}` span. Pure.
 * @returns the parsed object, or errors saying why it is not one
 */
export function parseJsonAnswer(answer: string): AnswerCheck<Record<string, unknown>> {
  const candidates = [answer.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(answer);
  if (fenced) candidates.push(fenced[1].trim());
  const first = answer.indexOf('{');
  const last = answer.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(answer.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, value: parsed as Record<string, unknown> };
    } catch {
      // try the next candidate
    }
  }
  return { ok: false, errors: ['the answer is not one JSON object'] };
}

function schemaErrors(validate: ValidateFunction): string[] {
  const errors = (validate.errors ?? []).map((error) => {
    const where = error.instancePath || '/';
    const allowed = error.keyword === 'enum' ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : '';
    return `${where} ${error.message ?? 'is invalid'}${allowed}`;
  });
  return errors.length > MAX_ERRORS ? [...errors.slice(0, MAX_ERRORS), `(+${errors.length - MAX_ERRORS} more errors)`] : errors;
}

/** Ids that occur more than once, in first-seen order. */
function duplicates(ids: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const value of ids) (seen.has(value) ? twice : seen).add(value);
  return [...twice];
}

/**
 * Checks a synthesis answer: one JSON object, valid against {@link ANALYSIS_REPORT_SCHEMA} (unknown fields are
 * dropped), with unique problem ids and unique recommendation ids. Recommendations naming problems that are not in
 * the report are not an error here: those ids are removed before storage (report-references.ts). Pure.
 * @returns the report, or readable errors (JSON path + message) to feed back to the model
 */
export function checkReportAnswer(answer: string): AnswerCheck<AnalysisReport> {
  const parsed = parseJsonAnswer(answer);
  if (!parsed.ok) return parsed;
  const value = structuredClone(parsed.value);
  if (!validateReport(value)) return { ok: false, errors: schemaErrors(validateReport) };
  const report = value as unknown as AnalysisReport;
  const errors: string[] = [];
  const problemIds = duplicates(report.problems.map((problem) => problem.id));
  if (problemIds.length) errors.push(`/problems ids must be unique; repeated: ${problemIds.join(', ')}`);
  const recommendationIds = duplicates(report.recommendations.map((item) => item.id));
  if (recommendationIds.length) errors.push(`/recommendations ids must be unique; repeated: ${recommendationIds.join(', ')}`);
  return errors.length ? { ok: false, errors } : { ok: true, value: report };
}

/**
 * Checks a diagnosis answer: one JSON object valid against {@link SCENARIO_DIAGNOSIS_SCHEMA} (unknown fields
 * are dropped). Pure.
 */
export function checkDiagnosisAnswer(answer: string): AnswerCheck<ScenarioDiagnosisAnswer> {
  const parsed = parseJsonAnswer(answer);
  if (!parsed.ok) return parsed;
  const value = structuredClone(parsed.value);
  if (!validateDiagnosis(value)) return { ok: false, errors: schemaErrors(validateDiagnosis) };
  return { ok: true, value: value as unknown as ScenarioDiagnosisAnswer };
}
