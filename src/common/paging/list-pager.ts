import { Inject, Injectable, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { randomBytes } from 'node:crypto';
import type { FindOptionsWhere, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { secretSealer } from '../crypto/secret-sealer';
import { cursorKeyOf, listFingerprint, openCursor, signCursor } from './cursor';
import { keysetPhases, type OrderKey } from './keyset.rules';

/** From this offset on, an offset page reads its ids first and then only those rows (see {@link ListPager.page}). */
export const DEFERRED_ROWS_MIN_OFFSET = 200;

/** The raw column that carries the capped count in a page's statement. */
const TOTAL_COLUMN = 'list_total';
/** Raw columns carrying the page's sort key values as text: `list_key_0`, `list_key_1`, … */
const KEY_COLUMN = 'list_key_';

/** What a list request asks for: `page`/`size` (the spec's paging) and, instead of `page`, an opaque `cursor`. */
export interface PageRequest {
  page: number;
  size: number;
  cursor?: string;
}

/** One page as read by {@link ListPager}: its rows and what the page envelope says about the list. */
export interface ListSlice<T> {
  rows: T[];
  /** The page number (`page`, or the cursor's page). */
  page: number;
  /** Matching rows: exact when `totalExact`, else an estimate or a reused count. */
  total: number;
  totalExact: boolean;
  /** Opaque cursor of the next page, `null` on the last one. */
  nextCursor: string | null;
  /** Each row's raw result (its `addSelect` extras by alias), parallel to `rows`. */
  raws: Array<Record<string, unknown>>;
}

/**
 * How a pager counts: exact up to `exactCap` rows (a keyword search: `searchExactCap`, default `exactCap`); totals of
 * at least `cacheMinRows` are reused for `cacheTtlMs`.
 */
export interface ListPagerOptions {
  exactCap: number;
  searchExactCap?: number;
  cacheTtlMs: number;
  cacheMinRows: number;
}

/** A reused total and whether it was exact when counted. */
interface KnownTotal {
  total: number;
  exact: boolean;
}

/**
 * Reads one page of any list (issue 23 item 1; DESIGN.md, Persistence: cost stays flat as data grows).
 *
 * - Order: the builder's ORDER BY (each key an entity column `alias.property`), plus the primary key as tie-breaker in
 *   the first key's direction unless the builder already ends with it. Each accepted sort has an index in that order
 *   behind the tenant/owner filter (migrations 1795405000000, 1795600200000).
 * - `page`/`size` as the spec says. Offsets of at least {@link DEFERRED_ROWS_MIN_OFFSET} read the page's ids alone
 *   (an index-only scan) and then only those rows.
 * - `cursor` (keyset): opens the signed cursor, checks it was made by the same statement (same tenant, owner,
 *   filters and sort; else 400) and seeks past its row with a range on the first key ({@link keysetPhases}), so a page
 *   deep in the list costs what page 0 costs. Every page answers `nextCursor` (`null` on the last page).
 * - Total: `count(*)` of at most `exactCap + 1` rows, in the same statement as the rows. Past the cap: the planner's
 *   estimate (at least cap + 1), reused for `cacheTtlMs`, and `totalExact: false`. Totals of at least `cacheMinRows`
 *   are reused too (served with `totalExact: false`); one count per filter is in flight at a time.
 * Cursors are signed with a key derived from ATRIUM_SECRET_KEY (every key of a rotation verifies).
 */
@Injectable()
export class ListPager {
  private readonly totals?: LRUCache<string, KnownTotal>;
  private readonly countsInFlight = new Map<string, Promise<KnownTotal>>();
  private readonly options: ListPagerOptions;
  private fallbackKey?: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Optional() options?: ListPagerOptions) {
    const cap = config.paging?.totalExactCap ?? 10_000;
    this.options = options ?? { exactCap: cap, searchExactCap: config.paging?.searchTotalExactCap ?? 1_000, cacheTtlMs: config.paging?.totalCacheTtlMs ?? 60_000, cacheMinRows: cap + 1 };
    if (this.options.cacheTtlMs > 0) this.totals = new LRUCache({ max: 10_000, ttl: this.options.cacheTtlMs });
  }

  /** A pager with the default cap and cache, for code built without Nest (the admin CLI). */
  static withDefaults(): ListPager {
    return new ListPager({} as AppConfig);
  }

  /**
   * One page of `repository`'s rows matching `where` (find-options style, FindOperators allowed) in `order`
   * (entity property → direction, e.g. from {@link import('./page').toOrder}).
   */
  find<T extends ObjectLiteral>(
    repository: Repository<T>,
    options: { where: FindOptionsWhere<T> | FindOptionsWhere<T>[]; order: Record<string, 'ASC' | 'DESC'> },
    request: PageRequest,
  ): Promise<ListSlice<T>> {
    const builder = repository.createQueryBuilder('row').setFindOptions({ where: options.where });
    for (const [property, direction] of Object.entries(options.order)) builder.addOrderBy(`row.${property}`, direction);
    return this.page(builder, request);
  }

  /**
   * One page of the builder's rows.
   * @param builder the filtered and ordered query (no offset/limit, no joined selections); not modified
   * @param request page and size, or a cursor (then `page` is ignored: the page number comes from the cursor)
   * @param kind.search the builder filters by a keyword search: the exact count stops at the search cap
   *   (PAGING_SEARCH_TOTAL_EXACT_CAP), since counting a common term's matches reads every candidate row
   * @throws BadRequestException (400) a cursor that is malformed, altered, or made by another list/tenant/filter/sort
   */
  async page<T extends ObjectLiteral>(builder: SelectQueryBuilder<T>, request: PageRequest, kind: { search?: boolean } = {}): Promise<ListSlice<T>> {
    const cap = kind.search ? (this.options.searchExactCap ?? this.options.exactCap) : this.options.exactCap;
    const ordered = builder.clone();
    const keys = orderKeysOf(ordered);
    const [listSql, listParameters] = ordered.getQueryAndParameters();
    const fingerprint = listFingerprint(listSql, listParameters);
    const cursor = request.cursor ? openCursor(request.cursor, this.verifyKeys(), fingerprint, keys.length) : undefined;
    const pageNumber = cursor ? cursor.p : request.page;

    const countBuilder = ordered.clone().select('1').orderBy().offset(undefined).limit(undefined);
    const [countSql, countParameters] = countBuilder.getQueryAndParameters();
    const countKey = `${countSql}\u0000${JSON.stringify(countParameters)}`;
    const known = this.totals?.get(countKey) ?? this.countsInFlight.get(countKey);
    const cappedCount = `(SELECT count(*)::int FROM (${countBuilder.clone().limit(cap + 1).getQuery()}) AS matching)`;

    const statements = cursor
      ? keysetPhases(keys, cursor.k).map((phase) => ordered.clone().andWhere(`(${phase.where})`, phase.parameters))
      : [this.offsetStatement(ordered, pageNumber * request.size, request.size + 1)];
    let counted: number | undefined;
    const rows: T[] = [];
    const rowKeys: Array<Array<string | null>> = [];
    const raws: Array<Record<string, unknown>> = [];
    const primary = primaryOf(ordered);
    for (const [index, statement] of statements.entries()) {
      const wanted = request.size + 1 - rows.length;
      if (wanted <= 0) break;
      if (cursor) statement.limit(wanted);
      keys.forEach((key, at) => statement.addSelect(`${key.sql}::text`, `${KEY_COLUMN}${at}`));
      if (index === 0 && known === undefined) statement.addSelect(cappedCount, TOTAL_COLUMN);
      const { raw, entities } = await statement.getRawAndEntities();
      if (index === 0 && known === undefined && raw.length > 0) counted = Number(raw[0][TOTAL_COLUMN]);
      // The tie-breaker (last key) is the primary key as text: it pairs each entity with its key values.
      const rawById = new Map((raw as Array<Record<string, string | null>>).map((row) => [row[`${KEY_COLUMN}${keys.length - 1}`], row]));
      for (const entity of entities.slice(0, wanted)) {
        const row = rawById.get(String(primary.getEntityValue(entity))) ?? {};
        rows.push(entity);
        raws.push(row);
        rowKeys.push(keys.map((_key, at) => row[`${KEY_COLUMN}${at}`] ?? null));
      }
    }
    const hasMore = rows.length > request.size;
    if (hasMore) rows.length = raws.length = request.size;
    const lastKeys = rowKeys[rows.length - 1];
    const total = known !== undefined ? await known : await this.total(countKey, counted, ordered, countSql, countParameters, cap);
    const nextCursor = hasMore && lastKeys?.length === keys.length ? signCursor({ q: fingerprint, p: pageNumber + 1, k: lastKeys }, this.signKey()) : null;
    return { rows, raws, page: pageNumber, total: total.total, totalExact: total.exact && known === undefined, nextCursor };
  }

  /** The total from the capped count of this page's statement (or counted alone), estimated past the cap. */
  private async total<T extends ObjectLiteral>(countKey: string, counted: number | undefined, ordered: SelectQueryBuilder<T>, countSql: string, countParameters: unknown[], cap: number): Promise<KnownTotal> {
    const counting = (async (): Promise<KnownTotal> => {
      const exactCount = counted ?? (await this.countAlone(ordered, countSql, countParameters, cap));
      if (exactCount <= cap) return { total: exactCount, exact: true };
      return { total: Math.max(cap + 1, await this.estimate(ordered, countSql, countParameters)), exact: false };
    })();
    this.countsInFlight.set(countKey, counting);
    try {
      const result = await counting;
      if (result.total >= this.options.cacheMinRows || !result.exact) this.totals?.set(countKey, result);
      return result;
    } finally {
      this.countsInFlight.delete(countKey);
    }
  }

  /** `count(*)` of at most cap + 1 filtered rows in a statement of its own (a page past the end carried no row). */
  private async countAlone(builder: SelectQueryBuilder<ObjectLiteral>, countSql: string, parameters: unknown[], cap: number): Promise<number> {
    const [{ total }] = (await builder.connection.query(`SELECT count(*)::int AS total FROM (${countSql} LIMIT ${cap + 1}) AS matching`, parameters)) as Array<{ total: number }>;
    return total;
  }

  /** The planner's estimate of the filtered rows (`EXPLAIN`, nothing is read). */
  private async estimate(builder: SelectQueryBuilder<ObjectLiteral>, countSql: string, parameters: unknown[]): Promise<number> {
    const [row] = (await builder.connection.query(`EXPLAIN (FORMAT JSON) ${countSql}`, parameters)) as Array<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>;
    return Math.round(row?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'] ?? 0);
  }

  /**
   * The statement of an offset page. Near pages: the builder with OFFSET/LIMIT. Far pages (offset >=
   * {@link DEFERRED_ROWS_MIN_OFFSET}): the rows whose id is among the page's ids, read first by the subquery alone.
   */
  private offsetStatement<T extends ObjectLiteral>(ordered: SelectQueryBuilder<T>, offset: number, limit: number): SelectQueryBuilder<T> {
    if (offset < DEFERRED_ROWS_MIN_OFFSET) return ordered.clone().offset(offset).limit(limit);
    const alias = ordered.alias;
    const primary = primaryOf(ordered);
    const column = `${ordered.escape(alias)}.${ordered.escape(primary.databaseName)}`;
    const ids = ordered.clone().select(column).offset(offset).limit(limit).getQuery();
    return ordered.connection
      .getRepository<T>(ordered.expressionMap.mainAlias!.target)
      .createQueryBuilder(alias)
      .where(`${column} IN (${ids})`)
      .orderBy(ordered.expressionMap.orderBys)
      .setParameters(ordered.getParameters());
  }

  private signKey(): Buffer {
    return this.verifyKeys()[0];
  }

  /** Cursor keys: derived from each sealing key (current first); a process-random key when none is installed (unit tests). */
  private verifyKeys(): Buffer[] {
    try {
      return secretSealer().keys.map((key) => cursorKeyOf(key.key));
    } catch {
      this.fallbackKey ??= randomBytes(32);
      return [this.fallbackKey];
    }
  }
}

/** The main alias's single primary column (every paged entity has one). */
function primaryOf(builder: SelectQueryBuilder<ObjectLiteral>) {
  const [primary, ...more] = builder.expressionMap.mainAlias!.metadata.primaryColumns;
  if (!primary || more.length > 0) throw new Error(`ListPager: ${builder.alias} needs a single primary column`);
  return primary;
}

/**
 * The builder's ORDER BY as keys, the primary key appended as tie-breaker (in the first key's direction, PostgreSQL's
 * default NULLS placement) when the order does not hold it (keys after it are dropped: it is unique); the builder is changed to carry that tie-breaker.
 * @throws Error an ORDER BY entry that is not `alias.property` of a known alias (a programming error)
 */
export function orderKeysOf(builder: SelectQueryBuilder<ObjectLiteral>): OrderKey[] {
  const primary = primaryOf(builder);
  const keys: OrderKey[] = [];
  let endsWithPrimary = false;
  for (const [path, spec] of Object.entries(builder.expressionMap.orderBys)) {
    const [aliasName, property] = path.replace(/"/g, '').split('.');
    const alias = builder.expressionMap.aliases.find((candidate) => candidate.name === aliasName);
    const column = alias?.hasMetadata ? (alias.metadata.findColumnWithPropertyPath(property) ?? alias.metadata.findColumnWithDatabaseName(property)) : undefined;
    if (!alias || !column) throw new Error(`ListPager: cannot sort by ${path}: not alias.property of an entity`);
    const order = typeof spec === 'string' ? spec : spec.order;
    const nulls = typeof spec === 'string' ? undefined : spec.nulls;
    const desc = order === 'DESC';
    keys.push({ sql: `${builder.escape(alias.name)}.${builder.escape(column.databaseName)}`, desc, nullsFirst: nulls ? nulls === 'NULLS FIRST' : desc, nullable: column.isNullable });
    // The primary key is unique: keys after it never decide anything (and are left out of the cursor).
    if (alias.name === builder.alias && column === primary) {
      endsWithPrimary = true;
      break;
    }
  }
  if (!endsWithPrimary) {
    const desc = keys[0]?.desc ?? false;
    builder.addOrderBy(`${builder.alias}.${primary.propertyPath}`, desc ? 'DESC' : 'ASC');
    keys.push({ sql: `${builder.escape(builder.alias)}.${builder.escape(primary.databaseName)}`, desc, nullsFirst: desc, nullable: false });
  }
  return keys;
}
