#!/usr/bin/env node
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { EvalApiClient, EvalApiError, type EvalApiKey } from './eval-api.client';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_TIMEOUT_MS, evaluateWithSkill, type SleepFn } from './skill';
import { describeThrown } from '../../common/errors/describe-thrown';

/**
 * Exit codes of `atrium-eval` (CI gates on them): 0 the run completed and met `--min-pass-rate`; 1 the run failed,
 * was cancelled, or its pass rate is under the minimum; 2 usage, configuration or HTTP errors; 3 timeout.
 */
export const EXIT_CODES = { ok: 0, failed: 1, error: 2, timeout: 3 } as const;

/**
 * Where the CLI writes and what it reads; every field is optional and defaults to the real process (tests inject
 * their own to capture output in-process).
 */
export interface CliIo {
  /** Receives stdout text (summary, JSON, help). Default: `process.stdout.write`. */
  stdout: (text: string) => void;
  /** Receives stderr text (progress lines, errors). Default: `process.stderr.write`. */
  stderr: (text: string) => void;
  /** Environment for EVAL_API_URL, EVAL_API_KEY and EVAL_SESSION_TOKEN. Default: `process.env`. */
  env: NodeJS.ProcessEnv;
  /** Wait between polls (tests). Default: a real timer. */
  sleep?: SleepFn;
  /** Aborts a running evaluation (exit code 2). */
  signal?: AbortSignal;
}

/** A usage or configuration problem found by the CLI itself (exit code 2). */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Options of the `run` command as commander parses them. */
interface RunCommandOptions {
  scenario: string;
  target: string;
  apiUrl?: string;
  apiKey?: string;
  pollInterval: number;
  timeout: number;
  minPassRate?: number;
  concurrency?: number;
  repeat?: number;
  json?: boolean;
}

/** Parses a positive integer option value (commander argParser). */
function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/** Parses a non-negative integer option value (commander argParser). */
function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

/** Parses a rate: a number in 0..1, or a percentage such as `80%`. */
function rate(value: string): number {
  const trimmed = value.trim();
  const isPercent = trimmed.endsWith('%');
  const text = isPercent ? trimmed.slice(0, -1) : trimmed;
  const number = /^\d+(\.\d+)?$|^\.\d+$/.test(text) ? Number(text) / (isPercent ? 100 : 1) : NaN;
  if (!(number >= 0 && number <= 1)) throw new InvalidArgumentError('must be a rate between 0 and 1 (or a percentage like 80%)');
  return number;
}

function resolveIo(io: Partial<CliIo>): CliIo {
  return {
    stdout: io.stdout ?? ((text) => void process.stdout.write(text)),
    stderr: io.stderr ?? ((text) => void process.stderr.write(text)),
    env: io.env ?? process.env,
    sleep: io.sleep,
    signal: io.signal,
  };
}

/**
 * Builds the `atrium-eval` command line, the command-line face of the skill client (evaluation-platform.md,
 * Events: "The skill client for assistants"), and `atrium-eval api-key create <name> [--admin] | list [--all] |
 * revoke <name>` for named API keys (issue 19 item 6; exit code 0, or 2 on any error). The run command:
 *
 * `atrium-eval run --scenario <id> --target <id> [--api-url URL] [--api-key KEY] [--poll-interval ms]
 * [--timeout ms] [--min-pass-rate rate] [--concurrency n] [--repeat n] [--json]`
 *
 * It creates the run with `triggered_by: cli`, waits for it (see {@link evaluateWithSkill}), prints the summary
 * text (or the result as JSON with `--json`) on stdout and reports the exit code ({@link EXIT_CODES}) through
 * `onExitCode`. The program never calls `process.exit`: commander's own exits are turned into thrown
 * `CommanderError`s (see {@link run}).
 * @param io output sinks and environment (defaults: the real process)
 * @param onExitCode receives the exit code decided by a finished `run` action
 */
