import { distance } from 'fastest-levenshtein';
import { compileSafeRegex, safeRegexProblem } from '../../common/regex/safe-regex';
import { compileJsonSchema, describeSchemaErrors } from './json-schema';
import { evaluatePromptfooRule, parseCommaList, validatePromptfooRule } from './promptfoo-dialect';
import { detectRefusal, EMPTY_OUTPUT } from './refusal';
import {
  countWords,
  foldCase,
  graphemeCodes,
  graphemes,
  isValidLocale,
  MAX_LEVENSHTEIN_GRAPHEMES,
  normalise,
  NORMALIZE_FORMS,
  type NormalizeForm,
} from './unicode-text';
import {
  BASE_RULE_TYPES,
  type BaseRuleType,
  NEGATABLE_RULE_TYPES,
  type ReplyUnderTest,
  type RubricJudge,
  RULE_DIALECTS,
  type RuleDefaults,
  type RuleDefinition,
  type RuleResult,
} from './rule.types';

/** Characters of output a `regex` rule examines; longer output is cut (RE2 is linear, this bounds the constant). */
export const MAX_REGEX_INPUT_CHARS = 100_000;

/** `levenshtein` max edit distance when the rule sets no `threshold`. */
export const DEFAULT_LEVENSHTEIN_MAX_DISTANCE = 5;

/** Characters of a value or output quoted in a reason. */
const QUOTE_CHARS = 60;

/**
 * What a rule type concludes before `not-` is applied. `score` defaults to 1 on pass, 0 on fail. `error` marks
 * "could not evaluate" (bad rule, judge failure): negation must not turn that into a pass.
 */
interface Outcome {
  pass: boolean;
  reason: string;
  score?: number;
  error?: boolean;
  /** The judge's answer held no readable verdict: the case is `errored`, not `failed` (issue 24 item 1). */
  unreadable?: boolean;
}

/** How a rule's text is prepared: the normalisation form and the case-folding locale (rule, else scenario default). */
interface TextOptions {
  form: NormalizeForm;
  locale?: string;
}

/** Raw rule fields as read from JSON, before validation. */
type RawRule = Record<string, unknown>;

interface RuleSpec {
  /** Problems with the type-specific fields, each without the type prefix; [] when valid. */
  validate(rule: RawRule): string[];
  /** Runs a validated rule; may only reject for `llm-rubric` (judge), which `evaluateRule` catches. */
  evaluate(
    rule: RuleDefinition,
    output: string,
    reply: ReplyUnderTest,
    text: TextOptions,
    judge?: RubricJudge,
  ): Outcome | Promise<Outcome>;
}

const NEGATABLE = new Set<string>(NEGATABLE_RULE_TYPES);

// ---- field checks: each returns one problem or nothing ----

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isNonNegativeInteger = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isNonNegativeNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function needNonEmptyString(rule: RawRule, field: string): string[] {
  return isNonEmptyString(rule[field]) ? [] : [`${field} must be a non-empty string`];
}

function needOptional(rule: RawRule, field: string, ok: (v: unknown) => boolean, what: string): string[] {
  return rule[field] === undefined || ok(rule[field]) ? [] : [`${field} must be ${what}`];
}

/** A `contains` value: a non-empty string, or a finite number (YAML's `value: 42`), read as its decimal text. */
const isTextOrNumber = (v: unknown): boolean => isNonEmptyString(v) || (typeof v === 'number' && Number.isFinite(v));

/** The needles of `contains-any`/`-all`: the array, or a comma string split as promptfoo splits it (`a, b, "c, d"`). */
function stringList(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.every(isTextOrNumber) ? value.map(String) : undefined;
  if (!isNonEmptyString(value)) return undefined;
  try {
    return parseCommaList(value);
  } catch {
    return undefined;
  }
}

function validateStringList(rule: RawRule): string[] {
  const list = stringList(rule.value);
  const problems =
    list && list.length > 0 && list.every(isNonEmptyString)
      ? []
      : [
          'value must be a non-empty array of non-empty strings, or a comma-separated string such as "refund, return" (double-quote an item holding a comma)',
        ];
  return [...problems, ...needOptional(rule, 'icase', (v) => typeof v === 'boolean', 'a boolean')];
}

