import { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';

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
 * Creates the root pino logger: JSON lines on stdout (or `destination`) with secrets censored.
 * @param level pino level name (`info`, `debug`, … or `silent`)
 */
export function createRootLogger(level: string, destination?: pino.DestinationStream): Pino {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'atrium' } }, destination);
}

/** Nest's LoggerService on top of pino, so framework and app messages share one structured stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pinoLogger: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
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
