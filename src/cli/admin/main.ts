#!/usr/bin/env node
import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../../app.config';
import { describeThrown } from '../../common/errors/describe-thrown';
import { ConfigurationError } from '../../config/app-config';
import { resealSecrets } from '../../database/sealed-columns';
import { sealerFor } from '../../database/secret-sealer-for';

/** Exit codes of `atrium-admin`: 0 done; 1 some values could not be opened (a key is missing); 2 usage, configuration or database error. */
export const EXIT_CODES = { ok: 0, incomplete: 1, error: 2 } as const;

/** Where the CLI writes and what it reads (tests pass their own; defaults: the real process). */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment read like the app's (DATABASE_URL, DATA_DIR, EMBEDDED_POSTGRES_PORT, ATRIUM_SECRET_KEY…). */
  env: NodeJS.ProcessEnv;
}

/**
 * Builds `atrium-admin`, the operator's tool for the whole process (not one wing):
 * - `secrets reseal [--json]`: reseals every stored third-party secret under ATRIUM_SECRET_KEY, opening old values
 *   with ATRIUM_SECRET_KEY_PREVIOUS (issue 19, item 6: key rotation; docs/secrets.md). Plain values left by an older
 *   version are sealed too. Idempotent: a second run finds nothing to do.
 * @param io output sinks and environment
 * @param setExitCode receives the exit code decided by a finished command
 */
export function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('atrium-admin')
    .description('Administration of an Atrium installation (all wings)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nThe database comes from the environment like the app: DATABASE_URL, else the embedded PostgreSQL under DATA_DIR\n' +
        "(the running app's server when it is up, or started for the command). Exit codes: 0 done, 1 values left unopened, 2 usage or database error.",
    );
  const secrets = program.command('secrets').description('third-party secrets sealed at rest');
  secrets
    .command('reseal')
    .description('reseal every stored secret under ATRIUM_SECRET_KEY (after a rotation, with the old key in ATRIUM_SECRET_KEY_PREVIOUS)')
    .option('--json', 'print the counts as JSON')
    .action(async (opts: { json?: boolean }) => {
      let config;
      try {
        config = loadConfig(io.env);
      } catch (error) {
        if (error instanceof ConfigurationError) throw new UsageError(error.message.replace(/\n\s*/g, ' '));
        throw error;
      }
      const sealer = await sealerFor(config, (message) => io.stderr(`atrium-admin: ${message}\n`));
      // Loaded on first use: usage errors and --help need no database driver or embedded server.
      const { openCliDatabase } = require('../cli-database') as typeof import('../cli-database');
      const database = await openCliDatabase(config, []).catch((error: unknown) => {
        throw new UsageError(`cannot open the database: ${describeThrown(error, { stack: false }).replace(/\n\s*/g, ' ')}`);
      });
      try {
        const report = await resealSecrets(database.dataSource, sealer, { rotate: true });
        const resealed = Object.values(report.resealed).reduce((sum, count) => sum + count, 0);
        const failed = Object.values(report.failed).reduce((sum, count) => sum + count, 0);
        if (opts.json) io.stdout(`${JSON.stringify({ keyId: sealer.current.id, ...report }, null, 2)}\n`);
        else {
          io.stdout(`Resealed ${resealed} secret(s) under key ${sealer.current.id}.\n`);
          for (const [column, count] of Object.entries(report.failed)) {
            io.stdout(`Could not open ${count} value(s) of ${column}: add the key they were sealed with to ATRIUM_SECRET_KEY_PREVIOUS and run again.\n`);
          }
        }
        setExitCode(failed ? EXIT_CODES.incomplete : EXIT_CODES.ok);
      } finally {
        await database.close();
      }
    });
  return program;
}

/** A usage, configuration or database problem found by the CLI itself (exit code 2). */
class UsageError extends Error {}

/**
 * Runs the CLI and resolves to its exit code ({@link EXIT_CODES}); it never calls `process.exit`. Any failure prints
 * `atrium-admin: <one-line reason>` on stderr, whatever was thrown.
 * @param argv full argv (node, script, args...)
 * @param io output sinks and environment (defaults: the real process)
 */
export async function run(argv: string[] = process.argv, io: Partial<CliIo> = {}): Promise<number> {
  const sinks: CliIo = {
    stdout: io.stdout ?? ((text) => void process.stdout.write(text)),
    stderr: io.stderr ?? ((text) => void process.stderr.write(text)),
    env: io.env ?? process.env,
  };
  let exitCode: number = EXIT_CODES.ok;
  try {
    await buildProgram(sinks, (code) => (exitCode = code)).parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.error;
    const message = describeThrown(error, { stack: false }).split(/\r?\n/)[0];
    sinks.stderr(`atrium-admin: ${error instanceof UsageError ? message : `unexpected error: ${message}`}\n`);
    return EXIT_CODES.error;
  }
}

if (require.main === module) {
  // embedded-postgres hooks `beforeExit` and exits with 0 itself, so the exit code is set by exiting explicitly.
  void run().then((code) => process.stdout.write('', () => process.exit(code)));
}
