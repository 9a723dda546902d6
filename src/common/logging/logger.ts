import { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';
import { currentRequestId } from './request-context';
import { currentTraceId } from '../tracing/tracing';

/**
 * Paths pino censors in every log line: credentials in headers and in any logged object, at any of the first
 * three levels of nesting (DESIGN.md: secrets are never logged).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-registration-key"]',
  'res.headers["set-cookie"]',
  ...['token', 'password', 'registrationKey', 'apiKey', 'api_key', 'secret', 'ownerToken', 'authorization'].flatMap((key) => [
    key,
    `*.${key}`,
    `*.*.${key}`,
  ]),
];

/**
 * Whether logs are pretty (issue 15 item 4): only in development on a terminal; JSON lines everywhere else (files,
 * pipes, containers, production). Pure.
 */
export function wantsPrettyLogs(nodeEnv: string, isTty: boolean | undefined): boolean {
  return nodeEnv === 'development' && isTty === true;
}

/** pino-pretty as a synchronous stream: one short coloured line per entry, `[context] message`. */
function prettyStream(): pino.DestinationStream {
  // Loaded only when used (a TTY in development), so production never requires it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as (options: Record<string, unknown>) => pino.DestinationStream;
  return pretty({ colorize: true, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service,context', messageFormat: '{if context}[{context}] {end}{msg}' });
}

/**
 * Creates the root pino logger with secrets censored: JSON lines on stdout (or `destination`), or pretty lines when
 * `options.pretty` (see {@link wantsPrettyLogs}). A line written while serving a request carries its `requestId`
 * (request-context.ts), and a line written inside a traced span its `trace_id`.
 * @param level pino level name (`info`, `debug`, … or `silent`)
 */
export function createRootLogger(level: string, destination?: pino.DestinationStream, options: { pretty?: boolean } = {}): Pino {
  const stream = destination ?? (options.pretty ? prettyStream() : undefined);
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'atrium' },
      // The request's id and, when traced, the trace's id (issue 15 item 2), on every line.
      mixin: () => {
        const requestId = currentRequestId();
        const traceId = currentTraceId();
        return { ...(requestId ? { requestId } : {}), ...(traceId ? { trace_id: traceId } : {}) };
      },
    },
    stream,
  );
}

/**
 * Nest's start-up chatter, one line per module and route (about 400 lines): logged at `debug`, since the start-up
 * summary says what matters (issue 15 item 4).
 */
export const NEST_STARTUP_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/** Nest's LoggerService on top of pino, so framework and app messages share one structured stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pinoLogger: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && NEST_STARTUP_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  // Nest passes (message, context) or (message, stack, context).
  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? params[params.length - 1] : undefined;
    const stack = params.length > 1 && typeof params[0] === 'string' ? params[0] : undefined;
    const fields = { context, ...(stack ? { stack } : {}) };
    if (message instanceof Error) this.pinoLogger[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pinoLogger[level]({ ...fields, ...message });
    else this.pinoLogger[level](fields, String(message));
  }
}
