import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRubricJudge } from '../runs/rubric-judge';
import { caseVerdict } from './case-verdict';
import { evaluateRule, validateRuleDefinition } from './rule-evaluator';
import type { RuleDefinition } from './rule.types';

/**
 * Differential oracle, step 2 (issue 24 items 3 and 4): every case of scripts/conformance/promptfoo-cases.json run
 * through Atrium's rules, compared with promptfoo 0.121.20's verdicts in the committed golden file (written by
 * scripts/conformance/promptfoo-golden.mjs, which CI never runs). Each case agrees, or names its entry in
 * scripts/conformance/deliberate-differences.json (published in docs/evaluation-rules.md). In `dialect:
 * "promptfoo"` the only entries allowed are the two documented exceptions (`regex-re2`, `llm-rubric-strict`).
 */

interface Case {
  id: string;
  class: string;
  output: string;
  latencyMs?: number;
  threshold?: number;
  judge?: string;
  assert: Record<string, unknown>[];
  atrium?: Record<string, unknown>[];
}
interface Golden {
  id: string;
  pass?: boolean;
  score?: number;
  error?: string;
}
interface Difference {
  key: string;
  dialect: 'atrium' | 'promptfoo';
  rule: string;
  reason: string;
  cases: string[];
}
type Verdict = { kind: 'refused' } | { kind: 'errored' } | { kind: 'judged'; pass: boolean; score: number };

const DIR = join(__dirname, '../../../scripts/conformance');
const read = <T>(name: string): T => JSON.parse(readFileSync(join(DIR, name), 'utf8')) as T;
const { cases } = read<{ cases: Case[] }>('promptfoo-cases.json');
const golden = new Map(read<{ results: Golden[] }>('promptfoo-golden.json').results.map((r) => [r.id, r]));
const differences = read<{ differences: Difference[] }>('deliberate-differences.json').differences;

/** The two exceptions the promptfoo dialect may differ by (issue 24 item 4). */
const PROMPTFOO_EXCEPTIONS = new Set(['regex-re2', 'llm-rubric-strict']);

/** A promptfoo `assert` entry written as an Atrium-dialect rule (the shape an author would write by hand). */
export function toAtriumRule(assertion: Record<string, unknown>): Record<string, unknown> {
  const type = assertion.type as string;
  const negated = type.startsWith('not-');
  const base = negated ? type.slice(4) : type;
  const not = negated ? 'not-' : '';
  const { value, ...rest } = assertion;
  if (base === 'icontains-any' || base === 'icontains-all') return { ...rest, type: `${not}${base.slice(1)}`, value, icase: true };
  if (base === 'is-json') return value === undefined ? rest : { ...rest, schema: typeof value === 'string' ? (JSON.parse(value) as unknown) : value };
  if (base === 'word-count') {
    if (typeof value === 'object' && value !== null) return { ...rest, ...(value as object) };
    return { ...rest, min: Number(value), max: Number(value) };
  }
  return assertion;
}

function judgeFor(c: Case) {
  return createRubricJudge({ complete: async () => c.judge ?? '' });
}

async function atriumVerdict(c: Case, rules: Record<string, unknown>[]): Promise<Verdict> {
  if (rules.some((rule) => validateRuleDefinition(rule).length > 0)) return { kind: 'refused' };
  const results = await Promise.all(rules.map((rule) => evaluateRule(rule as unknown as RuleDefinition, { output: c.output, latencyMs: c.latencyMs ?? 100 }, judgeFor(c))));
  if (results.some((r) => r.errored)) return { kind: 'errored' };
  return { kind: 'judged', ...caseVerdict(results, c.threshold) };
}

function goldenVerdict(g: Golden): Verdict {
  return g.error !== undefined ? { kind: 'refused' } : { kind: 'judged', pass: g.pass as boolean, score: g.score as number };
}

function agrees(a: Verdict, b: Verdict, withScore: boolean): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind !== 'judged' || b.kind !== 'judged') return true;
  return a.pass === b.pass && (!withScore || Math.abs(a.score - Math.round(b.score * 10_000) / 10_000) < 1e-9);
}

const listed = (dialect: Difference['dialect']) => {
  const byCase = new Map<string, Difference>();
  for (const d of differences.filter((x) => x.dialect === dialect)) for (const id of d.cases) byCase.set(id, d);
  return byCase;
};

