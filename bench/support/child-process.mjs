import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether a spawned child process is still running. A child ended by a signal (SIGTERM, the OOM killer's SIGKILL) has
 * `signalCode` set and `exitCode` null, so `exitCode === null` alone takes it for alive: a start-up wait then polls to
 * its limit, and a cleanup that waits for its 'exit' (already emitted) waits forever.
 * @param {import('node:child_process').ChildProcess} child
 * @returns {boolean}
 */
export function running(child) {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * The node flags `npm start` (and the Docker image) run the app with (`--max-old-space-size`, `--max-semi-space-size`),
 * read from package.json, so every bench measures the app as it runs in production.
 * @returns {string[]}
 */
export function appStartFlags() {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'));
  return manifest.scripts.start.split(' ').filter((word) => word.startsWith('--'));
}
