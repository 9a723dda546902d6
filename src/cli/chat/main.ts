#!/usr/bin/env node
import 'reflect-metadata';
import { ClusterEvents } from '../../common/cluster/cluster-events';
import { HttpException } from '@nestjs/common';
import { Command, CommanderError, Option } from 'commander';
import { parseScopeList, TENANT_CLIENT_SCOPES } from '../../chat/auth/chat-scopes';
import { OAuthClientsService } from '../../chat/auth/oauth-clients.service';
import { TENANT_STATUSES, TenantStatus } from '../../chat/tenants/tenant.entity';
import { TenantsService } from '../../chat/tenants/tenants.service';
import { loadConfig } from '../../app.config';
import { AppConfig, ConfigurationError } from '../../config/app-config';
import type { ChatCliDatabase } from './chat-database';
import { describeThrown } from '../../common/errors/describe-thrown';

/**
 * Exit codes of `atrium-chat`: 0 done; 1 refused (invalid or reserved tenant id, duplicate, unknown tenant or
 * client); 2 usage, configuration or database error.
 */
export const EXIT_CODES = { ok: 0, refused: 1, error: 2 } as const;

/** Where the CLI writes and what it reads (tests pass their own; defaults: the real process). */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment read like the app's (DATABASE_URL, DATA_DIR, EMBEDDED_POSTGRES_PORT, CHAT_*). */
  env: NodeJS.ProcessEnv;
}

/** A usage problem found by the CLI itself (exit code 2). */
class UsageError extends Error {}

/** The services a command works with, on a database opened for this one command. */
interface Session {
  config: AppConfig;
  tenants: TenantsService;
  clients: OAuthClientsService;
}

function resolveIo(io: Partial<CliIo>): CliIo {
  return {
    stdout: io.stdout ?? ((text) => void process.stdout.write(text)),
    stderr: io.stderr ?? ((text) => void process.stderr.write(text)),
    env: io.env ?? process.env,
  };
}

/**
 * Builds the `atrium-chat` command line, the platform administrator's tool for the chat wing (issue 5, Tenancy):
 *
 * - `tenant create <id> [--name <name>]`, `tenant list [--status s]`, `tenant disable <id>`, `tenant enable <id>`
 * - `client create --tenant <id> [--scopes chat:read,chat:write] [--name <label>]` and
 *   `client create --platform-admin [--name <label>]`: prints the client id and secret (shown only now)
 * - `client list [--tenant <id>] [--all]`, `client revoke <clientId>`
 *
 * Every command takes `--json`. The CLI talks to the database directly, configured from the environment like the app
 * (see {@link openChatDatabase} for DATABASE_URL and the embedded server).
 * @param io output sinks and environment
 * @param withSession opens the database for one command (tests may pass their own)
 */
