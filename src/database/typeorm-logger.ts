import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * Sends TypeORM's messages to the app's structured log (never to the console). Failed queries are logged without
 * their parameters, which may hold user data or token hashes.
 */
export class TypeOrmNestLogger implements TypeOrmLogger {
  private readonly logger = new Logger('Database');

  logQuery(): void {
    // Successful queries are not logged: too many, and LOG_LEVEL=debug covers request timing.
  }
  logQueryError(error: string | Error, query: string): void {
    this.logger.error(`query failed: ${typeof error === 'string' ? error : error.message} — ${query.slice(0, 500)}`);
  }
  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${query.slice(0, 500)}`);
  }
  logSchemaBuild(message: string): void {
    this.logger.debug(message);
  }
  logMigration(message: string): void {
    this.logger.log(message);
  }
  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
