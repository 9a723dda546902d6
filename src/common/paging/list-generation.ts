/**
 * Tables whose rows carry a per-tenant change generation in `list_generation` (migration 1795600790000), by table
 * name, with the columns whose changes do not count as one (frequent writes no list filters by). Triggers bump a
 * tenant's generation in the writer's own transaction on every insert, delete and update of a watched column (and
 * every tenant's on TRUNCATE, through the `*` row), so an exact total counted while the generation was G is still
 * exact while it is G (issue 14 acceptance 1: a hot list's page does not count thousands of rows per request; issue
 * 23 item 1: totals exact up to the cap).
 */
export const LIST_GENERATION_TABLES: Readonly<Record<string, readonly string[]>> = {
  chat_external_contact: ['last_message_at', 'updated_at'],
  chat_contact_way: [],
};

/** The `list_generation` row every tenant of a table shares: bumped on TRUNCATE. */
export const ALL_TENANTS_GENERATION = '*';

/**
 * The SQL of a tenant's current generation of `table` (text), for a page's statement: the sum of the tenant's row
 * and the `*` row, 0 before any write. Both only grow, so a sum seen once never comes back after a change.
 * @param table a key of {@link LIST_GENERATION_TABLES} (checked: an SQL literal is built from it)
 * @param tenantParameter the statement's named parameter holding the tenant id (TypeORM `:name` style, without the colon)
 * @throws Error a table without generation triggers (a programming error)
 */
export function generationSql(table: string, tenantParameter: string): string {
  if (!Object.hasOwn(LIST_GENERATION_TABLES, table)) throw new Error(`list_generation: ${table} has no generation triggers`);
  return `(SELECT coalesce(sum(generation), 0)::text FROM list_generation WHERE table_name = '${table}' AND tenant_id IN (:${tenantParameter}, '${ALL_TENANTS_GENERATION}'))`;
}

/** Every table a statement reads (`FROM` / `JOIN` targets, quoted or not). */
const READ_TABLES = /\b(?:FROM|JOIN)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;

/**
 * Whether a list's filters (its count statement's SQL) may reuse a total by generation: the table has generation
 * triggers, the filters read no other table (its changes bump nothing here: e.g. an EXISTS on the staff users) and
 * none of the table's unwatched columns.
 * @param table the list's table
 * @param countSql the list's `SELECT 1 …` with its filters, columns quoted as `"column"`
 */
export function generationCovers(table: string, countSql: string): boolean {
  const unwatched = Object.hasOwn(LIST_GENERATION_TABLES, table) ? LIST_GENERATION_TABLES[table] : undefined;
  if (unwatched === undefined || unwatched.some((column) => countSql.includes(`"${column}"`))) return false;
  return [...countSql.matchAll(READ_TABLES)].every(([, read]) => read === table);
}
