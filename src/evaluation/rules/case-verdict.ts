import type { RuleResult } from './rule.types';

// Weighted means like 0.7 come out as 0.69999…; a threshold met up to rounding noise counts as met.
const EPSILON = 1e-9;

/**
 * Verdict of one scenario case from its rule results (issue: "A case passes when all its rules pass, or when its
 * weighted score reaches its `threshold` if it sets one").
 *
 * - `score`: weighted mean of the rule scores, `Σ(weight·score) / Σ weight`, 0..1 rounded to 4 decimals. When all
 *   weights are 0 it is the plain mean (weights then say nothing); with no rules it is 1.
 * - `pass`: without `threshold`, every rule of weight > 0 passed: a weight-0 rule is informational, reported but
 *   never deciding the case, as in promptfoo (issue 24 item 1); with `threshold` (0..1), `score >= threshold`
 *   regardless of individual rules. No rules, or only weight-0 rules → pass.
 *
 * Throws `RangeError` when `threshold` is given but is not a number in 0..1 (the scenario DTO should refuse such
 * a case before a run starts).
 */
export function caseVerdict(results: RuleResult[], threshold?: number): { pass: boolean; score: number } {
  if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold <= 1)) {
    throw new RangeError(`case threshold must be a number between 0 and 1, got ${String(threshold)}`);
  }
  if (results.length === 0) return { pass: true, score: 1 };

  const totalWeight = results.reduce((sum, r) => sum + r.weight, 0);
  const score =
    totalWeight > 0
      ? results.reduce((sum, r) => sum + r.weight * r.score, 0) / totalWeight
      : results.reduce((sum, r) => sum + r.score, 0) / results.length;
  const pass = threshold === undefined ? results.every((r) => r.pass || r.weight === 0) : score + EPSILON >= threshold;
  return { pass, score: Math.round(score * 10_000) / 10_000 };
}