function validateSchemaField(rule: RawRule, required: boolean): string[] {
  const schema = schemaOf(rule);
  if (schema === undefined) return required ? ['schema is required (in `schema` or `value`)'] : [];
  const compiled = compileJsonSchema(schema);
  return 'error' in compiled ? [`invalid JSON schema: ${compiled.error}`] : [];
}

// ---- helpers used by evaluators ----

/** `schema` wins over `value` for the two JSON rules. */
function schemaOf(rule: RawRule | RuleDefinition): unknown {
  return rule.schema !== undefined ? rule.schema : rule.value;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);
}

function parseJson(output: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(output.trim()) };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

/** Structural equality of JSON values: object key order ignored, array order kept. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as RawRule)[k], (b as RawRule)[k]))
  );
}

function checkAgainstSchema(value: unknown, schema: unknown): Outcome {
  const compiled = compileJsonSchema(schema);
  if ('error' in compiled) return { pass: false, reason: `invalid JSON schema: ${compiled.error}`, error: true };
  return compiled.validate(value)
    ? { pass: true, reason: 'output JSON matches the schema' }
    : {
        pass: false,
        reason: `output JSON does not match the schema: ${describeSchemaErrors(compiled.validate.errors)}`,
      };
}

function containsOutcome(found: boolean, needle: string, suffix = ''): Outcome {
  return { pass: found, reason: `output ${found ? 'contains' : 'does not contain'} ${quote(needle)}${suffix}` };
}

/** `text` normalised (NFC, or NFKC when asked) and, with `fold`, case-folded (full Unicode folding, locale-aware). */
function prepare(text: string, options: TextOptions, fold = false): string {
  return fold ? foldCase(text, { locale: options.locale, form: options.form }) : normalise(text, options.form);
}

function listOf(rule: RuleDefinition, text: TextOptions): { shown: string[]; needles: string[]; haystack: (output: string) => string } {
  const shown = stringList(rule.value) as string[];
  const fold = rule.icase === true;
  return { shown, needles: shown.map((n) => prepare(n, text, fold)), haystack: (o) => prepare(o, text, fold) };
}

async function judgeRubric(rule: RuleDefinition, output: string, judge?: RubricJudge): Promise<Outcome> {
  if (!judge) return { pass: false, reason: 'no judge model configured for llm-rubric', error: true };
  const threshold = rule.threshold;
  let verdict: Awaited<ReturnType<RubricJudge>>;
  try {
    verdict = await judge({ rubric: rule.value as string, output, ...(threshold !== undefined && { threshold }) });
  } catch (err) {
    // An answer with no readable verdict makes the case errored (judge failure); other judge failures fail the rule.
    const unreadable = err instanceof Error && err.name === 'JudgeAnswerError';
    return { pass: false, reason: `judge failed: ${errorMessage(err)}`, error: true, unreadable };
  }
  if (typeof verdict !== 'object' || verdict === null) {
    return { pass: false, reason: 'judge returned no verdict', error: true };
  }
  const raw = Number(verdict.score);
  const score = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 0;
  // The judge's own verdict and the rule's threshold must both hold.
  const pass = verdict.pass === true && (threshold === undefined || score >= threshold);
  const given =
    typeof verdict.reason === 'string' && verdict.reason.trim() !== '' ? verdict.reason : 'judge gave no reason';
  // A score the judge gave on 0–10 or 0–100 was normalised; the reason records the scale it was read on.
  const reason = verdict.scale && verdict.scale !== '0-1' ? `${given} (score read on the ${verdict.scale} scale)` : given;
  return { pass, score, reason };
}

// ---- the table: one entry per base type ----

const textRule = { validate: (rule: RawRule) => needNonEmptyString(rule, 'value') };

/** A `contains`/`icontains` value: a non-empty string or a finite number (coerced to its text). */
const textOrNumberRule = {
  validate: (rule: RawRule) => (isTextOrNumber(rule.value) ? [] : ['value must be a non-empty string (a number is read as its text)']),
};