export function buildProgram(io: Partial<CliIo> = {}, onExitCode: (code: number) => void = () => undefined): Command {
  const { stdout, stderr, env, sleep, signal } = resolveIo(io);
  const program = new Command('atrium-eval')
    .description('Run an evaluation scenario against a target on the Atrium evaluation platform and gate on the result')
    .exitOverride()
    .configureOutput({ writeOut: stdout, writeErr: stderr })
    .showHelpAfterError();

  program
    .command('run')
    .description('create a run (triggered_by: cli), wait for it, print the summary; exit code tells the outcome')
    .requiredOption('--scenario <id>', 'scenario id (UUID)')
    .requiredOption('--target <id>', 'target id (UUID)')
    .option('--api-url <url>', 'platform base URL (default: $EVAL_API_URL)')
    .option('--api-key <key>', 'API key sent as X-API-Key (default: $EVAL_API_KEY; $EVAL_SESSION_TOKEN is used when neither is set)')
    .option('--poll-interval <ms>', 'time between status polls, in ms', positiveInt, DEFAULT_POLL_INTERVAL_MS)
    .option('--timeout <ms>', 'give up waiting after this many ms (exit code 3)', nonNegativeInt, DEFAULT_TIMEOUT_MS)
    .option('--min-pass-rate <rate>', 'fail (exit code 1) when the pass rate is under this rate, 0..1 or e.g. 80%', rate)
    .option('--concurrency <n>', 'cases in flight at once', positiveInt)
    .option('--repeat <n>', 'times each case is run', positiveInt)
    .option('--json', 'print the result as JSON instead of the summary text')
    .addHelpText(
      'after',
      '\nExit codes: 0 completed (and pass rate >= --min-pass-rate), 1 run failed/cancelled or pass rate below the minimum,\n' +
        '2 usage, configuration or HTTP error, 3 timeout.',
    )
    .action(async (opts: RunCommandOptions) => {
      const apiUrl = opts.apiUrl ?? env.EVAL_API_URL;
      if (!apiUrl?.trim()) throw new UsageError('no API URL: pass --api-url or set EVAL_API_URL');
      const apiKey = opts.apiKey ?? (env.EVAL_API_KEY?.trim() || undefined);
      const sessionToken = env.EVAL_SESSION_TOKEN?.trim() || undefined;
      if (!apiKey && !sessionToken) throw new UsageError('no credentials: pass --api-key or set EVAL_API_KEY (or EVAL_SESSION_TOKEN)');

      const result = await evaluateWithSkill({
        apiUrl,
        apiKey,
        sessionToken,
        scenarioId: opts.scenario,
        targetId: opts.target,
        triggeredBy: 'cli',
        pollIntervalMs: opts.pollInterval,
        timeoutMs: opts.timeout,
        minPassRate: opts.minPassRate,
        concurrency: opts.concurrency,
        repeatCount: opts.repeat,
        sleep,
        signal,
        onStatus: (r) => stderr(`atrium-eval: run ${r.id} ${r.status}\n`),
      });
      const code = result.ok ? EXIT_CODES.ok : result.status === 'timeout' ? EXIT_CODES.timeout : EXIT_CODES.failed;
      if (opts.json) stdout(`${JSON.stringify({ ...result, exitCode: code }, null, 2)}\n`);
      else stdout(`${result.text}\n`);
      onExitCode(code);
    });

  const keys = program
    .command('api-key')
    .description('manage named API keys (needs a key with the admin right, e.g. one of EVAL_API_KEYS, or a session token)');
  const clientFor = (opts: { apiUrl?: string; apiKey?: string }) => {
    const apiUrl = opts.apiUrl ?? env.EVAL_API_URL;
    if (!apiUrl?.trim()) throw new UsageError('no API URL: pass --api-url or set EVAL_API_URL');
    const apiKey = opts.apiKey ?? (env.EVAL_API_KEY?.trim() || undefined);
    const sessionToken = env.EVAL_SESSION_TOKEN?.trim() || undefined;
    if (!apiKey && !sessionToken) throw new UsageError('no credentials: pass --api-key or set EVAL_API_KEY (or EVAL_SESSION_TOKEN)');
    return new EvalApiClient({ apiUrl, apiKey, sessionToken });
  };
  const describeKey = (key: EvalApiKey) =>
    `${key.name}\t${key.admin ? 'admin' : '-'}\t${key.source}\tcreated ${key.created_at}${key.created_by ? ` by ${key.created_by}` : ''}` +
    `\tlast used ${key.last_used_at ?? 'never'}${key.revoked_at ? `\trevoked ${key.revoked_at} by ${key.revoked_by}` : ''}`;
  const withConnection = (command: Command) =>
    command
      .option('--api-url <url>', 'platform base URL (default: $EVAL_API_URL)')
      .option('--api-key <key>', 'API key with the admin right, sent as X-API-Key (default: $EVAL_API_KEY; $EVAL_SESSION_TOKEN when neither is set)')
      .option('--json', 'print JSON');

  withConnection(keys.command('create <name>').description('create a named key and print it once (only its SHA-256 is kept)'))
    .option('--admin', 'the key may manage API keys too')
    .action(async (name: string, opts: { apiUrl?: string; apiKey?: string; admin?: boolean; json?: boolean }) => {
      const created = await clientFor(opts).createApiKey({ name, admin: opts.admin ?? false });
      if (opts.json) stdout(`${JSON.stringify(created, null, 2)}\n`);
      else stdout(`${created.key}\n`);
      stderr(`atrium-eval: API key "${created.name}" created${created.admin ? ' (admin)' : ''}; it is shown only now: store it in a secret store.\n`);
    });

  withConnection(keys.command('list').description('list named keys (never their values)'))
    .option('--all', 'also list revoked keys')
    .action(async (opts: { apiUrl?: string; apiKey?: string; all?: boolean; json?: boolean }) => {
      const page = await clientFor(opts).listApiKeys({ includeRevoked: opts.all ?? false });
      if (opts.json) stdout(`${JSON.stringify(page.content, null, 2)}\n`);
      else stdout(page.content.map((key) => `${describeKey(key)}\n`).join(''));
      if (page.totalPages > 1) stderr(`atrium-eval: showing the newest ${page.content.length} of ${page.totalElements} keys\n`);
    });

  withConnection(keys.command('revoke <name>').description('revoke a named key; it is refused from the next request on'))
    .action(async (name: string, opts: { apiUrl?: string; apiKey?: string; json?: boolean }) => {
      const revoked = await clientFor(opts).revokeApiKey(name);
      if (opts.json) stdout(`${JSON.stringify(revoked, null, 2)}\n`);
      else stdout(`${describeKey(revoked)}\n`);
    });

  return program;
}

