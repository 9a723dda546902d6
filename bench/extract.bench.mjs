/**
 * Benchmark: publishSiteArchive (src/deploy/deployments/site-publisher.ts) against system `tar -xzf`.
 *
 * Generates ~5,000 files / ~50 MB (nested folders, mixed sizes; text files compress about 3-4x, "images" are
 * random bytes) in a temp dir, packs them with `tar -czf`, then times the best of 3 runs of each extraction
 * into a fresh directory (runs interleaved, each after `sync`). Target for `POST /api/deploy` (spec: Endpoints):
 * publishSiteArchive at most 1.5x the time of tar -xzf.
 *
 * Run after building (`npx tsc -p tsconfig.build.json`):  node bench/extract.bench.mjs
 * SITE_PUBLISHER_MODULE=/abs/path/site-publisher.js overrides the compiled module to measure; TMPDIR=/dev/shm
 * takes the disk out of the measurement (on a busy disk both sides are dominated by I/O).
 * Prints milliseconds; exits 1 when the ratio is over 1.5.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const FILES = 5_000;
const TOTAL_BYTES = 50 * 1024 * 1024;
const RUNS = 3;
const TARGET_RATIO = 1.5;

const modulePath = process.env.SITE_PUBLISHER_MODULE
  ? pathToFileURL(process.env.SITE_PUBLISHER_MODULE).href
  : new URL('../dist/src/deploy/deployments/site-publisher.js', import.meta.url).href;
const { publishSiteArchive } = await import(modulePath);

// Deterministic layout (xorshift32) so runs are comparable; content bytes come from crypto.
let seed = 0x9e3779b9;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
};
const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua <div> </div> class="card" function return const let var { } ( ) ; margin: padding: 0px 1rem color: #fff'.split(' ');
const text = (size) => {
  const parts = [];
  let length = 0;
  while (length < size) {
    const word = WORDS[Math.floor(rand() * WORDS.length)] + (rand() < 0.1 ? '\n' : ' ');
    parts.push(word);
    length += word.length;
  }
  return Buffer.from(parts.join('')).subarray(0, size);
};

const work = mkdtempSync(join(tmpdir(), 'extract-bench-'));
try {
  const source = join(work, 'site');
  const dirs = [''];
  for (let i = 0; i < 150; i += 1) {
    const parent = dirs[Math.floor(rand() * dirs.length)];
    if (parent.split('/').length < 5) dirs.push(parent ? `${parent}/d${i}` : `d${i}`);
  }
  for (const dir of dirs) mkdirSync(join(source, dir), { recursive: true });

  // Mostly small files, some medium, a few large; scaled to TOTAL_BYTES.
  const weights = Array.from({ length: FILES }, () => {
    const r = rand();
    return r < 0.7 ? 500 + rand() * 5_500 : r < 0.95 ? 6_000 + rand() * 34_000 : 40_000 + rand() * 700_000;
  });
  const scale = TOTAL_BYTES / weights.reduce((a, b) => a + b, 0);
  let total = 0;
  weights.forEach((weight, i) => {
    const size = Math.max(1, Math.round(weight * scale));
    const binary = rand() < 0.35;
    const dir = dirs[Math.floor(rand() * dirs.length)];
    const name = `${binary ? 'img' : 'page'}-${i}.${binary ? 'png' : ['html', 'css', 'js', 'json'][i % 4]}`;
    writeFileSync(join(source, dir, name), binary ? randomBytes(size) : text(size));
    total += size;
  });
  const archive = join(work, 'site.tgz');
  execFileSync('tar', ['-czf', archive, '-C', source, '.']);
  const archiveBytes = Number(execFileSync('stat', ['-c', '%s', archive]).toString().trim());
  console.log(`fixture: ${FILES} files, ${(total / 1e6).toFixed(1)} MB in ${dirs.length} dirs; archive ${(archiveBytes / 1e6).toFixed(1)} MB`);

  const publish = async (dest) => {
    const site = await publishSiteArchive({
      archivePath: archive,
      sitesRoot: dest,
      namespace: 'bench',
      directoryName: 'site',
      limits: { maxEntries: 100_000, maxUnpackedBytes: 1024 * 1024 * 1024 },
    });
    if (site.fileCount !== FILES || site.bytes !== total) {
      throw new Error(`unexpected result ${JSON.stringify(site)} (want ${FILES} files, ${total} bytes)`);
    }
  };
  const contenders = [
    ['tar -xzf', (dest) => execFileSync('tar', ['-xzf', archive, '-C', dest])],
    ['publishSiteArchive', publish],
  ];
  // Interleaved, each after `sync`, so neither side pays for the other's dirty-page writeback.
  const times = new Map(contenders.map(([label]) => [label, []]));
  for (let i = 0; i < RUNS; i += 1) {
    for (const [label, run] of contenders) {
      const dest = join(work, `out-${i}-${times.get(label).length}-${label.length}`);
      mkdirSync(dest);
      execFileSync('sync');
      const start = performance.now();
      await run(dest);
      times.get(label).push(performance.now() - start);
      rmSync(dest, { recursive: true, force: true });
    }
  }
  const best = (label) => {
    const runs = times.get(label);
    console.log(`${label}: ${runs.map((t) => t.toFixed(0)).join(' / ')} ms (best ${Math.min(...runs).toFixed(0)} ms)`);
    return Math.min(...runs);
  };
  const tarMs = best('tar -xzf');
  const publishMs = best('publishSiteArchive');
  const ratio = publishMs / tarMs;
  console.log(`ratio publishSiteArchive / tar -xzf: ${ratio.toFixed(2)} (target <= ${TARGET_RATIO})`);
  if (ratio > TARGET_RATIO) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
