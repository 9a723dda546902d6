import type { DataSource } from 'typeorm';
import { sha256Hex } from '../../common/crypto/secrets';

/** oidc-provider's stored payload of one model instance (Session, Interaction, AuthorizationCode, Grant, …). */
export type OidcPayload = Record<string, unknown>;

/** How many expired rows one write deletes at most (the sweep rides along with writes, so it stays small). */
const SWEEP_BATCH = 100;

/**
 * oidc-provider's storage for every model but Client (issue 13 item 2, issue 20): one PostgreSQL table,
 * `chat_oauth_record`, so any instance can resume an interaction, find a session or redeem a code another one made.
 * - Ids (authorization codes, interaction uids, grant ids) and session uids are kept as SHA-256 only, and the payload's
 *   copy of the id (`jti`) is left out and put back by `find`: a copy of the table gives no usable code. Sessions keep
 *   their `jti`, which `findByUid` must return (it is not known to the caller there).
 * - `find` never returns a row past `expires_at`; each `upsert` deletes up to 100 expired rows.
 * - `consume` marks the row (`consumed_at`); `find` then reports `consumed` (seconds since the epoch), which is how
 *   oidc-provider detects a replayed authorization code (and revokes the grant).
 * - `revokeByGrantId` deletes every row of the grant (codes, grants, sessions' tokens).
 */
export class OAuthRecordAdapter {
  constructor(
    private readonly dataSource: DataSource,
    /** The oidc-provider model name, e.g. `AuthorizationCode`. */
    private readonly model: string,
  ) {}

  /**
   * Stores (or replaces) one instance.
   * @param expiresInS lifetime in seconds (oidc-provider's ttl for the model); undefined = no expiry
   */
  async upsert(id: string, payload: OidcPayload, expiresInS?: number): Promise<void> {
    const expiresAt = typeof expiresInS === 'number' && expiresInS > 0 ? new Date(Date.now() + expiresInS * 1000) : null;
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : null;
    const uidHash = typeof payload.uid === 'string' ? sha256Hex(payload.uid) : null;
    const stored = this.model === 'Session' ? payload : { ...payload, jti: undefined };
    await this.dataSource.query(
      `WITH swept AS (
         DELETE FROM chat_oauth_record WHERE (model, id_hash) IN (SELECT model, id_hash FROM chat_oauth_record WHERE expires_at < now() LIMIT ${SWEEP_BATCH})
       )
       INSERT INTO chat_oauth_record (model, id_hash, payload, grant_id, uid_hash, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (model, id_hash) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid_hash = EXCLUDED.uid_hash, expires_at = EXCLUDED.expires_at`,
      [this.model, sha256Hex(id), JSON.stringify(stored), grantId, uidHash, expiresAt],
    );
  }

  /** @returns the live instance with this id, `consumed` set when it was consumed; undefined when absent or expired */
  async find(id: string): Promise<OidcPayload | undefined> {
    const payload = await this.first(`model = $1 AND id_hash = $2`, [this.model, sha256Hex(id)]);
    return payload && payload.jti === undefined ? { ...payload, jti: id } : payload;
  }

  /** Sessions by their `uid`. */
  async findByUid(uid: string): Promise<OidcPayload | undefined> {
    return this.first(`model = $1 AND uid_hash = $2`, [this.model, sha256Hex(uid)]);
  }

  /** No device flow is served. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  /** Marks the instance used (an authorization code being redeemed). */
  async consume(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE chat_oauth_record SET consumed_at = now() WHERE model = $1 AND id_hash = $2`, [this.model, sha256Hex(id)]);
  }

  async destroy(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM chat_oauth_record WHERE model = $1 AND id_hash = $2`, [this.model, sha256Hex(id)]);
  }

  /** Deletes everything issued under a grant (any model). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM chat_oauth_record WHERE grant_id = $1`, [grantId]);
  }

  private async first(where: string, parameters: unknown[]): Promise<OidcPayload | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT payload, consumed_at FROM chat_oauth_record WHERE ${where} AND (expires_at IS NULL OR expires_at > now()) LIMIT 1`,
      parameters,
    )) as { payload: OidcPayload; consumed_at: Date | null }[];
    const [row] = rows;
    if (!row) return undefined;
    return row.consumed_at ? { ...row.payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : row.payload;
  }
}
