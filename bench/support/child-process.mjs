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
