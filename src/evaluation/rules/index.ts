/**
 * Pure rule (assertion) evaluation for evaluation runs: rule types, validation, per-rule results, case verdicts and
 * the run summary (issue: "Rules (assertions)"; evaluation-platform.md, Resources: Run summary object).
 */
export * from './rule.types';
export {
  DEFAULT_LEVENSHTEIN_MAX_DISTANCE,
  evaluateRule,
  MAX_REGEX_INPUT_CHARS,
  validateRuleDefaults,
  validateRuleDefinition,
} from './rule-evaluator';
export { JudgeAnswerError, type JudgeVerdict, readJudgeAnswer } from './judge-answer';
export { PROMPTFOO_TYPES } from './promptfoo-dialect';
export { caseVerdict } from './case-verdict';
export { type CaseOutcome, nearestRank, type RunSummary, summariseRun } from './run-summary';
export { detectRefusal, EMPTY_OUTPUT } from './refusal';
