/**
 * OpenTelemetry traces (issue 15 item 2), started before anything else is loaded: main.ts imports this file first,
 * so the HTTP, Express and pg instrumentations patch those modules before the app requires them. On only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (spans exported over OTLP/HTTP to `<endpoint>/v1/traces`); otherwise nothing is
 * loaded. Health probes and /metrics are not traced (polled every few seconds, they would drown the rest).
 *
 * No Express instrumentation: @opentelemetry/instrumentation-express 0.71 wraps the middleware layers in a way that
 * leaves the request stream unreadable for the JSON body gate, which reads bodies after authentication
 * (body-parsing.ts: every JSON request answered 400). The server span gets its route template and name
 * (`POST /api/runs`) from the request metrics middleware instead (metrics-http.ts).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
let running: { shutdown(): Promise<void> } | undefined;
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
if (endpoint && /^https?:\/\/\S+$/.test(endpoint)) {
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const untraced = (url: string | undefined) => url === '/metrics' || (url ?? '').startsWith('/api/health');
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || 'atrium',
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => untraced(request.url) }),
      // Only statements inside a traced request or job: pg-boss's polling would otherwise be most of the spans.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  running = sdk;
}

/** Sends the spans still buffered and stops tracing; main.ts calls it before exiting. Never throws. */
export async function shutdownTracing(): Promise<void> {
  await running?.shutdown().catch(() => undefined);
}
