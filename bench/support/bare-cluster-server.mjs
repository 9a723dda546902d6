#!/usr/bin/env node
// bench/support/bare-list-server.mjs under node:cluster: WORKERS processes (default 2) share PORT, as ATRIUM_WORKERS
// does for the app. The reference of bench/workers.bench.mjs (issue 20 acceptance 4, restated in ISSUE-NOTES 20).
// Prints `listening` once every worker listens; SIGTERM stops the workers, then the primary.
//
//   DATABASE_URL=postgres://… PORT=… WORKERS=2 POOL_MAX=20 node bench/support/bare-cluster-server.mjs
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

const workers = Number(process.env.WORKERS ?? 2);
cluster.setupPrimary({ exec: fileURLToPath(new URL('./bare-list-server.mjs', import.meta.url)), silent: true });
let listening = 0;
cluster.on('listening', () => {
  if (++listening === workers) process.stdout.write('listening\n');
});
cluster.on('exit', (worker, code) => {
  if (!stopping) {
    process.stderr.write(`bare worker ${worker.process.pid} exited (${code})\n`);
    process.exit(1);
  }
});
let stopping = false;
for (let i = 0; i < workers; i++) cluster.fork();
process.once('SIGTERM', () => {
  stopping = true;
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
});
