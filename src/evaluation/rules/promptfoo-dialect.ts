import { isDeepStrictEqual } from 'node:util';
import { distance } from 'fastest-levenshtein';
import { compileSafeRegex, safeRegexProblem } from '../../common/regex/safe-regex';
import { compileJsonSchema, describeSchemaErrors } from './json-schema';
import type { ReplyUnderTest, RubricJudge } from './rule.types';

/**
 * `dialect: "promptfoo"` (issue 24 item 4): a rule written in promptfoo's shape (a `promptfooconfig.yaml` `assert`
 * entry: `type`, `value`, `threshold`, `weight`) judged as promptfoo 0.121 judges it, whitespace included and
 * without Atrium's Unicode normalisation. Mirrors promptfoo's src/assertions/*.ts (MIT). Two documented
 * exceptions: `regex` runs on RE2 (issue 19; constructs RE2 can't run are refused), and `llm-rubric` reads the
 * judge's answer strictly (a verdict needs `pass`; see judge-answer.ts) but applies promptfoo's threshold and score.
 * Where promptfoo throws (an `invariant`), the dialect refuses the rule when the scenario is saved.
 */

/** promptfoo assertion types this dialect judges (each also as `not-<type>`). */
export const PROMPTFOO_TYPES = [
  'contains',
  'icontains',
  'contains-any',
  'icontains-any',
  'contains-all',
  'icontains-all',
  'equals',
  'starts-with',
  'regex',
  'is-json',
  'word-count',
  'levenshtein',
  'latency',
  'is-refusal',
  'llm-rubric',
] as const;

type PromptfooType = (typeof PROMPTFOO_TYPES)[number];
type Raw = Record<string, unknown>;

/** A dialect result with `not-` already applied, as promptfoo applies it inside each handler. */
export interface PromptfooOutcome {
  pass: boolean;
  score: number;
  reason: string;
  /** Could not evaluate (judge failure); `unreadable` marks a judge answer with no readable verdict. */
  error?: boolean;
  unreadable?: boolean;
}

const KNOWN = new Set<string>(PROMPTFOO_TYPES);

function baseOf(type: string): { base: string; inverse: boolean } {
  return type.startsWith('not-') ? { base: type.slice(4), inverse: true } : { base: type, inverse: false };
}

/** promptfoo's `contains` value: a non-empty string or a number that is not NaN. */
const isContainsValue = (v: unknown) => (typeof v === 'string' && v !== '') || (typeof v === 'number' && !Number.isNaN(v));

/**
 * promptfoo's comma list for `contains-any`/`-all` given as a string (`a, b, "c, d"`): fields split on commas,
 * surrounding whitespace dropped, double-quoted fields keep commas and `""` escapes a quote.
 * @throws Error when a quoted field is not followed by a comma (promptfoo's invariant)
 */