describe('conformance with promptfoo 0.121.20 (issue 24 items 3, 4)', () => {
  const disagreements: Record<Difference['dialect'], Map<string, { atrium: Verdict; promptfoo: Verdict }>> = { atrium: new Map(), promptfoo: new Map() };

  beforeAll(async () => {
    for (const c of cases) {
      const g = golden.get(c.id);
      if (!g) continue;
      const expected = goldenVerdict(g);
      const dialect = await atriumVerdict(c, c.assert.map((a) => ({ ...a, dialect: 'promptfoo' })));
      if (!agrees(dialect, expected, true)) disagreements.promptfoo.set(c.id, { atrium: dialect, promptfoo: expected });
      const own = await atriumVerdict(c, c.atrium ?? c.assert.map(toAtriumRule));
      if (!agrees(own, expected, false)) disagreements.atrium.set(c.id, { atrium: own, promptfoo: expected });
    }
  });

  it('has at least 200 cases, every one with a golden result, over every shared type', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => !golden.has(c.id)).map((c) => c.id)).toEqual([]);
    const types = new Set(cases.flatMap((c) => c.assert.map((a) => (a.type as string).replace(/^not-/, ''))));
    for (const type of ['contains', 'icontains', 'contains-any', 'contains-all', 'equals', 'starts-with', 'regex', 'is-json', 'word-count', 'levenshtein', 'latency', 'is-refusal', 'llm-rubric']) {
      expect([type, types.has(type)]).toEqual([type, true]);
    }
  });

  it.each(['atrium', 'promptfoo'] as const)('dialect %s: every disagreement is a listed deliberate difference, and every listed case disagrees', (dialect) => {
    const allowed = listed(dialect);
    const unlisted = [...disagreements[dialect]].filter(([id]) => !allowed.has(id)).map(([id, v]) => ({ id, ...v }));
    expect(unlisted).toEqual([]);
    const stale = [...allowed.keys()].filter((id) => !disagreements[dialect].has(id));
    expect(stale).toEqual([]);
  });

  it('promptfoo dialect: differences only in the two documented exceptions', () => {
    const kinds = differences.filter((d) => d.dialect === 'promptfoo').map((d) => d.key);
    expect(kinds.filter((k) => !PROMPTFOO_EXCEPTIONS.has(k))).toEqual([]);
  });

  it('docs/evaluation-rules.md publishes every deliberate difference, one line each', () => {
    const docs = readFileSync(join(__dirname, '../../../docs/evaluation-rules.md'), 'utf8');
    for (const d of differences) expect(docs).toContain(`- \`${d.key}\` (${d.dialect} dialect; ${d.rule}; ${d.cases.length} case`);
    for (const d of differences) expect(docs).toContain(d.reason);
  });

  it('each deliberate difference has a reason and a known rule', () => {
    for (const d of differences) {
      expect(d.reason.length).toBeGreaterThan(20);
      expect(d.cases.length).toBeGreaterThan(0);
    }
  });

  afterAll(() => {
    const byRule = (dialect: Difference['dialect']) =>
      Object.fromEntries(differences.filter((d) => d.dialect === dialect).map((d) => [d.key, d.cases.length]));
    const note = {
      cases: cases.length,
      atrium: { agreements: cases.length - disagreements.atrium.size, deliberate: byRule('atrium') },
      promptfooDialect: {
        agreements: cases.length - disagreements.promptfoo.size,
        exceptions: byRule('promptfoo'),
        differencesOutsideExceptions: [...disagreements.promptfoo.keys()].filter((id) => !listed('promptfoo').has(id)).length,
      },
    };
    process.stdout.write(`[conformance] ${JSON.stringify(note)}\n`);
    // CONFORMANCE_DUMP=<file> writes every disagreement, to review when the case file or a rule changes.
    if (process.env.CONFORMANCE_DUMP) {
      const dump = (d: Difference['dialect']) => [...disagreements[d]].map(([id, v]) => ({ id, ...v }));
      writeFileSync(process.env.CONFORMANCE_DUMP, JSON.stringify({ atrium: dump('atrium'), promptfoo: dump('promptfoo') }, null, 1));
    }
  });
});
