import { BadRequestException, Inject, Injectable, Logger, NotFoundException, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ApiKeyEntity } from './api-key.entity';
import { API_KEY_SORT_FIELDS, type ApiKeyQueryDto } from './api-keys.dto';
import { apiKeyHash, ENV_KEY_NAME_PATTERN, envKeyName, generateApiKey } from './api-key.format';
import { ListPager } from '../../common/paging/list-pager';

/** How often `last_used_at` is written for one key at most (ms); keeps reads from turning into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A key the caller presented, once recognised. */
export interface RecognisedApiKey {
  id: string;
  name: string;
  admin: boolean;
}

/**
 * Named evaluation API keys (issue 19 item 6): seeded from EVAL_API_KEYS at start (`env-1`, `env-2`, …), created,
 * listed and revoked through the API and `atrium-eval api-key`. Only SHA-256 hashes are stored; a key is looked up
 * in PostgreSQL on every request, with no cache, so a revoked key is refused from the next request on, on every
 * instance.
 */
@Injectable()
export class ApiKeysService implements OnModuleInit {
  private readonly logger = new Logger('EvaluationApiKeys');

  constructor(
    private readonly pager: ListPager,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Seeds EVAL_API_KEYS at start. */
  async onModuleInit(): Promise<void> {
    await this.seed(this.config.evaluation.apiKeys);
  }

  /**
   * Makes the `env-N` keys match `keys`, idempotently (several instances may start at once): `env-N` gets the N-th
   * key's hash; a changed value is a new, live key; an unchanged key that was revoked through the API stays revoked;
   * `env-N` rows past the list are revoked (a key removed from EVAL_API_KEYS stops working, as before). Seeded keys
   * may manage keys (admin), as EVAL_API_KEYS were the operator's own credentials.
   * @param keys EVAL_API_KEYS in order (duplicates count once)
   */
  async seed(keys: readonly string[]): Promise<void> {
    const distinct = [...new Set(keys)];
    await this.dataSource.transaction(async (manager) => {
      // One seeding at a time across instances; the lock ends with the transaction.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('eval_api_key seed'))`);
      const names = distinct.map((_key, index) => envKeyName(index));
      // A key may move from env-2 to env-1 when the list changes: drop the row that holds its hash under another
      // name first, or the unique hash index would refuse the update.
      for (const [index, key] of distinct.entries()) {
        await manager.query(`DELETE FROM eval_api_key WHERE source = 'env' AND key_hash = $1 AND name <> $2`, [apiKeyHash(key), envKeyName(index)]);
      }
      for (const [index, key] of distinct.entries()) {
        await manager.query(
          `INSERT INTO eval_api_key AS k (name, key_hash, admin, source) VALUES ($1, $2, true, 'env')
           ON CONFLICT (name) DO UPDATE SET
             key_hash = EXCLUDED.key_hash,
             revoked_at = CASE WHEN k.key_hash = EXCLUDED.key_hash THEN k.revoked_at ELSE NULL END,
             revoked_by = CASE WHEN k.key_hash = EXCLUDED.key_hash THEN k.revoked_by ELSE NULL END
           WHERE k.source = 'env'`,
          [envKeyName(index), apiKeyHash(key)],
        );
      }
      await manager.query(
        `UPDATE eval_api_key SET revoked_at = now(), revoked_by = 'EVAL_API_KEYS' WHERE source = 'env' AND revoked_at IS NULL AND NOT (name = ANY($1))`,
        [names],
      );
    });
  }

  /**
   * The pure check behind the evaluation credential strategy, as SQL for GuessLimiter.checkLookup, so that the
   * guessing limit, the lookup and the last-use note are one PostgreSQL round trip (issue 14 item 1): finds a live
   * (unrevoked) key by its hash; `last_used_at` is written at most once a minute, and only when the limiter granted
   * the check.
   */
  liveKeyLookup(key: string): { sql: string; parameters: unknown[]; afterGrant: string } {
    return {
      sql: 'SELECT id, name, admin FROM eval_api_key WHERE key_hash = $1 AND revoked_at IS NULL',
      parameters: [apiKeyHash(key)],
      afterGrant: `UPDATE eval_api_key AS k SET last_used_at = now() FROM found, decided
        WHERE k.id = found.id AND decided.outcome = 'granted'
          AND (k.last_used_at IS NULL OR k.last_used_at < now() - make_interval(secs => ${LAST_USED_RESOLUTION_MS / 1000}))
        RETURNING k.id`,
    };
  }

  /**
   * Creates a key. The key is in the result only: it is stored as its SHA-256.
   * @param name API_KEY_NAME_PATTERN, not `env-N`, unused (also by revoked keys)
   * @param admin whether the key may manage keys
   * @param createdBy the acting subject (`session:admin`, `api-key:<name>`)
   * @throws BadRequestException (400) an `env-N` name; 409 (unique violation) a name already used
   */
  async create(name: string, admin: boolean, createdBy: string): Promise<{ entity: ApiKeyEntity; key: string }> {
    if (ENV_KEY_NAME_PATTERN.test(name)) throw new BadRequestException('Names env-1, env-2, … are kept for EVAL_API_KEYS; choose another name.');
    const key = generateApiKey();
    const repository = this.dataSource.getRepository(ApiKeyEntity);
    const entity = await repository.save(repository.create({ name, keyHash: apiKeyHash(key), admin, source: 'api', createdBy, lastUsedAt: null, revokedAt: null, revokedBy: null }));
    this.logger.log(`API key "${name}" created by ${createdBy}${admin ? ' (admin)' : ''}`);
    return { entity, key };
  }

  /**
   * Lists keys (never their values), newest first by default; sortable by `name`, `createdAt`, `lastUsedAt`.
   * @param includeRevoked false: live keys only
   */
  async list(query: ApiKeyQueryDto, includeRevoked: boolean): Promise<Page<ApiKeyEntity>> {
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(ApiKeyEntity), {
      where: includeRevoked ? {} : { revokedAt: IsNull() },
      order: toOrder(query.sort, API_KEY_SORT_FIELDS, { createdAt: 'DESC' }),
    }, query);
    return toPage(rows, slice, query);
  }

  /**
   * Revokes a key by name; from the next request on it is refused. Revoking a revoked key changes nothing.
   * @param revokedBy the acting subject
   * @throws NotFoundException (404) no key of that name
   */
  async revoke(name: string, revokedBy: string): Promise<ApiKeyEntity> {
    const repository = this.dataSource.getRepository(ApiKeyEntity);
    await repository.update({ name, revokedAt: IsNull() }, { revokedAt: new Date(), revokedBy });
    const row = await repository.findOneBy({ name });
    if (!row) throw new NotFoundException(`No API key is named "${name}".`);
    this.logger.log(`API key "${name}" revoked by ${row.revokedBy ?? revokedBy}`);
    return row;
  }
}
