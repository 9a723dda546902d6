import { Injectable } from '@nestjs/common';
import type { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import type { ChannelReply, ChannelRequest, TargetChannel } from '../targets/channels';

/**
 * The evaluation wing's run metrics (issue 15 item 1): `atrium_evaluation_cases_total{status}` (every case run, by
 * its stored status `passed`/`failed`/`errored`), `atrium_evaluation_case_retries_total` (target sends repeated by
 * the retry rules) and `atrium_evaluation_runs_in_flight` (runs this process is executing now).
 */
@Injectable()
export class RunMetrics {
  private readonly cases: Counter<'status'>;
  private readonly retries: Counter;
  private readonly inFlight: Gauge;

  constructor(metrics: MetricsRegistry) {
    this.cases = metrics.counter({ name: 'atrium_evaluation_cases_total', help: 'Evaluation cases run, by status (passed, failed, errored).', labelNames: ['status'] });
    this.retries = metrics.counter({ name: 'atrium_evaluation_case_retries_total', help: 'Target sends repeated after a retryable error.' });
    this.inFlight = metrics.gauge({ name: 'atrium_evaluation_runs_in_flight', help: 'Evaluation runs this process is executing.' });
  }

  /** Counts one stored case result. */
  caseFinished(status: 'passed' | 'failed' | 'errored'): void {
    this.cases.inc({ status });
  }

  /** Runs `execute` counted as one run in flight. */
  async inFlightWhile<T>(execute: () => Promise<T>): Promise<T> {
    this.inFlight.inc();
    try {
      return await execute();
    } finally {
      this.inFlight.dec();
    }
  }

  /** `channel`, counting every send of a request it already sent once (sendWithRetry repeats the same request). */
  countingRetries(channel: TargetChannel): TargetChannel {
    const sent = new WeakSet<ChannelRequest>();
    return {
      send: (request: ChannelRequest): Promise<ChannelReply> => {
        if (sent.has(request)) this.retries.inc();
        else sent.add(request);
        return channel.send(request);
      },
    };
  }
}