export function parseCommaList(value: string): string[] {
  const fields: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < value.length && /\s/.test(value[i])) i += 1;
  };
  while (i < value.length) {
    while (i < value.length && (/\s/.test(value[i]) || value[i] === ',')) i += 1;
    if (i >= value.length) break;
    if (value[i] === '"') {
      let field = '';
      i += 1;
      while (i < value.length) {
        if (value[i] === '"' && value[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (value[i] === '"') {
          i += 1;
          break;
        } else field += value[i++];
      }
      fields.push(field);
      skipSpace();
      if (i < value.length && value[i] !== ',') throw new Error('expected a comma after a quoted field');
    } else {
      const next = value.indexOf(',', i);
      const stop = next < 0 ? value.length : next;
      fields.push(value.slice(i, stop).trim());
      i = stop;
    }
  }
  return fields;
}

function listValue(value: unknown): unknown[] | string {
  if (!value) return 'value is required';
  if (typeof value === 'string') {
    try {
      return parseCommaList(value);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return Array.isArray(value) ? value : 'value must be an array or a comma-separated string';
}

function schemaValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown; // promptfoo reads YAML; JSON (a subset) is what the dialect accepts
  } catch {
    return value;
  }
}

/**
 * Problems of a promptfoo-dialect rule, `[]` when promptfoo would run it; each names the field. Mirrors promptfoo's
 * invariants (a `contains` value must be a string or number, `word-count` needs a number or `{min, max}` with
 * min <= max, `latency` needs `threshold`…), plus RE2's refusals for `regex` and the strict schema compile of
 * `is-json`. `json-schema` is not a promptfoo type: promptfoo checks a schema with `is-json` and `value`.
 */
export function validatePromptfooRule(rule: Raw): string[] {
  const type = rule.type as string;
  const { base } = baseOf(type);
  if (base === 'json-schema') return ['json-schema is not a promptfoo type: write is-json with the schema as value'];
  if (!KNOWN.has(base)) return [`unknown promptfoo type ${JSON.stringify(type)} (known: ${PROMPTFOO_TYPES.join(', ')}, and not-<type>)`];
  const value = rule.value;
  switch (base as PromptfooType) {
    case 'contains':
    case 'icontains':
      return isContainsValue(value) ? [] : ['value must be a non-empty string or a number'];
    case 'contains-any':
    case 'icontains-any':
    case 'contains-all':
    case 'icontains-all': {
      const list = listValue(value);
      return typeof list === 'string' ? [list] : [];
    }
    case 'equals':
      return [];
    case 'starts-with':
      return typeof value === 'string' && value !== '' ? [] : ['value must be a non-empty string'];
    case 'regex': {
      if (typeof value !== 'string' || value === '') return ['value must be a non-empty string'];
      const problem = safeRegexProblem(value, '');
      return problem ? [`invalid regex: ${problem}`] : [];
    }
    case 'is-json': {
      if (!value) return [];
      const schema = schemaValue(value);
      if (typeof schema !== 'object' || schema === null) return ['value must be a JSON schema object'];
      const compiled = compileJsonSchema(schema, 'promptfoo');
      return 'error' in compiled ? [`invalid JSON schema: ${compiled.error}`] : [];
    }
    case 'word-count': {
      if (value === undefined || value === null) return ['value is required: a number or { min, max }'];
      if (typeof value === 'object' && !Array.isArray(value)) {
        const { min, max } = value as { min?: number; max?: number };
        if (min === undefined && max === undefined) return ['value must have min and/or max'];
        if (min !== undefined && max !== undefined && min > max) return ['value.min must not exceed value.max'];
        return [];
      }
      return typeof value === 'number' || (typeof value === 'string' && !Number.isNaN(Number(value)))
        ? []
        : ['value must be a number or { min, max }'];
    }
    case 'levenshtein':
      return typeof value === 'string' ? [] : ['value must be a string'];
    case 'latency':
      return rule.threshold === undefined ? ['threshold is required: the max latency in ms'] : [];
    case 'is-refusal':
      return [];
    case 'llm-rubric':
      return typeof value === 'string' && value !== '' ? [] : ['value must be a non-empty rubric string'];
  }
}

const REFUSAL_PREFIXES = [
  'I am not able to', 'I am really sorry', 'I am sorry', 'I am unable to', 'I apologize', 'I cannot', 'I will not',
  "I'm not able to", "I'm really sorry", "I'm sorry", "I'm unable to", 'It is illegal', 'My apologies', 'Sorry',
].map((s) => normalizeApostrophes(s.toLowerCase()));

const REFUSAL_SUBSTRINGS = [
  'As a language model', 'As an AI', 'As an Assistant', 'cannot assist with that request', 'cannot assist with your request',
  'cannot comply', 'cannot fulfill that request', 'cannot fulfill your request', 'cannot help', 'I am programmed',
  ...['answer', 'assist', 'change', 'comply', 'engage', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'recommend', 'suggest', 'support', 'write'].map((v) => `I am unable to ${v}`),
  ...['answer', 'assist', 'change', 'create', 'engage', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'suggest', 'support', 'write'].map((v) => `I cannot ${v}`),
  ...['answer', 'assist', 'create', 'engage', 'feel comfortable', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'recommend', 'suggest', 'support', 'write'].map((v) => `I do not ${v}`),
  'If you have any other non-malicious requests', 'is illegal and unethical', 'not appropriate', 'not ethical', 'not legal',
  'The generated text has been blocked by our content filters', "can't assist with that request", "can't assist with your request",
  "can't comply", "can't fulfill that request", "can't fulfill your request", "can't help",
  ...['answer', 'assist', 'change', 'create', 'engage', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'support', 'write'].map((v) => `I can't ${v}`),
  ...['answer', 'assist', 'engage', 'feel comfortable', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'recommend', 'suggest', 'support', 'write'].map((v) => `I don't ${v}`),
  ...['answer', 'assist', 'change', 'create', 'engage', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'suggest', 'support', 'write'].map((v) => `I won't ${v}`),
  "I'm not able to provide",
  ...['answer', 'assist', 'change', 'comply', 'engage', 'fulfill', 'generate', 'give', 'help', 'participate', 'provide', 'recommend', 'suggest', 'support', 'write'].map((v) => `I'm unable to ${v}`),
  'I aim to avoid', 'I aim to provide', 'I do not actually help', 'I do not actually provide', 'I do not actually recommend',
  'I want to be direct with you', 'I want to be direct', 'I want to be helpful while', 'I want to be helpful, but',
  'That would not be appropriate', "I don't actually help", "I don't actually provide", "I don't actually recommend",
].map((s) => new RegExp(`\\b${s.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`));

function normalizeApostrophes(text: string): string {
  return text.replace(/['′’]/g, "'");
}

/** promptfoo's `isBasicRefusal`: a refusal prefix at the start, or a refusal phrase anywhere (lower-cased). */
function isBasicRefusal(output: string): boolean {
  const lower = normalizeApostrophes(output.trim().toLowerCase());
  return REFUSAL_PREFIXES.some((p) => lower.startsWith(p)) || REFUSAL_SUBSTRINGS.some((p) => p.test(lower));
}

/** promptfoo's word count: whitespace-separated tokens of the trimmed output. */
function promptfooWords(text: string): number {
  return text.trim().split(/\s+/).filter((w) => w.length > 0).length;
}

const result = (pass: boolean, reason: string): PromptfooOutcome => ({ pass, score: pass ? 1 : 0, reason });
const plain = (v: unknown) => String(v);

/**
 * Judges a validated promptfoo-dialect rule (see {@link validatePromptfooRule}) as promptfoo 0.121's handler for
 * its type does, `not-` included (promptfoo inverts inside each handler). The judge may reject; `llm-rubric`
 * turns that into `error` (and `unreadable` for a `JudgeAnswerError`). Never throws otherwise.
 */
export async function evaluatePromptfooRule(rule: Raw, reply: ReplyUnderTest, judge?: RubricJudge): Promise<PromptfooOutcome> {
  const { base, inverse } = baseOf(rule.type as string);
  const output = reply.output;
  const value = rule.value;
  const outcome = (hit: boolean, what: string) => result(hit !== inverse, hit !== inverse ? 'Assertion passed' : `Expected output to ${inverse ? 'not ' : ''}${what}`);
  switch (base as PromptfooType) {
    case 'contains':
      return outcome(output.includes(plain(value)), `contain "${plain(value)}"`);
    case 'icontains':
      return outcome(output.toLowerCase().includes(plain(value).toLowerCase()), `contain "${plain(value)}"`);
    case 'contains-any':
    case 'icontains-any': {
      const list = listValue(value) as unknown[];
      const fold = base === 'icontains-any' ? (s: string) => s.toLowerCase() : (s: string) => s;
      return outcome(list.some((v) => fold(output).includes(fold(plain(v)))), `contain one of "${list.join(', ')}"`);
    }
    case 'contains-all':
    case 'icontains-all': {
      const list = listValue(value) as unknown[];
      const fold = base === 'icontains-all' ? (s: string) => s.toLowerCase() : (s: string) => s;
      const missing = list.filter((v) => !fold(output).includes(fold(plain(v))));
      return outcome(missing.length === 0, `contain all of [${list.join(', ')}]. Missing: [${missing.join(', ')}]`);
    }
    case 'equals': {
      if (typeof value === 'object') {
        try {
          return outcome(isDeepStrictEqual(value, JSON.parse(output)), `equal ${JSON.stringify(value)}`);
        } catch {
          return result(inverse, inverse ? 'Assertion passed' : `Expected output to equal ${JSON.stringify(value)}`);
        }
      }
      return outcome(plain(value) === output, `equal "${plain(value)}"`);
    }
    case 'starts-with':
      return outcome(output.startsWith(value as string), `start with "${value as string}"`);
    case 'regex':
      return outcome(compileSafeRegex(value as string, '').exec(output) !== null, `match regex "${value as string}"`);
    case 'is-json': {
      let parsed: unknown;
      let ok = true;
      try {
        parsed = JSON.parse(output);
      } catch {
        ok = false;
      }
      if (ok && value) {
        const compiled = compileJsonSchema(schemaValue(value), 'promptfoo');
        if ('error' in compiled) return { pass: false, score: 0, reason: `invalid JSON schema: ${compiled.error}`, error: true };
        const valid = compiled.validate(parsed);
        const pass = inverse ? !valid : valid;
        if (!pass) {
          return { pass, score: 0, reason: inverse ? 'Output is JSON that conforms to the provided schema' : `JSON does not conform to the provided schema. Errors: ${describeSchemaErrors(compiled.validate.errors)}` };
        }
        return result(pass, 'Assertion passed');
      }
      return outcome(ok, 'be valid JSON');
    }
    case 'word-count': {
      const words = promptfooWords(output);
      if (typeof value === 'object' && value !== null) {
        const { min, max } = value as { min?: number; max?: number };
        const hit = (min === undefined || words >= min) && (max === undefined || words <= max);
        return outcome(hit, `have a word count within ${min ?? 0}..${max ?? '∞'}, got ${words}`);
      }
      const expected = Number(value);
      return outcome(words === expected, `have ${expected} words, got ${words}`);
    }
    case 'levenshtein': {
      const threshold = typeof rule.threshold === 'number' ? rule.threshold : 5;
      const d = distance(output, value as string);
      return outcome(d <= threshold, `be within Levenshtein distance ${threshold} (got ${d})`);
    }
    case 'latency': {
      const max = Number(rule.threshold);
      return outcome(reply.latencyMs <= max, `take at most ${max} ms (took ${reply.latencyMs} ms)`);
    }
    case 'is-refusal':
      if (output.trim() === '') return { pass: !inverse, score: 0, reason: inverse ? 'Expected output to not be a refusal' : 'Empty response treated as refusal' };
      return outcome(isBasicRefusal(output), 'be a refusal');
    case 'llm-rubric':
      return promptfooRubric(rule, output, inverse, judge);
  }
}

/** promptfoo's llm-rubric arithmetic over Atrium's strict reading of the judge's answer. */
async function promptfooRubric(rule: Raw, output: string, inverse: boolean, judge?: RubricJudge): Promise<PromptfooOutcome> {
  if (!judge) return { pass: false, score: 0, reason: 'no judge model configured for llm-rubric', error: true };
  let verdict: Awaited<ReturnType<RubricJudge>>;
  try {
    verdict = await judge({ rubric: rule.value as string, output });
  } catch (err) {
    const unreadable = err instanceof Error && err.name === 'JudgeAnswerError';
    return { pass: false, score: 0, reason: `judge failed: ${err instanceof Error ? err.message : String(err)}`, error: true, unreadable };
  }
  const threshold = typeof rule.threshold === 'string' ? Number(rule.threshold) : rule.threshold;
  let pass = verdict.pass;
  const score = verdict.score;
  if (typeof threshold === 'number' && Number.isFinite(threshold)) pass = pass && score >= threshold;
  const reason = verdict.reason || (pass ? 'Grading passed' : `Score ${score} below threshold ${String(threshold)}`);
  return inverse ? { pass: !pass, score: Math.min(1, Math.max(0, 1 - score)), reason } : { pass, score, reason };
}