const RULE_SPECS: Record<BaseRuleType, RuleSpec> = {
  contains: {
    ...textOrNumberRule,
    evaluate: (rule, output, _reply, text) => {
      const needle = String(rule.value);
      return containsOutcome(prepare(output, text).includes(prepare(needle, text)), needle);
    },
  },
  icontains: {
    ...textOrNumberRule,
    evaluate: (rule, output, _reply, text) => {
      const needle = String(rule.value);
      return containsOutcome(prepare(output, text, true).includes(prepare(needle, text, true)), needle, ' (ignoring case)');
    },
  },
  'contains-any': {
    validate: validateStringList,
    evaluate: (rule, output, _reply, options) => {
      const { shown, needles, haystack } = listOf(rule, options);
      const text = haystack(output);
      const hit = needles.findIndex((n) => text.includes(n));
      return hit >= 0
        ? { pass: true, reason: `output contains ${quote(shown[hit])}` }
        : { pass: false, reason: `output contains none of ${shown.map(quote).join(', ')}` };
    },
  },
  'contains-all': {
    validate: validateStringList,
    evaluate: (rule, output, _reply, options) => {
      const { shown, needles, haystack } = listOf(rule, options);
      const text = haystack(output);
      const missing = shown.filter((_, i) => !text.includes(needles[i]));
      return missing.length === 0
        ? { pass: true, reason: `output contains all ${needles.length} values` }
        : { pass: false, reason: `output lacks ${missing.map(quote).join(', ')}` };
    },
  },
  equals: {
    validate: (rule) => (rule.value === undefined ? ['value is required'] : []),
    evaluate: (rule, output, _reply, text) => {
      if (typeof rule.value === 'string') {
        const actual = prepare(output.trim(), text);
        const expected = prepare(rule.value.trim(), text);
        return actual === expected
          ? { pass: true, reason: 'output equals the expected text' }
          : { pass: false, reason: `output ${quote(actual)} differs from expected ${quote(expected)}` };
      }
      const parsed = parseJson(output);
      if (!parsed.ok) return { pass: false, reason: 'output is not JSON, so it cannot equal the expected JSON value' };
      return jsonEqual(parsed.value, rule.value)
        ? { pass: true, reason: 'output JSON equals the expected value' }
        : { pass: false, reason: 'output JSON differs from the expected value' };
    },
  },
  'starts-with': {
    ...textRule,
    evaluate: (rule, output, _reply, text) => {
      // Value and output alike: leading whitespace dropped from both, both normalised.
      const prefix = rule.value as string;
      const found = prepare(output.trimStart(), text).startsWith(prepare(prefix.trimStart(), text));
      return { pass: found, reason: `output ${found ? 'starts' : 'does not start'} with ${quote(prefix)}` };
    },
  },
  regex: {
    validate: (rule) => {
      const problems = [
        ...needNonEmptyString(rule, 'value'),
        ...needOptional(rule, 'flags', (v) => typeof v === 'string', 'a string'),
      ];
      if (problems.length > 0) return problems;
      // RE2 (src/common/regex): linear time; backreferences and lookaround are refused, naming the construct.
      const problem = safeRegexProblem(rule.value as string, (rule.flags as string | undefined) ?? '');
      return problem ? [`invalid regex: ${problem}`] : [];
    },
    evaluate: (rule, raw, _reply, text) => {
      // `g`/`y`/`u`/`d` have no effect: one stateless test per reply. The output is normalised, the pattern is not.
      const output = prepare(raw, text);
      const pattern = compileSafeRegex(rule.value as string, rule.flags ?? '');
      const cut = output.length > MAX_REGEX_INPUT_CHARS;
      const match = pattern.exec(cut ? output.slice(0, MAX_REGEX_INPUT_CHARS) : output);
      const note = cut ? ` (first ${MAX_REGEX_INPUT_CHARS} characters examined)` : '';
      return match
        ? { pass: true, reason: `output matches ${pattern} at ${quote(match.text)}${note}` }
        : { pass: false, reason: `output does not match ${pattern}${note}` };
    },
  },
  'is-json': {
    validate: (rule) => validateSchemaField(rule, false),
    evaluate: (rule, output) => {
      const parsed = parseJson(output);
      if (!parsed.ok) return { pass: false, reason: `output is not valid JSON: ${parsed.error}` };
      const schema = schemaOf(rule);
      if (schema === undefined) return { pass: true, reason: 'output is valid JSON' };
      return checkAgainstSchema(parsed.value, schema);
    },
  },
  'json-schema': {
    validate: (rule) => validateSchemaField(rule, true),
    evaluate: (rule, output) => {
      const parsed = parseJson(output);
      if (!parsed.ok) return { pass: false, reason: `output is not valid JSON: ${parsed.error}` };
      return checkAgainstSchema(parsed.value, schemaOf(rule));
    },
  },
  'word-count': {
    validate: (rule) => {
      const problems = [
        ...needOptional(rule, 'min', isNonNegativeInteger, 'an integer >= 0'),
        ...needOptional(rule, 'max', isNonNegativeInteger, 'an integer >= 0'),
      ];
      if (rule.min === undefined && rule.max === undefined) problems.push('min or max is required');
      const { min, max } = rule as { min?: number; max?: number };
      if (problems.length === 0 && min !== undefined && max !== undefined && min > max) {
        problems.push('min must not exceed max');
      }
      return problems;
    },
    evaluate: (rule, output, _reply, text) => {
      const words = countWords(prepare(output, text), text.locale);
      if (rule.min !== undefined && words < rule.min) {
        return { pass: false, reason: `output has ${words} words, fewer than the min ${rule.min}` };
      }
      if (rule.max !== undefined && words > rule.max) {
        return { pass: false, reason: `output has ${words} words, more than the max ${rule.max}` };
      }
      return { pass: true, reason: `output has ${words} words, within min ${rule.min ?? 0}, max ${rule.max ?? '∞'}` };
    },
  },
  levenshtein: {
    validate: (rule) => [
      ...(typeof rule.value === 'string' ? [] : ['value must be a string']),
      ...needOptional(rule, 'threshold', isNonNegativeInteger, 'an integer >= 0 (max edit distance)'),
    ],
    evaluate: (rule, output, _reply, text) => {
      const max = rule.threshold ?? DEFAULT_LEVENSHTEIN_MAX_DISTANCE;
      // Edits are counted in grapheme clusters: one emoji or one accented letter is one edit.
      const actual = graphemes(prepare(output.trim(), text));
      const expected = graphemes(prepare((rule.value as string).trim(), text));
      // The distance is at least the length difference; skip the O(n·m) work when that already fails.
      const floor = Math.abs(actual.length - expected.length);
      if (floor > max) return { pass: false, reason: `edit distance at least ${floor}, more than the max ${max}` };
      if (actual.length > MAX_LEVENSHTEIN_GRAPHEMES || expected.length > MAX_LEVENSHTEIN_GRAPHEMES) {
        return { pass: false, reason: `text longer than ${MAX_LEVENSHTEIN_GRAPHEMES} grapheme clusters is not compared` };
      }
      const d = distance(...graphemeCodes(actual, expected));
      return d <= max
        ? { pass: true, reason: `edit distance ${d}, within the max ${max}` }
        : { pass: false, reason: `edit distance ${d}, more than the max ${max}` };
    },
  },
  latency: {
    validate: (rule) =>
      isNonNegativeNumber(rule.threshold) ? [] : ['threshold is required: the max latency in ms, a number >= 0'],
    evaluate: (rule, _output, reply) => {
      const max = rule.threshold as number;
      if (!isNonNegativeNumber(reply.latencyMs)) return { pass: false, reason: 'latency unknown' };
      return reply.latencyMs <= max
        ? { pass: true, reason: `latency ${reply.latencyMs} ms, within the max ${max} ms` }
        : { pass: false, reason: `latency ${reply.latencyMs} ms, more than the max ${max} ms` };
    },
  },
  'is-refusal': {
    validate: () => [],
    evaluate: (_rule, output) => {
      const { refusal, evidence } = detectRefusal(output);
      return refusal
        ? { pass: true, reason: `output is a refusal (${evidence === EMPTY_OUTPUT ? evidence : quote(evidence ?? '')})` }
        : { pass: false, reason: 'output is not a refusal' };
    },
  },
  'llm-rubric': {
    validate: (rule) => [
      ...needNonEmptyString(rule, 'value'),
      ...needOptional(rule, 'threshold', (v) => isNonNegativeNumber(v) && v <= 1, 'a number between 0 and 1'),
    ],
    evaluate: (rule, output, _reply, _text, judge) => judgeRubric(rule, output, judge),
  },
};

