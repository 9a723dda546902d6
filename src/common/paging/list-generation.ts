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
  // Migration 1795600800000: a staff member's group rooms (the rooms joined to their access rows). A member sync's
  // counts and times, and the copies of them in the access rows, bump nothing.
  chat_group_room: ['notice', 'status', 'member_count', 'platform_created_at', 'synced_at', 'updated_at'],
  chat_group_room_access: ['member_count', 'updated_at'],
};

/**
 * Tables whose writes bump another table's generation row instead of their own: the tables one list reads share one
 * row, so a transaction writing both (a room and, through its triggers, its access rows) locks one row per tenant,
 * and two such transactions cannot deadlock over two rows taken in opposite orders.
 */
export const SHARED_GENERATIONS: Readonly<Record<string, string>> = {
  chat_group_room_access: 'chat_group_room',
};

/** The `list_generation.table_name` a table's writes bump: its own name, or the row it shares ({@link SHARED_GENERATIONS}). */
export function generationKeyOf(table: string): string {
  return Object.hasOwn(SHARED_GENERATIONS, table) ? SHARED_GENERATIONS[table] : table;
}

/** The `list_generation` row every tenant of a table shares: bumped on TRUNCATE. */
export const ALL_TENANTS_GENERATION = '*';

/**
 * The SQL of a tenant's current generation of `tables` (text), for a page's statement: the sum of the tenant's rows
 * and the `*` rows, 0 before any write. All only grow, so a sum seen once never comes back after a change.
 * @param tables generation rows ({@link generationKeyOf} of keys of {@link LIST_GENERATION_TABLES}; checked: SQL
 *   literals are built from them)
 * @param tenantParameter the statement's named parameter holding the tenant id (TypeORM `:name` style, without the colon)
 * @throws Error a table without generation triggers, or none (a programming error)
 */
export function generationSql(tables: readonly string[], tenantParameter: string): string {
  if (tables.length === 0) throw new Error('list_generation: no table');
  for (const table of tables) if (!Object.hasOwn(LIST_GENERATION_TABLES, table)) throw new Error(`list_generation: ${table} has no generation triggers`);
  const names = tables.map((table) => `'${table}'`).join(', ');
  return `(SELECT coalesce(sum(generation), 0)::text FROM list_generation WHERE table_name IN (${names}) AND tenant_id IN (:${tenantParameter}, '${ALL_TENANTS_GENERATION}'))`;
}

/** Every table a statement reads (`FROM` / `JOIN` targets, quoted or not). */
const READ_TABLES = /\b(?:FROM|JOIN)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;

/**
 * The generation rows that cover a list's total ({@link generationSql}), or undefined when a total must be counted
 * every time: every table its filters read has generation triggers, and the filters name none of those tables'
 * unwatched columns (an EXISTS on the staff users, or a filter on `last_message_at`, is not covered).
 * @param countSql the list's `SELECT 1 …` with its filters, columns quoted as `"column"`
 * @returns the distinct generation rows of the tables read ({@link generationKeyOf}), sorted
 */
export function generationTablesOf(countSql: string): string[] | undefined {
  const read = new Set([...countSql.matchAll(READ_TABLES)].map(([, table]) => table));
  if (read.size === 0) return undefined;
  for (const table of read) {
    const unwatched = Object.hasOwn(LIST_GENERATION_TABLES, table) ? LIST_GENERATION_TABLES[table] : undefined;
    if (unwatched === undefined || unwatched.some((column) => countSql.includes(`"${column}"`))) return undefined;
  }
  return [...new Set([...read].map(generationKeyOf))].sort();
}
