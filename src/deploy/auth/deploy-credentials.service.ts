import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { secretsEqual, sha256Hex } from '../../common/crypto/secrets';
import { AgentTokenEntity } from '../tokens/agent-token.entity';
import { agentTokenPrefix } from '../tokens/agent-token.format';
import { GatewaySecretsService } from '../tokens/gateway-secrets.service';
import type { DeployPrincipal } from './deploy-principal';

/** How often `last_used_at` is written for one token at most (ms); keeps reads from turning into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Recognises a bearer credential of the gateway: the owner credential, or a live (not revoked) agent token,
 * found by its public prefix and checked against its stored SHA-256 in constant time.
 */
@Injectable()
export class DeployCredentialsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly secrets: GatewaySecretsService,
  ) {}

  /** @returns the principal, or undefined for an unknown, malformed or revoked credential */
  async identify(credential: string): Promise<DeployPrincipal | undefined> {
    const prefix = agentTokenPrefix(credential);
    if (!prefix) return this.secrets.matches('owner-token', credential) ? { kind: 'owner' } : undefined;
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
}
