import { QueryFailedError } from 'typeorm';

/**
 * The name of the unique index a failed query violated (Postgres SQLSTATE 23505), or undefined for any other error.
 * Services turn it into a 409 naming the duplicate field.
 */
export function uniqueViolation(error: unknown): string | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError?.code === '23505' ? (driverError.constraint ?? '') : undefined;
}

/** Escapes `%`, `_` and `\` so user text matches literally inside an `ILIKE … ESCAPE '\'` pattern. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
