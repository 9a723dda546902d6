import { Global, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { setTrigramSearch } from '../../database/like-contains';
import { ListPager } from './list-pager';

/**
 * Provides the one {@link ListPager} every wing's lists read their pages with (issue 23 item 1), and checks at start
 * what contains-search can rely on (item 2): whether `pg_trgm` is installed (else every term takes the
 * character/bigram index path), and whether the database's LC_CTYPE is UTF-8 — trigrams of Chinese text need it.
 * A server without either only earns a warning, never a refusal.
 */
@Global()
@Module({ providers: [ListPager], exports: [ListPager] })
export class PagingModule implements OnApplicationBootstrap {
  private readonly logger = new Logger('Search');

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    const [row] = (await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS trgm, datctype AS ctype, pg_encoding_to_char(encoding) AS encoding
         FROM pg_database WHERE datname = current_database()`,
    )) as Array<{ trgm: boolean; ctype: string; encoding: string }>;
    if (!row) return;
    setTrigramSearch(row.trgm);
    if (!row.trgm) this.logger.warn('pg_trgm is not installed: contains-searches use the character/bigram indexes for every term (CREATE EXTENSION pg_trgm to add trigram indexes).');
    if (!isUtf8Ctype(row.ctype, row.encoding)) {
      this.logger.warn(`The database's LC_CTYPE is "${row.ctype}" (encoding ${row.encoding}), not UTF-8: pg_trgm ignores Chinese and other non-ASCII letters, so such searches find their rows by the bigram index only. Create the database with a UTF-8 locale (e.g. LC_CTYPE C.UTF-8).`);
    }
  }
}

/** Whether a database's LC_CTYPE and encoding classify non-ASCII letters (UTF-8). */
export function isUtf8Ctype(ctype: string, encoding: string): boolean {
  return encoding.toUpperCase() === 'UTF8' && /utf-?8/i.test(ctype);
}
