#!/usr/bin/env node
import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import * as path from 'node:path';
import { ConfigError, configFromEnv, normalizeApiUrl, readConfig, resolveConfigPath, writeConfig } from './client-config';
import { DeployApiClient, type ProgressListener } from './deploy-api.client';
import { deploySiteDirectory } from './deploy-site';
import { packSiteDirectory } from './site-packer';
import { describeThrown } from '../../common/errors/describe-thrown';

/** Parses a non-negative integer option value (commander argParser). */
function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

/** Parses a comma-separated permission list (commander argParser). */
function permissionList(value: string): string[] {
  const list = value.split(',').map((item) => item.trim()).filter(Boolean);
  const unknown = list.filter((item) => !['deploy', 'exec', 'list', 'delete'].includes(item));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown permission(s): ${unknown.join(', ')}`);
  return list;
}

/**
 * A client for the owner's commands: the owner token from DEPLOY_OWNER_TOKEN (never an argument, which `ps` would
 * show), the gateway from DEPLOY_API_URL or else the config file's apiUrl.
 * @throws ConfigError when the token or the URL is missing
 */
async function ownerClient(): Promise<DeployApiClient> {
  const ownerToken = process.env.DEPLOY_OWNER_TOKEN?.trim();
  if (!ownerToken) throw new ConfigError('environment variable DEPLOY_OWNER_TOKEN is required for owner commands but not set');
  const apiUrl = process.env.DEPLOY_API_URL?.trim()
    ? normalizeApiUrl(process.env.DEPLOY_API_URL.trim())
    : (await readConfig(resolveConfigPath()).catch(() => {
        throw new ConfigError('set DEPLOY_API_URL (or write a config file with init-config) to reach the gateway');
      })).apiUrl;
  return DeployApiClient.forOwner(apiUrl, ownerToken);
}

/** Prints a JSON document (used by --json). */
function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/**
 * Upload progress bar on stderr, only when stderr is a TTY (pipes and CI logs stay clean).
 * Returns a listener for the API client (or undefined) and a stop function.
 */
function uploadProgress(enabled: boolean): { onProgress?: ProgressListener; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { stop: () => undefined };
  const bar = new SingleBar(
    { stream: process.stderr, format: 'uploading [{bar}] {percentage}% | {sentMb}/{totalMb} MB', hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  const mb = (n: number) => (n / 1048576).toFixed(1);
  return {
    onProgress: (loaded, total) => {
      const size = total ?? loaded;
      const payload = { sentMb: mb(loaded), totalMb: mb(size) };
      if (!started) {
        bar.start(size, loaded, payload);
        started = true;
      } else {
        bar.setTotal(size);
        bar.update(loaded, payload);
      }
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

/**
 * Builds the `atrium-deploy` command line (deployment-gateway.md, Client scripts): init-config, register, deploy,
 * pack, exec, upload, list, delete, health, the owner's join grant commands grant, grants and revoke-grant (issue 12,
 * item 3), plus the global `--json` flag. Actions throw on failure; {@link run}
 * turns that into a one-line message and exit code 1.
 */
export function buildProgram(): Command {
  const program = new Command('atrium-deploy')
    .description('Client for the Atrium deployment gateway')
    .option('--json', 'print raw JSON results instead of friendly text')
    .showHelpAfterError();
  const json = () => Boolean(program.opts().json);
  const client = () => DeployApiClient.fromConfigFile(resolveConfigPath());

  program
    .command('init-config')
    .description('write the config file from DEPLOY_API_URL, DEPLOY_REGISTRATION_KEY, DEPLOY_AGENT_ID, DEPLOY_INSTANCE_NAME')
    .action(async () => {
      const file = resolveConfigPath();
      const config = configFromEnv(process.env);
      await writeConfig(file, config);
      if (json()) printJson({ configPath: file, apiUrl: config.apiUrl, agentId: config.agentId });
      else console.log(`Config written to ${file} (not registered yet; registration runs on first use)`);
    });

  program
    .command('register')
    .description('register this agent and store its token in the config (with a stored token: rotate it)')
    .option('--contact-id <id>', 'namespace (contactId) to bind to the token')
    .option('--join-grant <code>', "the owner's one-time join code, to join a namespace another agent claimed")
    .action(async (opts: { contactId?: string; joinGrant?: string }) => {
      const { token: _token, ...safe } = await (await client()).register(opts.contactId, { joinGrant: opts.joinGrant });
      if (json()) printJson(safe);
      else console.log(`Registered; token ${safe.tokenPrefix}… with permissions: ${safe.permissions.join(', ') || '(none)'}`);
    });

  program
    .command('deploy <dir>')
    .description('pack a project directory and publish it')
    .requiredOption('--name <project>', 'project name')
    .requiredOption('--namespace <contactId>', 'namespace (contactId) to deploy into')
    .action(async (dir: string, opts: { name: string; namespace: string }) => {
      const api = await client();
      const progress = uploadProgress(!json());
      let result;
      try {
        result = await deploySiteDirectory(api, dir, {
          projectName: opts.name,
          contactId: opts.namespace,
          onProgress: progress.onProgress,
        });
      } finally {
        progress.stop();
      }
      const d = result.deployment;
      if (json()) return printJson(d);
      console.log(`Deployed ${d.projectName} to namespace ${d.contactId}`);
      console.log(`  URL:       ${d.url}`);
      console.log(`  directory: ${d.directoryName}`);
      console.log(`  files:     ${d.fileCount ?? result.pack.fileCount}`);
      console.log(`  elapsed:   ${result.elapsedSeconds.toFixed(1)}s`);
    });

  program
    .command('pack <dir>')
    .description('pack a directory into a .tar.gz (skips .git and node_modules)')
    .option('-o, --output <file>', 'archive path (default: <dir name>.tar.gz)')
    .action(async (dir: string, opts: { output?: string }) => {
      const out = opts.output ?? `${path.basename(path.resolve(dir))}.tar.gz`;
      const result = await packSiteDirectory(dir, out);
      if (json()) printJson(result);
      else console.log(`Packed ${result.fileCount} files (${result.bytes} bytes) into ${result.file}`);
    });

  program
    .command('exec <command>')
    .description('run a command on the server (quote it as one argument); exits with its exit code')
    .option('--timeout <ms>', 'timeout in milliseconds', nonNegativeInt)
    .option('--cwd <dir>', 'working directory on the server')
    .action(async (command: string, opts: { timeout?: number; cwd?: string }) => {
      const result = await (await client()).exec(command, { cwd: opts.cwd, timeoutMs: opts.timeout });
      if (json()) {
        printJson(result);
      } else {
        if (result.stdout) process.stdout.write(result.stdout);
        if (result.stderr) process.stderr.write(result.stderr);
        if (result.stdoutTruncated || result.stderrTruncated) console.error('[output truncated by the server]');
        if (result.timedOut) console.error(`[timed out after ${result.durationMs} ms]`);
        else if (result.signal) console.error(`[killed by ${result.signal}]`);
      }
      // Mirror the remote result so scripts can test it; 124 is the usual "timed out" code.
      if (result.exitCode !== 0) process.exitCode = result.timedOut ? 124 : result.exitCode || 1;
    });

  program
    .command('upload <file> <remotePath>')
    .description("upload a file into this agent's namespace workspace (path relative to it, or absolute inside it)")
    .action(async (file: string, remotePath: string) => {
      const api = await client();
      const progress = uploadProgress(!json());
      let result;
      try {
        result = await api.upload(file, remotePath, { onProgress: progress.onProgress });
      } finally {
        progress.stop();
      }
      if (json()) printJson(result);
      else console.log(`Uploaded ${result.bytes} bytes to ${result.path} (sha256 ${result.sha256})`);
    });

  program
    .command('list')
    .description("list this agent's deployments")
    .option('--page <n>', 'zero-based page', nonNegativeInt, 0)
    .option('--size <n>', 'page size', nonNegativeInt, 20)
    .action(async (opts: { page: number; size: number }) => {
      const page = await (await client()).listDeployments(opts);
      if (json()) return printJson(page);
      if (page.content.length === 0) console.log('No deployments.');
      for (const d of page.content) console.log(`${d.id}  ${d.deployedAt}  ${d.directoryName}  ${d.url}`);
      console.log(`page ${page.page + 1}/${Math.max(page.totalPages, 1)}, ${page.totalElements} total`);
    });

  program
    .command('delete <id>')
    .description('delete a deployment and its files')
    .action(async (id: string) => {
      await (await client()).deleteDeployment(id);
      if (json()) printJson({ id, deleted: true });
      else console.log(`Deleted deployment ${id}`);
    });

  program
    .command('grant <namespace>')
    .description('owner: issue a one-time join grant letting one more agent register into <namespace> (needs DEPLOY_OWNER_TOKEN)')
    .option('--ttl <ms>', 'lifetime in milliseconds (default: the server\'s DEPLOY_JOIN_GRANT_TTL_MS)', nonNegativeInt)
    .option('--note <text>', 'who the grant is for (shown in the grant list)')
    .option('--permissions <list>', 'cap the joining agent\'s permissions, e.g. deploy,list', permissionList)
    .action(async (namespace: string, opts: { ttl?: number; note?: string; permissions?: string[] }) => {
      const grant = await (await ownerClient()).issueJoinGrant(namespace, { ttlMs: opts.ttl, note: opts.note, permissions: opts.permissions });
      if (json()) return printJson(grant);
      console.log(`Join grant ${grant.prefix} for namespace ${grant.namespace}, usable once until ${grant.expiresAt}:`);
      console.log(`  ${grant.code}`);
      console.log(`The code is shown only now. The joining agent runs:`);
      console.log(`  atrium-deploy register --contact-id ${grant.namespace} --join-grant <code>`);
    });

  program
    .command('grants <namespace>')
    .description("owner: list a namespace's join grants and their states (needs DEPLOY_OWNER_TOKEN)")
    .option('--page <n>', 'zero-based page', nonNegativeInt, 0)
    .option('--size <n>', 'page size', nonNegativeInt, 20)
    .action(async (namespace: string, opts: { page: number; size: number }) => {
      const page = await (await ownerClient()).listJoinGrants(namespace, opts);
      if (json()) return printJson(page);
      if (page.content.length === 0) console.log('No join grants.');
      for (const g of page.content) console.log(`${g.prefix}  ${g.state.padEnd(7)}  expires ${g.expiresAt}${g.usedByAgentId ? `  used by ${g.usedByAgentId}` : ''}${g.note ? `  (${g.note})` : ''}`);
    });

  program
    .command('revoke-grant <namespace> <prefix>')
    .description('owner: revoke an unused join grant (needs DEPLOY_OWNER_TOKEN)')
    .action(async (namespace: string, prefix: string) => {
      await (await ownerClient()).revokeJoinGrant(namespace, prefix);
      if (json()) printJson({ namespace, prefix, revoked: true });
      else console.log(`Revoked join grant ${prefix} of ${namespace}`);
    });

  program
    .command('health')
    .description('check the gateway health (no token needed)')
    .action(async () => {
      const health = await (await client()).health();
      if (json()) printJson(health);
      else console.log(`${health.status} (database: ${health.database})`);
    });

  return program;
}

/**
 * Runs the CLI. Any failure prints `atrium-deploy: <one-line message>` on stderr (no stack trace) and sets exit code 1.
 * @param argv full process argv (node, script, args...)
 */
export async function run(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    console.error(`atrium-deploy: ${describeThrown(err, { stack: false }).split(/\r?\n/)[0]}`);
    process.exitCode = 1;
  }
}

if (require.main === module) void run();
