import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GuessLimiter } from '../../common/auth/guess-limiter';
import { secretsEqual, sha256Hex } from '../../common/crypto/secrets';
import { AgentTokenEntity } from '../tokens/agent-token.entity';
import { agentTokenPrefix } from '../tokens/agent-token.format';
import { GatewaySecretsService } from '../tokens/gateway-secrets.service';
import type { DeployPrincipal } from './deploy-principal';

/** How often `last_used_at` is written for one token at most (ms); keeps reads from turning into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Recognises a bearer credential of the gateway: the owner credential, or a live (not revoked) agent token,
 * found by its public prefix and checked against its stored SHA-256 in constant time. A credential without an
 * agent-token prefix can only be the owner token, so it is checked under the `deploy-owner-token` guessing limit
 * (issue 12 item 5) on every route; agent tokens carry 256 random bits and are looked up by prefix, unlimited.
 */
@Injectable()
export class DeployCredentialsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly secrets: GatewaySecretsService,
    private readonly limiter: GuessLimiter,
  ) {}

  /**
   * @param clientAddress the caller's address (`request.ip`), the key of the owner-token guessing limit
   * @returns the principal, or undefined for an unknown, malformed or revoked credential
   * @throws GuessLimitExceeded (429) too many wrong owner tokens from this address in the window
   */
  async identify(credential: string, clientAddress: string | undefined): Promise<DeployPrincipal | undefined> {
    const prefix = agentTokenPrefix(credential);
    // The owner check is a constant-time compare in memory: decided in one round trip (GuessLimiter.checkPure).
    if (!prefix) return this.limiter.checkPure('deploy-owner-token', clientAddress, () => this.verifyOwner(credential));
    const repository = this.dataSource.getRepository(AgentTokenEntity);
    const token = await repository.findOneBy({ prefix });
    if (!token || token.revokedAt || !secretsEqual(sha256Hex(credential), token.secretHash)) return undefined;
    const now = Date.now();
    if (!token.lastUsedAt || now - token.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await repository.update({ id: token.id }, { lastUsedAt: new Date(now) });
    }
    return {
      kind: 'agent',
      tokenId: token.id,
      tokenPrefix: token.prefix,
      agentId: token.agentId,
      namespace: token.namespace,
      permissions: token.permissions,
    };
  }

  /** The pure owner check: the owner principal when `credential` is the owner token (constant-time compare). */
  verifyOwner(credential: string): DeployPrincipal | undefined {
    return this.secrets.matches('owner-token', credential) ? { kind: 'owner' } : undefined;
  }
}
