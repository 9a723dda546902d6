import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** From this offset on, a page reads its ids first and then only those rows (see {@link ChatListPager.page}). */
export const DEFERRED_ROWS_MIN_OFFSET = 200;

/** The raw column that carries the total in a page's statement. */
const TOTAL_COLUMN = 'list_total';

/**
 * Reads one page of a chat list and its total (DESIGN.md, Request pipeline: paged lists; issue 5: "paged lists use
 * indexes and stay fast at a million rows").
 *
 * - Rows: the builder's ORDER BY must end with a unique tie-breaker (the id) and match an index. Far pages
 *   (offset >= {@link DEFERRED_ROWS_MIN_OFFSET}) read the page's ids alone in a subquery — an index-only scan when
 *   the index holds the filtered and sorted columns — and fetch just those rows by primary key, instead of fetching
 *   and discarding every skipped row.
 * - One statement (one PostgreSQL round trip) per page, rows and total together, unless the total is known.
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
   * One statement per page: the page's rows and, unless a cached or in-flight total serves, the total as a scalar
   * subquery of the same statement (each PostgreSQL round trip costs the app more CPU than the index reads of a
   * page). An empty far page reads its total on its own (the statement returned no row to carry it).
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
    const countBuilder = builder.clone().select('1').orderBy().offset(undefined).limit(undefined);
    const [countSql, countParameters] = countBuilder.getQueryAndParameters();
    const key = `${countSql}\u0000${JSON.stringify(countParameters)}`;
    const known = this.totals?.get(key) ?? this.countsInFlight.get(key);
    const statement = this.pageStatement(builder, entity, offset, paging.size);
    if (known !== undefined) {
      const [rows, total] = await Promise.all([statement.getMany(), known]);
      return { rows, total };
    }
    statement.addSelect(`(SELECT count(*)::int FROM (${countBuilder.getQuery()}) AS matching)`, TOTAL_COLUMN);
    const reading = statement.getRawAndEntities();
    const counting = reading.then(({ raw }) => (raw.length > 0 ? Number(raw[0][TOTAL_COLUMN]) : offset === 0 ? 0 : this.countAlone(builder, countSql, countParameters)));
    this.countsInFlight.set(key, counting);
    try {
      const [{ entities }, total] = await Promise.all([reading, counting]);
      if (total >= this.cacheMinRows) this.totals?.set(key, total);
      return { rows: entities, total };
    } finally {
      this.countsInFlight.delete(key);
    }
  }

  /**
   * The statement of a page's rows. Near pages: the builder with OFFSET/LIMIT. Far pages (offset >=
   * {@link DEFERRED_ROWS_MIN_OFFSET}): the rows whose id is among the page's ids, read first by the subquery alone —
   * an index-only scan when the index holds the filtered and sorted columns — instead of fetching and discarding
   * every skipped row; in the builder's order.
   */
  private pageStatement<T extends ObjectLiteral>(builder: SelectQueryBuilder<T>, entity: new () => T, offset: number, size: number): SelectQueryBuilder<T> {
    if (offset < DEFERRED_ROWS_MIN_OFFSET) return builder.clone().offset(offset).limit(size);
    const alias = builder.alias;
    const ids = builder.clone().select(`${alias}.id`).offset(offset).limit(size).getQuery();
    return builder.connection
      .getRepository(entity)
      .createQueryBuilder(alias)
      .where(`${alias}.id IN (${ids})`)
      .orderBy(builder.expressionMap.orderBys)
      .setParameters(builder.getParameters());
  }

  /** `count(*)` of the filtered rows in a statement of its own. */
  private async countAlone(builder: SelectQueryBuilder<ObjectLiteral>, countSql: string, parameters: unknown[]): Promise<number> {
    const [{ total }] = (await builder.connection.query(`SELECT count(*)::int AS total FROM (${countSql}) AS matching`, parameters)) as Array<{ total: number }>;
    return total;
  }
}