export function buildProgram(io: CliIo, withSession: <T>(work: (session: Session) => Promise<T>) => Promise<T>): Command {
  const { stdout } = io;
  const print = (json: boolean | undefined, value: unknown, text: () => string) => stdout(json ? `${JSON.stringify(value, null, 2)}\n` : text());
  const program = new Command('atrium-chat')
    .description('Platform administration of the Atrium chat management service: tenants and OAuth2 clients')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nThe database comes from the environment like the app: DATABASE_URL, else the embedded PostgreSQL under DATA_DIR\n' +
        '(the running app\'s server when it is up, or started for the command). Exit codes: 0 done, 1 refused, 2 usage or database error.',
    );

  const tenant = program.command('tenant').description('create, list, disable and enable tenants');
  tenant
    .command('create <id>')
    .description('create a tenant; <id> is the slug of /api/{tenant}/... (lowercase letters, digits, hyphens; not a reserved path segment)')
    .option('--name <name>', 'display name (default: the id)')
    .option('--json', 'print the tenant as JSON')
    .action(async (id: string, opts: { name?: string; json?: boolean }) => {
      if (opts.name !== undefined && !/^\S.{0,199}$/s.test(opts.name.trim())) throw new UsageError('--name must be 1..200 characters');
      const created = await withSession(({ tenants }) => tenants.create({ id, name: opts.name ?? id }));
      print(opts.json, created, () => `Created tenant ${created.id} (${created.name}).\n`);
    });
  tenant
    .command('list')
    .description('list tenants')
    .addOption(new Option('--status <status>', 'only this status').choices([...TENANT_STATUSES]))
    .option('--json', 'print the tenants as JSON')
    .action(async (opts: { status?: TenantStatus; json?: boolean }) => {
      const found = await withSession(({ tenants }) => collectAll((page) => tenants.list({ page, size: 200, status: opts.status })));
      print(opts.json, found, () => (found.length ? found.map((t) => `${t.id.padEnd(24)} ${t.status.padEnd(9)} ${t.name}\n`).join('') : 'No tenants.\n'));
    });
  for (const [name, status] of [['disable', 'disabled'], ['enable', 'active']] as const) {
    tenant
      .command(`${name} <id>`)
      .description(name === 'disable' ? 'disable a tenant: its routes answer 403, its clients get no tokens (data kept)' : 'enable a disabled tenant')
      .option('--json', 'print the tenant as JSON')
      .action(async (id: string, opts: { json?: boolean }) => {
        const updated = await withSession(({ tenants }) => tenants.update(id, { status }));
        print(opts.json, updated, () => `Tenant ${updated.id} is ${updated.status}.\n`);
      });
  }

  const client = program.command('client').description('create, list and revoke OAuth2 clients of the built-in authorization server');
  client
    .command('create')
    .description('create a client and print its id and secret (the secret is shown only now)')
    .option('--tenant <id>', 'the tenant the client acts for')
    .option('--scopes <list>', `scopes of a tenant client, comma-separated (${TENANT_CLIENT_SCOPES.join(',')})`)
    .option('--platform-admin', 'a platform-admin client (scope platform:admin, no tenant)')
    .option('--name <label>', 'label to recognise the client by')
    .option('--json', 'print the client (with its secret) as JSON')
    .action(async (opts: { tenant?: string; scopes?: string; platformAdmin?: boolean; name?: string; json?: boolean }) => {
      if (Boolean(opts.tenant) === Boolean(opts.platformAdmin)) throw new UsageError('give either --tenant <id> or --platform-admin');
      if (opts.platformAdmin && opts.scopes) throw new UsageError('--scopes applies to tenant clients only (a platform-admin client has platform:admin)');
      let scopes: string[] | undefined;
      try {
        scopes = opts.scopes === undefined ? undefined : parseScopeList(opts.scopes, TENANT_CLIENT_SCOPES);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const { created, config } = await withSession(async ({ clients, config: sessionConfig }) => ({
        created: await clients.create({ tenantId: opts.tenant, platformAdmin: opts.platformAdmin, scopes, name: opts.name }),
        config: sessionConfig,
      }));
      const tokenUrl = `${config.chatAuth.publicUrl}/oauth/token`;
      print(opts.json, { ...created, tokenUrl }, () =>
        [
          `Created OAuth2 client ${created.clientId} ${created.tenantId ? `for tenant ${created.tenantId}` : '(platform admin)'}, scopes: ${created.scopes.join(' ')}`,
          `  client_id:     ${created.clientId}`,
          `  client_secret: ${created.clientSecret}`,
          '  (the secret is shown only now and stored as a hash: keep it in a secret store)',
          '',
          'Get an access token:',
          `  curl -s -u '${created.clientId}:<client_secret>' -d grant_type=client_credentials ${tokenUrl}`,
          ...(config.chatAuth.issuer ? ['', `Note: CHAT_OAUTH_ISSUER is set (${config.chatAuth.issuer}): the app accepts that issuer's tokens, not the built-in server's.`] : []),
          '',
        ].join('\n'),
      );
    });
  client
    .command('list')
    .description('list clients (never their secrets)')
    .option('--tenant <id>', 'only this tenant\'s clients')
    .option('--all', 'include revoked clients')
    .option('--json', 'print the clients as JSON')
    .action(async (opts: { tenant?: string; all?: boolean; json?: boolean }) => {
      const found = await withSession(({ clients }) => collectAll((page) => clients.list({ page, size: 200, tenantId: opts.tenant, includeRevoked: opts.all })));
      print(opts.json, found, () =>
        found.length
          ? found.map((c) => `${c.clientId}  ${(c.tenantId ?? '(platform)').padEnd(20)} ${c.scopes.join(' ').padEnd(22)} ${c.revokedAt ? 'revoked' : 'active '}  ${c.name}\n`).join('')
          : 'No clients.\n',
      );
    });
  client
    .command('revoke <clientId>')
    .description('revoke a client: no more tokens for it (issued ones live until they expire)')
    .action(async (clientId: string) => {
      await withSession(({ clients }) => clients.revoke(clientId));
      stdout(`Revoked ${clientId}.\n`);
    });
  return program;
}

/** Reads every page of a paged list. */
async function collectAll<T>(fetchPage: (page: number) => Promise<{ content: T[]; totalPages: number }>): Promise<T[]> {
  const all: T[] = [];
  for (let page = 0; ; page++) {
    const result = await fetchPage(page);
    all.push(...result.content);
    if (page + 1 >= result.totalPages) return all;
  }
}

/**
 * Runs the CLI and resolves to its exit code ({@link EXIT_CODES}); it never calls `process.exit`. Errors print
 * `atrium-chat: <reason>` on stderr. Secrets appear only in the output of `client create`.
 * @param argv full argv (node, script, args...)
 * @param io output sinks and environment (defaults: the real process)
 */
export async function run(argv: string[] = process.argv, io: Partial<CliIo> = {}): Promise<number> {
  const sinks = resolveIo(io);
  const withSession = async <T>(work: (session: Session) => Promise<T>): Promise<T> => {
    let config: AppConfig;
    try {
      config = loadConfig(sinks.env);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new UsageError(error.message.replace(/\n\s*/g, ' '));
      throw error;
    }
    let database: ChatCliDatabase;
    try {
      // Loaded on first use: usage errors and --help need no database driver or embedded server.
      const { openChatDatabase } = require('./chat-database') as typeof import('./chat-database');
      database = await openChatDatabase(config);
    } catch (error) {
      throw new UsageError(`cannot open the database: ${describeThrown(error, { stack: false }).replace(/\n\s*/g, ' ')}`);
    }
    try {
      return await work({ config, tenants: new TenantsService(database.dataSource, config, new ClusterEvents(database.dataSource)), clients: new OAuthClientsService(database.dataSource) });
    } finally {
      await database.close();
    }
  };
  try {
    await buildProgram(sinks, withSession).parseAsync(argv);
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.error;
    if (error instanceof HttpException) {
      sinks.stderr(`atrium-chat: ${error.message}\n`);
      return error.getStatus() >= 500 ? EXIT_CODES.error : EXIT_CODES.refused;
    }
    const message = describeThrown(error, { stack: false }).split(/\r?\n/)[0];
    sinks.stderr(`atrium-chat: ${error instanceof UsageError ? message : `unexpected error: ${message}`}\n`);
    return EXIT_CODES.error;
  }
}

if (require.main === module) {
  // embedded-postgres hooks `beforeExit` and exits with 0 itself, so the exit code is set by exiting explicitly
  // (once stdout has been written).
  void run().then((code) => process.stdout.write('', () => process.exit(code)));
}
