import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** The key a job's data carries its enqueuer's trace context under (W3C `traceparent`/`tracestate`). */
export const JOB_TRACE_KEY = '__trace';

/** Spans of Atrium's own code (jobs). */
const tracer = () => trace.getTracer('atrium');

/**
 * The current trace context as a W3C carrier, for a job's data (issue 15 item 2: "a job carries the trace of the
 * request that queued it"). Empty when tracing is off or nothing is being traced.
 */
export function currentTraceCarrier(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The active trace id (32 hex digits), for log lines; undefined when nothing is traced. */
export function currentTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, traceFlags } = span.spanContext();
  return traceFlags === undefined || /^0+$/.test(traceId) ? undefined : traceId;
}

/**
 * Runs one job attempt in a span `job <name>` (kind CONSUMER), a child of the trace its enqueuer carried; the span
 * records a failure and ends with the attempt. Without tracing it just runs `work`.
 * @param carrier the job data's {@link JOB_TRACE_KEY} value (anything else is ignored)
 */
export async function inJobSpan<T>(name: string, carrier: unknown, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  const headers = carrier && typeof carrier === 'object' ? (carrier as Record<string, unknown>) : {};
  const clean = Object.fromEntries(Object.entries(headers).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
  const parent = propagation.extract(ROOT_CONTEXT, clean);
  return tracer().startActiveSpan(`job ${name}`, { kind: SpanKind.CONSUMER, attributes: { 'messaging.system': 'pg-boss', 'messaging.destination.name': name, ...attributes } }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}
