import type { DataSource, ValueTransformer } from 'typeorm';
import { SEALED_SQL_PATTERN, secretSealer, SecretSealer, SecretSealError } from '../common/crypto/secret-sealer';

/**
 * TypeORM transformer of a `text` column holding a third-party secret (issue 19, item 6): sealed on write, opened on
 * read, with the process's sealer (installed by DatabaseModule before any row is read). null stays null. A row not
 * yet sealed (written before sealing, before the start-up sweep) reads as it is.
 */
export const SEALED_TEXT: ValueTransformer = {
  to: (value: string | null | undefined) => (typeof value === 'string' ? secretSealer().seal(value) : value),
  from: (value: string | null) => (typeof value === 'string' ? secretSealer().open(value) : value),
};

/**
 * As {@link SEALED_TEXT} for a `jsonb` column: the whole value becomes one sealed JSON string (`"v1:…"`); a plain
 * object (not yet swept) reads as it is.
 */
export const SEALED_JSON: ValueTransformer = {
  to: (value: unknown) => (value === null || value === undefined ? value : secretSealer().seal(JSON.stringify(value))),
  from: (value: unknown) => (typeof value === 'string' ? JSON.parse(secretSealer().open(value)) : value),
};

/** A column holding sealed secrets: `text` ({@link SEALED_TEXT}) or `json` (a jsonb column, {@link SEALED_JSON}). */
export interface SealedColumn {
  table: string;
  column: string;
  kind: 'text' | 'json';
  /** The row key the sweep pages by: `id` (a uuid) unless named, with the value that sorts before every key. */
  key?: { column: string; before: string };
}

const UUID_KEY = { column: 'id', before: '00000000-0000-0000-0000-000000000000' };

/**
 * Every sealed column. The sweep and `atrium-admin secrets reseal` work on these by SQL (no entities needed); an e2e
 * test checks the list against the entities' transformers.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'chat_tool_provider', column: 'auth_secret', kind: 'text' },
  { table: 'chat_work_corp', column: 'secret', kind: 'text' },
  { table: 'chat_work_corp', column: 'callback_token', kind: 'text' },
  { table: 'chat_work_corp', column: 'callback_aes_key', kind: 'text' },
  { table: 'chat_channel', column: 'secret', kind: 'text' },
  { table: 'chat_ent_robot_group', column: 'webhook_key', kind: 'text' },
  { table: 'eval_model_config', column: 'api_key', kind: 'text' },
  { table: 'eval_target', column: 'secrets', kind: 'json' },
  // Secrets shared by every instance (the chat OAuth2 signing key, the evaluation session secret): src/common/cluster.
  { table: 'core_shared_secret', column: 'sealed_value', kind: 'text', key: { column: 'name', before: '' } },
];

/** What a sweep did, per `table.column`. */
export interface ResealReport {
  /** Values sealed or resealed under the current key. */
  resealed: Record<string, number>;
  /** Values that could not be opened (key missing from ATRIUM_SECRET_KEY_PREVIOUS, or altered): left as they were. */
  failed: Record<string, number>;
}

const BATCH = 200;

/**
 * Seals every stored secret that is still plain text (`rotate: false`, run at every start: idempotent, a sealed
 * value is recognised by its exact shape) or, with `rotate: true`, also reseals every value sealed under another key
 * than the current one (`atrium-admin secrets reseal`, after a key rotation). Rows are read in id order, 200 at a
 * time; each update applies only if the value did not change meanwhile, and leaves `updated_at` alone.
 * @param dataSource an initialised DataSource (entities not needed)
 * @param sealer the keys: current seals, all open
 */
export async function resealSecrets(dataSource: DataSource, sealer: SecretSealer, options: { rotate: boolean }): Promise<ResealReport> {
  const report: ResealReport = { resealed: {}, failed: {} };
  for (const { table, column, kind, key = UUID_KEY } of SEALED_COLUMNS) {
    const name = `${table}.${column}`;
    const text = kind === 'json' ? `"${column}" #>> '{}'` : `"${column}"`;
    const plain = kind === 'json' ? `jsonb_typeof("${column}") <> 'string' OR (${text}) !~ $2` : `${text} !~ $2`;
    const stale = options.rotate ? ` OR split_part(${text}, ':', 2) <> $3` : '';
    let after = key.before;
    let resealed = 0;
    let failed = 0;
    for (;;) {
      const params: unknown[] = [after, SEALED_SQL_PATTERN, ...(options.rotate ? [sealer.current.id] : [])];
      const rows: { id: string; value: string }[] = await dataSource.query(
        `SELECT "${key.column}" AS id, ${kind === 'json' ? `"${column}"::text` : `"${column}"`} AS value FROM "${table}"
          WHERE "${key.column}" > $1 AND "${column}" IS NOT NULL AND (${plain}${stale}) ORDER BY "${key.column}" LIMIT ${BATCH}`,
        params,
      );
      for (const row of rows) {
        let sealed: string;
        try {
          // jsonb: a plain object is its JSON text; an old sealed value is a JSON string holding the sealed text.
          const stored = kind === 'json' ? JSON.parse(row.value) : row.value;
          const plainText = typeof stored === 'string' ? sealer.open(stored) : JSON.stringify(stored);
          sealed = sealer.seal(plainText);
        } catch (error) {
          if (!(error instanceof SecretSealError)) throw error;
          failed += 1;
          continue;
        }
        const target = kind === 'json' ? 'to_jsonb($1::text)' : '$1';
        const same = kind === 'json' ? `"${column}"::text = $3` : `"${column}" = $3`;
        await dataSource.query(`UPDATE "${table}" SET "${column}" = ${target} WHERE "${key.column}" = $2 AND ${same}`, [sealed, row.id, row.value]);
        resealed += 1;
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].id;
    }
    if (resealed) report.resealed[name] = resealed;
    if (failed) report.failed[name] = failed;
  }
  return report;
}
