#!/usr/bin/env node
// Our npm registry mirror serves only the Linux builds of platform-specific optional packages
// (@swc/core-*, @unrs/resolver-binding-*). `npm install` then leaves the other platforms out of
// package-lock.json and `npm ci` refuses the lockfile as out of sync. This adds a placeholder entry
// (version + os/cpu, no tarball) for each missing optional platform package; npm ci skips them
// because their os/cpu never match the machine that would need to download them.
// Run after every `npm install` that changes the lockfile: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony'];
const CPU = { arm64: 'arm64', x64: 'x64', ia32: 'ia32', arm: 'arm', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64' };

/** Reads os and cpu from a platform package name such as `@swc/core-linux-arm-gnueabihf`. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os || !cpu) return undefined;
  return { os: [os], cpu: [cpu] };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depPath = `node_modules/${dep}`;
    if (lock.packages[depPath]) continue;
    const platform = platformOf(dep);
    if (!platform) throw new Error(`${dep} (optional dependency of ${path}) is missing and is not a platform package`);
    lock.packages[depPath] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} placeholder platform entries`);
