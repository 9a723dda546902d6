#!/usr/bin/env node
/**
 * Differential oracle, step 1 (issue 24 item 3): runs every case of scripts/conformance/promptfoo-cases.json
 * through promptfoo's own assertion code and writes promptfoo's verdict and score per case to
 * scripts/conformance/promptfoo-golden.json (committed; CI reads only that file and never installs promptfoo).
 *
 * promptfoo 0.121.20 (the last release that runs on Node 20) is about 1.4 GB, so it is not a dependency: this
 * script installs it with npm into a temporary folder (PROMPTFOO_DIR, default /tmp/promptfoo-0.121.20; an
 * existing install there is reused). llm-rubric cases are graded by a local OpenAI-compatible judge server on
 * 127.0.0.1 that answers each case with its canned `judge` text (the case id is in the rubric).
 *
 * Usage: node scripts/conformance/promptfoo-golden.mjs   (then run the unit test src/evaluation/rules/conformance.spec.ts)
 * Exit codes: 0 written; 1 install or run failure (the message says which).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const VERSION = '0.121.20';
const here = dirname(fileURLToPath(import.meta.url));
const casesPath = join(here, 'promptfoo-cases.json');
const goldenPath = join(here, 'promptfoo-golden.json');
const prefix = process.env.PROMPTFOO_DIR ?? `/tmp/promptfoo-${VERSION}`;

function install() {
  const pkg = join(prefix, 'node_modules', 'promptfoo', 'package.json');
  if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version === VERSION) return;
  process.stdout.write(`installing promptfoo ${VERSION} into ${prefix} (about 1.4 GB)…\n`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `promptfoo@${VERSION}`], { stdio: 'inherit' });
}

/** An OpenAI-compatible chat endpoint answering each case's canned judge text, found by "[case <id>]" in the prompt. */
function startJudge(cases) {
  const answers = new Map(cases.filter((c) => c.judge !== undefined).map((c) => [c.id, c.judge]));
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const id = /\[case ([\w-]+)\]/.exec(body)?.[1];
      const content = answers.get(id) ?? 'no canned answer';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'judge', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  install();
  process.env.PROMPTFOO_DISABLE_TELEMETRY = '1';
  process.env.PROMPTFOO_CACHE_ENABLED = 'false';
  process.env.PROMPTFOO_DISABLE_UPDATE = '1';
  const require = createRequire(join(prefix, 'package.json'));
  const promptfoo = (await import(pathToFileURL(require.resolve('promptfoo')).href)).default;
  const { cases } = JSON.parse(readFileSync(casesPath, 'utf8'));
  const judge = await startJudge(cases);
  const provider = { id: 'openai:chat:judge', config: { apiBaseUrl: `http://127.0.0.1:${judge.address().port}/v1`, apiKey: 'conformance' } };
  const results = [];
  try {
    for (const c of cases) {
      const test = { vars: {}, assert: structuredClone(c.assert), options: { provider }, ...(c.threshold !== undefined && { threshold: c.threshold }) };
      try {
        const r = await promptfoo.assertions.runAssertions({ test, providerResponse: { output: c.output }, latencyMs: c.latencyMs ?? 100 });
        results.push({ id: c.id, pass: r.pass, score: r.score, components: (r.componentResults ?? []).map((x) => ({ pass: x.pass, score: x.score, graderError: x.metadata?.graderError === true })), reason: r.reason });
      } catch (err) {
        results.push({ id: c.id, error: String(err?.message ?? err).split('\n')[0] });
      }
    }
  } finally {
    judge.close();
  }
  writeFileSync(goldenPath, `${JSON.stringify({ promptfoo: VERSION, node: process.version, results }, null, 1)}\n`);
  const errors = results.filter((r) => r.error).length;
  process.stdout.write(`promptfoo ${VERSION}: ${results.length} cases, ${results.filter((r) => r.pass).length} pass, ${errors} refused (threw) → ${goldenPath}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`promptfoo-golden: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
