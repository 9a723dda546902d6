import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { In, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** From this offset on, a page reads its ids first and then only those rows (see {@link ChatListPager.page}). */
export const DEFERRED_ROWS_MIN_OFFSET = 200;

/**
 * Reads one page of a chat list and its total (DESIGN.md, Request pipeline: paged lists; issue 5: "paged lists use
 * indexes and stay fast at a million rows").
 *
 * - Rows: the builder's ORDER BY must end with a unique tie-breaker (the id) and match an index. Far pages
 *   (offset >= {@link DEFERRED_ROWS_MIN_OFFSET}) first read the page's ids alone — an index-only scan when the
 *   index holds the filtered and sorted columns — and then fetch just those rows by primary key, instead of
 *   fetching and discarding every skipped row.
 * - Total: `count(*)` of the filtered rows (no `COUNT(DISTINCT id)`: these queries join nothing). A total of at least
 *   CHAT_LIST_COUNT_CACHE_MIN_ROWS is reused for CHAT_LIST_COUNT_CACHE_TTL_MS per filter (same SQL and parameters),
 *   with one count in flight per filter: counting a hundred thousand index entries on every page turn is what made
 *   big lists slow, and a total that large is an estimate to its reader anyway. Smaller totals are always exact.
 */
@Injectable()
export class ChatListPager {
  private readonly totals?: LRUCache<string, number>;
  private readonly countsInFlight = new Map<string, Promise<number>>();
  private readonly cacheMinRows: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { countCacheTtlMs, countCacheMinRows } = config.chatLists;
    this.cacheMinRows = countCacheMinRows;
    if (countCacheTtlMs > 0) this.totals = new LRUCache({ max: 10_000, ttl: countCacheTtlMs });
  }

  /**
   * @param builder the filtered and ordered query of `entity` rows (no offset/limit set); not modified
   * @param entity the entity class (its primary key column is `id`)
   * @param paging page (from 0) and size
   * @returns the page's entities, in the builder's order, and the total number of matching rows
   */
  async page<T extends ObjectLiteral & { id: string }>(
    builder: SelectQueryBuilder<T>,
    entity: new () => T,
    paging: { page: number; size: number },
  ): Promise<{ rows: T[]; total: number }> {
    const offset = paging.page * paging.size;
    const [rows, total] = await Promise.all([this.rows(builder, entity, offset, paging.size), this.count(builder)]);
    return { rows, total };
  }

  private async rows<T extends ObjectLiteral & { id: string }>(builder: SelectQueryBuilder<T>, entity: new () => T, offset: number, size: number): Promise<T[]> {
    if (offset < DEFERRED_ROWS_MIN_OFFSET) return builder.clone().offset(offset).limit(size).getMany();
    const alias = builder.alias;
    const ids = (await builder.clone().select(`${alias}.id`, 'id').offset(offset).limit(size).getRawMany<{ id: string }>()).map((row) => row.id);
    if (ids.length === 0) return [];
    const found = await builder.connection.getRepository(entity).findBy({ id: In(ids) } as never);
    const position = new Map(ids.map((id, index) => [id, index]));
    return found.sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  }

  private async count(builder: SelectQueryBuilder<ObjectLiteral>): Promise<number> {
    const [innerSql, parameters] = builder.clone().select('1').orderBy().offset(undefined).limit(undefined).getQueryAndParameters();
    const sql = `SELECT count(*)::int AS total FROM (${innerSql}) AS matching`;
    const key = `${sql}\u0000${JSON.stringify(parameters)}`;
    const cached = this.totals?.get(key);
    if (cached !== undefined) return cached;
    const inFlight = this.countsInFlight.get(key);
    if (inFlight) return inFlight;
    const counting = (async () => {
      const [{ total }] = (await builder.connection.query(sql, parameters)) as Array<{ total: number }>;
      if (total >= this.cacheMinRows) this.totals?.set(key, total);
      return total;
    })().finally(() => this.countsInFlight.delete(key));
    this.countsInFlight.set(key, counting);
    return counting;
  }
}
