/** Pure rule (assertion) evaluation for evaluation runs: types, validation, per-rule results, case verdicts, run summary. */
export * from './rule.types';
export { validateRuleDefinition, evaluateRule, MAX_REGEX_INPUT_CHARS, DEFAULT_LEVENSHTEIN_MAX_DISTANCE } from './rule-evaluator';
export { caseVerdict } from './case-verdict';
export { summariseRun, nearestRank, type RunSummary, type CaseOutcome } from './run-summary';
export { detectRefusal } from './refusal';
