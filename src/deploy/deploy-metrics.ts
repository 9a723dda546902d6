import { HttpException, Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsRegistry } from '../common/metrics/metrics.registry';

/** Why a deploy was refused, as a bounded `reason` label (the HTTP status class of the refusal). */
export type DeployRefusalReason = 'bad_archive' | 'forbidden' | 'too_large' | 'conflict' | 'unavailable' | 'error';

/**
 * The `reason` label of a refused deploy. Pure.
 * 400 → `bad_archive` (hostile or corrupt archive, missing field), 403 → `forbidden` (another namespace), 413 →
 * `too_large`, 409 → `conflict`, 503 → `unavailable`, anything else → `error`.
 */
export function deployRefusalReason(error: unknown): DeployRefusalReason {
  const status = error instanceof HttpException ? error.getStatus() : 500;
  return status === 400 ? 'bad_archive' : status === 403 ? 'forbidden' : status === 413 ? 'too_large' : status === 409 ? 'conflict' : status === 503 ? 'unavailable' : 'error';
}

/** How an exec call ended, as a bounded `outcome` label. */
export type ExecOutcome = 'exit_zero' | 'exit_nonzero' | 'timed_out' | 'killed' | 'refused' | 'invalid' | 'unavailable' | 'error';

/**
 * The `outcome` label of an exec call. Pure.
 * @param result the command's result when it ran, else undefined
 * @param error what was thrown when it didn't (403 → `refused`, 400 → `invalid`, 503 → `unavailable`, else `error`)
 */
export function execOutcome(result: { exitCode: number | null; timedOut: boolean } | undefined, error?: unknown): ExecOutcome {
  if (result) return result.timedOut ? 'timed_out' : result.exitCode === null ? 'killed' : result.exitCode === 0 ? 'exit_zero' : 'exit_nonzero';
  const status = error instanceof HttpException ? error.getStatus() : 500;
  return status === 403 ? 'refused' : status === 400 ? 'invalid' : status === 503 ? 'unavailable' : 'error';
}

/**
 * The deployment gateway's metrics (issue 15 item 1): `atrium_deploys_total`, `atrium_deploy_bytes_total`,
 * `atrium_deploy_files_total`, `atrium_deploy_refusals_total{reason}` and `atrium_exec_calls_total{outcome}`.
 */
@Injectable()
export class DeployMetrics {
  private readonly deploys: Counter;
  private readonly bytes: Counter;
  private readonly files: Counter;
  private readonly refusals: Counter<'reason'>;
  private readonly execCalls: Counter<'outcome'>;

  constructor(metrics: MetricsRegistry) {
    this.deploys = metrics.counter({ name: 'atrium_deploys_total', help: 'Sites published.' });
    this.bytes = metrics.counter({ name: 'atrium_deploy_bytes_total', help: 'Unpacked bytes of the sites published, bytes.' });
    this.files = metrics.counter({ name: 'atrium_deploy_files_total', help: 'Files of the sites published.' });
    this.refusals = metrics.counter({ name: 'atrium_deploy_refusals_total', help: 'Deploys refused, by reason.', labelNames: ['reason'] });
    this.execCalls = metrics.counter({ name: 'atrium_exec_calls_total', help: 'Exec calls, by outcome.', labelNames: ['outcome'] });
  }

  /** Runs one deploy and counts it (published with its bytes and files, or refused with its reason); rethrows. */
  async deploy<T extends { bytes: number; fileCount: number }>(publish: () => Promise<T>): Promise<T> {
    try {
      const result = await publish();
      this.deploys.inc();
      this.bytes.inc(result.bytes);
      this.files.inc(result.fileCount);
      return result;
    } catch (error) {
      this.refusals.inc({ reason: deployRefusalReason(error) });
      throw error;
    }
  }

  /** Runs one exec call and counts its outcome; rethrows. */
  async exec<T extends { exitCode: number | null; timedOut: boolean }>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.execCalls.inc({ outcome: execOutcome(result) });
      return result;
    } catch (error) {
      this.execCalls.inc({ outcome: execOutcome(undefined, error) });
      throw error;
    }
  }
}