/** Splits `not-x` into `{ base: 'x', negated: true }`; `base` is unchecked. */
function splitType(type: string): { base: string; negated: boolean } {
  return type.startsWith('not-') ? { base: type.slice(4), negated: true } : { base: type, negated: false };
}

function effectiveWeight(weight: unknown): number {
  return isNonNegativeNumber(weight) ? weight : 1;
}

/**
 * Checks a rule as stored in a scenario case (issue: "Rules (assertions)"; used by the scenario DTO validation).
 * Returns human-readable problems, `[]` when valid, e.g. `unknown rule type "containz"`,
 * `"not-latency": latency has no negation`, `regex: invalid regex: …`, `json-schema: invalid JSON schema: …`,
 * `weight must be a number >= 0`. Field rules per type are listed on {@link RuleDefinition}. Never throws.
 */
export function validateRuleDefinition(rule: unknown): string[] {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return ['rule must be an object'];
  const raw = rule as RawRule;
  if (typeof raw.type !== 'string' || raw.type === '') return ['rule type must be a non-empty string'];

  if (raw.dialect !== undefined && !(RULE_DIALECTS as readonly unknown[]).includes(raw.dialect)) {
    return [`dialect must be one of ${RULE_DIALECTS.join(', ')}`];
  }
  const weightProblems =
    raw.weight !== undefined && !isNonNegativeNumber(raw.weight) ? ['weight must be a number >= 0'] : [];
  if (raw.dialect === 'promptfoo') {
    return [...validatePromptfooRule(raw).map((p) => `${raw.type as string} (promptfoo dialect): ${p}`), ...weightProblems];
  }

  const { base, negated } = splitType(raw.type);
  const problems: string[] = [...textOptionProblems(raw)];
  if (!Object.hasOwn(RULE_SPECS, base)) {
    const known = `${BASE_RULE_TYPES.join(', ')}, and not-<type>`;
    problems.push(`unknown rule type ${JSON.stringify(raw.type)} (known: ${known})`);
  } else if (negated && !NEGATABLE.has(base)) {
    problems.push(`${JSON.stringify(raw.type)}: ${base} has no negation`);
  } else {
    problems.push(...RULE_SPECS[base as BaseRuleType].validate(raw).map((p) => `${raw.type}: ${p}`));
  }
  return [...problems, ...weightProblems];
}

