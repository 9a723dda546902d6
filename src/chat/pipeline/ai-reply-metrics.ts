import { Injectable } from '@nestjs/common';
import type { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';

/** How an AI reply ended, as the bounded `outcome` label. */
export type AiReplyOutcomeLabel = 'composed' | 'failed' | 'handed_off' | 'skipped';

/** Latency buckets from the inbound message to the reply, seconds (a model call takes seconds, retries minutes). */
const REPLY_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/**
 * The chat wing's AI reply metrics (issue 15 item 1): `atrium_ai_replies_total{outcome}` — `composed` (the reply was
 * written and handed to delivery), `failed` (gave up), `handed_off` (an intent rule passed the conversation to a
 * human), `skipped` — and `atrium_ai_reply_latency_seconds`, from the inbound message's arrival to the composed reply.
 */
@Injectable()
export class AiReplyMetrics {
  private readonly replies: Counter<'outcome'>;
  private readonly latency: Histogram;

  constructor(metrics: MetricsRegistry) {
    this.replies = metrics.counter({ name: 'atrium_ai_replies_total', help: 'AI replies ended, by outcome (composed, failed, handed_off, skipped).', labelNames: ['outcome'] });
    this.latency = metrics.histogram({ name: 'atrium_ai_reply_latency_seconds', help: 'From the inbound message to the composed AI reply, seconds.', buckets: REPLY_BUCKETS });
  }

  /**
   * Counts a reply state that ended.
   * @param status the stored final status (`sent`, `failed`, `intervened`, `skipped`)
   * @param ageSeconds seconds since the inbound message arrived (observed for `sent` only)
   */
  finished(status: 'sent' | 'intervened' | 'skipped' | 'failed', ageSeconds: number | undefined): void {
    const outcome: AiReplyOutcomeLabel = status === 'sent' ? 'composed' : status === 'intervened' ? 'handed_off' : status;
    this.replies.inc({ outcome });
    if (status === 'sent' && typeof ageSeconds === 'number' && Number.isFinite(ageSeconds) && ageSeconds >= 0) this.latency.observe(ageSeconds);
  }
}