/**
 * Runs the CLI in-process and resolves to its exit code ({@link EXIT_CODES}); it neither calls `process.exit` nor
 * sets `process.exitCode` (the bin entry does that). Usage, configuration and HTTP errors print
 * `atrium-eval: <one-line message>` on stderr (with `--json`, also `{ ok: false, exitCode: 2, error }` on stdout)
 * and give 2; `--help` gives 0. Messages never contain the API key or session token.
 * @param argv full argv (node, script, args...), default `process.argv`
 * @param io output sinks, environment, sleep and abort signal (defaults: the real process)
 */
export async function run(argv: string[] = process.argv, io: Partial<CliIo> = {}): Promise<number> {
  const sinks = resolveIo(io);
  let exitCode: number = EXIT_CODES.ok;
  try {
    await buildProgram(io, (code) => (exitCode = code)).parseAsync(argv);
    return exitCode;
  } catch (err) {
    // Commander already printed its own message (usage errors, help).
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.error;
    let message = describeThrown(err, { stack: false }).split(/\r?\n/)[0];
    for (const secret of [argValue(argv, '--api-key'), sinks.env.EVAL_API_KEY, sinks.env.EVAL_SESSION_TOKEN]) {
      if (secret) message = message.split(secret).join('[redacted]');
    }
    if (!(err instanceof EvalApiError || err instanceof UsageError || err instanceof RangeError)) message = `unexpected error: ${message}`;
    sinks.stderr(`atrium-eval: ${message}\n`);
    if (argv.includes('--json')) sinks.stdout(`${JSON.stringify({ ok: false, exitCode: EXIT_CODES.error, error: message }, null, 2)}\n`);
    return EXIT_CODES.error;
  }
}

/** The value of `--name value` or `--name=value` in argv (for redaction only). */
function argValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) return argv[i + 1];
    if (argv[i].startsWith(`${name}=`)) return argv[i].slice(name.length + 1);
  }
  return undefined;
}

if (require.main === module) {
  void run().then((code) => {
    process.exitCode = code;
  });
}
