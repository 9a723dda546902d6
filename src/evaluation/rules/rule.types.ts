/**
 * Shapes of scenario-case rules (assertions) and their results. The rule list comes from the evaluation issue
 * ("Rules (assertions)"); evaluation-platform.md, Resources: Run records results per case and per rule.
 */

/** Every rule type without its `not-` prefix (issue: "Rules (assertions)"). */
export const BASE_RULE_TYPES = [
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'equals',
  'starts-with',
  'regex',
  'is-json',
  'json-schema',
  'word-count',
  'levenshtein',
  'latency',
  'is-refusal',
  'llm-rubric',
] as const;

/**
 * Types that accept the `not-` prefix. `latency` and `llm-rubric` have none: "not faster than N ms" is not a
 * useful check, and a judge already scores against a rubric the author can phrase negatively.
 */
export const NEGATABLE_RULE_TYPES = [
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'equals',
  'starts-with',
  'regex',
  'is-json',
  'json-schema',
  'word-count',
  'levenshtein',
  'is-refusal',
] as const satisfies readonly BaseRuleType[];

/** One of {@link BASE_RULE_TYPES}. */
export type BaseRuleType = (typeof BASE_RULE_TYPES)[number];

/** One of {@link NEGATABLE_RULE_TYPES}. */
export type NegatableRuleType = (typeof NEGATABLE_RULE_TYPES)[number];

/** A rule type as written in a scenario case: a base type, or `not-` + a negatable type (e.g. `not-contains`). */
export type RuleType = BaseRuleType | `not-${NegatableRuleType}`;

/** Every accepted value of `RuleDefinition.type`: the 14 base types, then the 12 `not-` forms. */
export const RULE_TYPES: readonly RuleType[] = [
  ...BASE_RULE_TYPES,
  ...NEGATABLE_RULE_TYPES.map((type) => `not-${type}` as const),
];

/**
 * A rule as stored (JSON) in a scenario case, e.g. `{ type: 'contains', value: 'refund', weight: 2 }` or
 * `{ type: 'not-contains', value: 'sorry' }` (issue: "Rules (assertions)"). Fields by type:
 *
 * | type | fields |
 * |---|---|
 * | `contains`, `icontains` | `value`: non-empty string, or a number (read as its text) |
 * | `starts-with` | `value`: non-empty string |
 * | `contains-any`, `contains-all` | `value`: non-empty array of non-empty strings, or a comma string `"a, b"`; `icase?`: boolean |
 * | `equals` | `value`: string (text compare) or any other JSON value (JSON compare) |
 * | `regex` | `value`: non-empty pattern (JavaScript syntax run on RE2: no backreferences or lookaround); `flags?`: `i` `m` `s` |
 * | `is-json` | `schema?` (or `value`): JSON Schema object |
 * | `json-schema` | `schema` (or `value`): JSON Schema object, required |
 * | `word-count` | `min?`, `max?`: integers >= 0, at least one |
 * | `levenshtein` | `value`: string; `threshold?`: max edit distance, integer >= 0, default 5 |
 * | `latency` | `threshold`: max latency in ms, >= 0, required |
 * | `is-refusal` | none |
 * | `llm-rubric` | `value`: non-empty rubric text; `threshold?`: minimum judge score in 0..1 |
 *
 * Every type takes `weight?` (>= 0, default 1; 0 = informational: reported, never decides the case), `locale?`
 * (BCP 47; case folding and word segmentation, e.g. `tr` for dotted/dotless i) and `normalize?` (`NFC` default,
 * `NFKC` folds full-width forms). `dialect: "promptfoo"` reads the rule in promptfoo's shape and semantics instead
 * (promptfoo-dialect.ts; `locale`/`normalize` do not apply). Unknown extra fields are ignored. The type is only a
 * compile-time hint: stored rules are checked with `validateRuleDefinition` before use (issue 24 items 1, 2, 4).
 */
export interface RuleDefinition {
  type: RuleType;
  value?: unknown;
  /** Share of the case's weighted score; >= 0, default 1. */
  weight?: number;
  /** `levenshtein`: max distance; `latency`: max ms; `llm-rubric`: minimum score 0..1. */
  threshold?: number;
  /** `word-count`: inclusive bounds. */
  min?: number;
  max?: number;
  /** `regex`: flags `i`, `m`, `s` (`u`, `g`, `y`, `d` are accepted and have no effect; others are refused). */
  flags?: string;
  /** `contains-any` / `contains-all`: compare case-insensitively. */
  icase?: boolean;
  /** `is-json` / `json-schema`: JSON Schema (draft-07, or 2020-12 by `$schema`); `value` is read when `schema` is absent. */
  schema?: unknown;
  /** `atrium` (default) or `promptfoo`: promptfoo 0.121's shape and semantics (issue 24 item 4). */
  dialect?: RuleDialect;
  /** BCP 47 tag for case folding (`tr`/`az`: Turkic i) and word segmentation; default: the scenario's `rule_defaults`. */
  locale?: string;
  /** Text normalisation before comparing: `NFC` (default) or `NFKC` (full-width and compatibility forms folded). */
  normalize?: 'NFC' | 'NFKC';
}

/** Rule dialects: Atrium's own reading, or promptfoo's (issue 24 item 4). */
export const RULE_DIALECTS = ['atrium', 'promptfoo'] as const;
export type RuleDialect = (typeof RULE_DIALECTS)[number];

/**
 * Scenario-level defaults for the Atrium dialect's text options, stored as `llm_config.rule_defaults` (issue 24
 * item 2): a rule's own `locale` / `normalize` win.
 */
export interface RuleDefaults {
  locale?: string;
  normalize?: 'NFC' | 'NFKC';
}

/**
 * Result of one rule against one reply (issue: "Rules (assertions)"; stored per rule, evaluation-platform.md,
 * What the service does). `type` is the rule's type as written (including `not-`), `score` is 0..1 (1 or 0 for
 * deterministic rules), `reason` is one readable sentence (for `llm-rubric`: the judge's reason), `weight` the
 * effective weight (1 when absent or invalid).
 */
export interface RuleResult {
  type: string;
  pass: boolean;
  score: number;
  reason: string;
  /** 0 = informational: reported, never decides the case (issue 24 item 1). */
  weight: number;
  /** The judge's answer held no readable verdict: the case is `errored` (judge failure), never `failed`. */
  errored?: boolean;
}

/** The target's reply to one case: its text and how long it took, in ms. */
export interface ReplyUnderTest {
  output: string;
  latencyMs: number;
}

/**
 * Judge for `llm-rubric`, injected by the caller (the run executor calls a model). Receives the rubric, the
 * reply text and the rule's optional `threshold` (0..1); returns `pass`, `score` (0..1), `reason` and the `scale`
 * the judge's raw score was read on. It may throw or reject; `evaluateRule` turns that into a failed result, or an
 * `errored` one for a `JudgeAnswerError` (unreadable answer). Timeouts are the caller's to enforce.
 */
export type RubricJudge = (input: {
  rubric: string;
  output: string;
  threshold?: number;
}) => Promise<{ pass: boolean; score: number; reason: string; scale?: '0-1' | '0-10' | '0-100' }>;