/** Problems of the Atrium dialect's text options `locale` (BCP 47) and `normalize` (`NFC` | `NFKC`). */
function textOptionProblems(raw: RawRule | RuleDefaults): string[] {
  return [
    ...(raw.locale === undefined || isValidLocale(raw.locale) ? [] : ['locale must be a BCP 47 language tag such as "tr" or "de-DE"']),
    ...(raw.normalize === undefined || (NORMALIZE_FORMS as readonly unknown[]).includes(raw.normalize)
      ? []
      : [`normalize must be one of ${NORMALIZE_FORMS.join(', ')}`]),
  ];
}

/**
 * Checks a scenario's rule defaults (`llm_config.rule_defaults`: `{ locale?, normalize? }`, issue 24 item 2).
 * Returns readable problems, `[]` when valid or absent. Never throws.
 */
export function validateRuleDefaults(defaults: unknown): string[] {
  if (defaults === undefined) return [];
  if (typeof defaults !== 'object' || defaults === null || Array.isArray(defaults)) return ['rule_defaults must be an object'];
  return textOptionProblems(defaults as RuleDefaults).map((p) => `rule_defaults: ${p}`);
}

/**
 * Evaluates one rule against one reply (issue: "Rules (assertions)"; results stored per rule,
 * evaluation-platform.md, What the service does; issue 24). Text is normalised to NFC (or NFKC with
 * `normalize: "NFKC"`) on both sides; "fold" is full Unicode case folding, Turkic under `locale: "tr"`/`"az"`.
 * `defaults` are the scenario's `llm_config.rule_defaults` (`locale`, `normalize`); a rule's own value wins.
 * Semantics by type (docs/evaluation-rules.md has the table):
 *
 * - `contains`: case-sensitive substring (a number value is read as its text). `icontains`: substring after folding.
 * - `starts-with`: prefix, leading whitespace dropped from the value and the output alike.
 * - `contains-any` / `contains-all`: at least one / every item of `value` (an array, or a comma string); folded with
 *   `icase: true`.
 * - `equals`: a string `value` must equal the output, both trimmed, case-sensitive. Any other `value` (object,
 *   array, number, boolean, null) is compared as JSON: the trimmed output must parse and be structurally equal
 *   (object key order ignored, array order kept).
 * - `regex`: `value` (JavaScript syntax, run on RE2 in linear time: src/common/regex) with `flags` (`i`, `m`, `s`;
 *   `g`, `y`, `u`, `d` have no effect) searched in the first {@link MAX_REGEX_INPUT_CHARS} characters of the
 *   normalised output.
 * - `is-json`: the trimmed output parses as JSON, and matches `schema` when one is given.
 * - `json-schema`: the trimmed output parses as JSON and validates against the schema (Ajv draft-07, or 2020-12 by
 *   `$schema`; `format` checked); the reason names the first Ajv errors.
 * - `word-count`: `min <= words <= max`; words by `Intl.Segmenter` word granularity (CJK words included).
 * - `levenshtein`: edit distance in grapheme clusters between the trimmed output and trimmed `value` <= `threshold`
 *   (default 5); text over {@link MAX_LEVENSHTEIN_GRAPHEMES} clusters fails with that reason.
 * - `latency`: `reply.latencyMs <= threshold` (ms); an unknown (non-finite) latency fails.
 * - `is-refusal`: see `detectRefusal`; empty output counts as a refusal.
 * - `llm-rubric`: asks `judge` with `value` as the rubric; passes when the judge passes and, if the rule sets
 *   `threshold`, the judge's score (clamped to 0..1) reaches it; the judge's reason becomes the reason. An
 *   unreadable answer (`JudgeAnswerError`) gives `errored: true`: the run marks the case errored.
 * - `dialect: "promptfoo"`: promptfoo 0.121's shape and semantics (promptfoo-dialect.ts).
 *
 * `not-<type>` inverts `pass` and sets `score` to `1 - score`, except when the rule could not be evaluated.
 * Score is 1 or 0 for every type but `llm-rubric`. `weight` in the result is the rule's weight, 1 when absent; a
 * weight of 0 is informational (`caseVerdict` ignores it).
 *
 * Never throws or rejects: an invalid rule (see {@link validateRuleDefinition}), a missing judge, or a judge that
 * rejects gives `pass: false, score: 0` with the cause in `reason`.
 */
