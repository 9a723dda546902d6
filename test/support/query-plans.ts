import type { DataSource } from 'typeorm';

/** pg's own query object (pg/lib/query.js, untyped): every statement of every client passes its `submit`. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgQuery = require('pg/lib/query') as { prototype: { submit(this: { text?: unknown; values?: unknown }, ...args: unknown[]): unknown } };

/** One node of `EXPLAIN (FORMAT JSON)`, with the fields plan checks read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** A statement the app sent, with its positional parameters. */
export type CapturedStatement = [sql: string, parameters: unknown[]];

/**
 * Records every statement the app sends, as PostgreSQL receives it (whether a query builder or raw SQL made it, and
 * whether TypeORM's query runner or the list pager's pooled read runs it: pooled-query.ts), for plan checks of the
 * app's own SQL (issue 23, acceptance 3). Spies on pg's Query.submit, which every client calls for every statement,
 * so call it once the app is up, and `jest.restoreAllMocks()` after the suite.
 * @param keep which statements to record (default all)
 * @returns the recording array; empty it with `length = 0` between requests
 */
export function captureStatements(keep: (sql: string) => boolean = () => true): CapturedStatement[] {
  const captured: CapturedStatement[] = [];
  const prototype = PgQuery.prototype;
  const original = prototype.submit;
  jest.spyOn(prototype, 'submit').mockImplementation(function (this: { text?: unknown; values?: unknown }, ...args: unknown[]) {
    if (typeof this.text === 'string' && keep(this.text)) captured.push([this.text, Array.isArray(this.values) ? this.values : []]);
    return original.apply(this, args);
  });
  return captured;
}

/**
 * The plan of `sql` with sequential scans and sorts switched off, in a transaction that is rolled back (so `setup`
 * may drop an index to show a check failing).
 * @param setup statements run first in the same transaction
 * @param options.sorts leave sorts on (a statement meant to sort its few candidates)
 */
export async function planOf(dataSource: DataSource, sql: string, parameters: unknown[], setup: string[] = [], options: { sorts?: boolean } = {}): Promise<PlanNode> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    for (const statement of setup) await runner.query(statement);
    await runner.query('SET LOCAL enable_seqscan = off');
    if (!options.sorts) await runner.query('SET LOCAL enable_sort = off');
    const [row] = (await runner.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters)) as Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>;
    return row['QUERY PLAN'][0].Plan;
  } finally {
    await runner.rollbackTransaction().catch(() => undefined);
    await runner.release();
  }
}

/** `node` and every node under it. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
