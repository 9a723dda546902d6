import type { EntityManager } from 'typeorm';

/**
 * Runs an `UPDATE … RETURNING …` or `DELETE … RETURNING …` statement and returns the returned rows. (TypeORM's
 * Postgres driver answers such statements with `[rows, rowCount]`, other statements with the rows.)
 */
export async function updateReturning<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const raw: unknown = await manager.query(sql, parameters);
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return raw as T[];
}