export async function evaluateRule(
  rule: RuleDefinition,
  reply: ReplyUnderTest,
  judge?: RubricJudge,
  defaults: RuleDefaults = {},
): Promise<RuleResult> {
  const type = typeof rule?.type === 'string' ? rule.type : String(rule?.type);
  const weight = effectiveWeight(rule?.weight);
  const problems = validateRuleDefinition(rule);
  if (problems.length > 0) {
    return { type, pass: false, score: 0, reason: `invalid rule: ${problems.join('; ')}`, weight };
  }

  const output = typeof reply?.output === 'string' ? reply.output : '';
  if (rule.dialect === 'promptfoo') {
    // promptfoo applies `not-` itself and keeps its own scores; only judge failures are "could not evaluate".
    const judged = await evaluatePromptfooRule(rule as unknown as RawRule, { output, latencyMs: reply?.latencyMs }, judge).catch(
      (err: unknown) => ({ pass: false, score: 0, reason: `rule evaluation failed: ${errorMessage(err)}`, error: true, unreadable: false }),
    );
    if (judged.error) return { type, pass: false, score: 0, reason: judged.reason, weight, ...(judged.unreadable && { errored: true }) };
    return { type, pass: judged.pass, score: judged.score, reason: judged.reason, weight };
  }

  const { base, negated } = splitType(rule.type);
  const text: TextOptions = {
    form: rule.normalize ?? defaults.normalize ?? 'NFC',
    locale: rule.locale ?? defaults.locale,
  };
  let outcome: Outcome;
  try {
    outcome = await RULE_SPECS[base as BaseRuleType].evaluate(rule, output, reply, text, judge);
  } catch (err) {
    outcome = { pass: false, reason: `rule evaluation failed: ${errorMessage(err)}`, error: true };
  }

  const score = outcome.score ?? (outcome.pass ? 1 : 0);
  if (outcome.error) return { type, pass: false, score: 0, reason: outcome.reason, weight, ...(outcome.unreadable && { errored: true }) };
  return negated
    ? { type, pass: !outcome.pass, score: 1 - score, reason: outcome.reason, weight }
    : { type, pass: outcome.pass, score, reason: outcome.reason, weight };
}
