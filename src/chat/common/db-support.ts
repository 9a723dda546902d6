import { EntityManager, QueryFailedError } from 'typeorm';

/**
 * Database helpers shared by the chat wing's services (duplicate-key detection, literal ILIKE patterns, per-tenant write locks).
 */

/**
 * The name of the unique index a failed query violated (Postgres SQLSTATE 23505), or undefined for any other error.
 * Services turn it into a 409 naming the duplicate.
 */
export function uniqueViolation(error: unknown): string | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError?.code === '23505' ? (driverError.constraint ?? '') : undefined;
}

/**
 * Serialises writes of one kind of resource within one tenant until the surrounding transaction ends (a Postgres
 * transaction-level advisory lock on (resource, tenant)): count limits, sibling-name and tree checks then see every
 * committed write. Must be called inside a transaction.
 * @param resource a fixed name of the resource kind (e.g. `chat_script_category`)
 */
export async function lockTenantResource(manager: EntityManager, resource: string, tenantId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [resource, tenantId]);
}
