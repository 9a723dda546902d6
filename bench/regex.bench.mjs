/**
 * Benchmark: user regexes on the RE2 engine (src/common/regex/safe-regex.ts, issue 19 item 3 and acceptance 3).
 *
 * Times the three catastrophic-backtracking shapes `^(a+)+$`, `(a|aa)+$` and `(?:a|b|ab)*c` on 50,000-character
 * hostile and matching inputs (median of RUNS runs each, after a warm-up), against a reference measured in the same
 * run: a linear scan of the same input in JavaScript (a charCodeAt loop counting one character; `includes` is shown
 * too, but V8 runs it as a memchr-speed intrinsic). Also shows
 * V8's backtracking RegExp on `^(a+)+$` at small sizes, where each extra character doubles its time (it never ends on
 * 50,000). Prints milliseconds and ratios; exits 1 when any RE2 time exceeds MAX_MS (a block of the event loop that
 * long would be felt by /api/health).
 *
 * Run after building (`npx tsc -p tsconfig.build.json`):  node bench/regex.bench.mjs
 * SAFE_REGEX_MODULE=/abs/path/safe-regex.js overrides the compiled module to measure.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const RUNS = 15;
const MAX_MS = 200;
const modulePath = process.env.SAFE_REGEX_MODULE
  ? pathToFileURL(process.env.SAFE_REGEX_MODULE).href
  : new URL('../dist/src/common/regex/safe-regex.js', import.meta.url).href;
const { compileSafeRegex } = await import(modulePath);

const inputs = {
  'a×50000 + "!"': `${'a'.repeat(50_000)}!`,
  'a×50000': 'a'.repeat(50_000),
  'ab×25000': 'ab'.repeat(25_000),
  'ab×25000 + "c"': `${'ab'.repeat(25_000)}c`,
};
const patterns = ['^(a+)+$', '(a|aa)+$', '(?:a|b|ab)*c'];

/** Median of `RUNS` timings of `fn`, ms. */
function median(fn) {
  fn();
  const times = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** The reference: one linear pass over the text in JavaScript. */
function countA(text) {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 97) count += 1;
  return count;
}

let worst = 0;
console.log(`RE2 (re2js) vs a linear scan of the same input; median of ${RUNS} runs, ms`);
console.log('pattern            | input              | verdict | RE2 test | RE2 exec | JS loop | includes | test/loop | exec/loop');
for (const source of patterns) {
  const regex = compileSafeRegex(source);
  for (const [name, text] of Object.entries(inputs)) {
    const verdict = regex.test(text);
    const test = median(() => regex.test(text));
    const exec = median(() => regex.exec(text));
    const loop = median(() => countA(text));
    const includes = median(() => text.includes('\u0000'));
    worst = Math.max(worst, test, exec);
    const ratio = (value) => `${(value / loop).toFixed(1)}×`.padStart(9);
    console.log(`${source.padEnd(18)} | ${name.padEnd(18)} | ${String(verdict).padEnd(7)} | ${test.toFixed(3).padStart(8)} | ${exec.toFixed(3).padStart(8)} | ${loop.toFixed(3).padStart(7)} | ${includes.toFixed(3).padStart(8)} | ${ratio(test)} | ${ratio(exec)}`);
  }
}

console.log('\nV8 backtracking RegExp /^(a+)+$/ on "a"×n + "!" (for contrast; 50,000 never finishes), ms');
const nested = /^(a+)+$/;
for (const n of [16, 18, 20, 22, 24]) {
  const text = `${'a'.repeat(n)}!`;
  const start = performance.now();
  nested.test(text);
  console.log(`n=${n}: ${(performance.now() - start).toFixed(1)} ms; RE2 on the same: ${median(() => compileSafeRegex('^(a+)+$').test(text)).toFixed(3)} ms (compile included)`);
}

console.log(`\nworst RE2 time on 50,000 characters: ${worst.toFixed(2)} ms (limit ${MAX_MS} ms)`);
process.exit(worst > MAX_MS ? 1 : 0);
