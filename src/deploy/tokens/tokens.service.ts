import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { DeployPermission } from '../auth/deploy-principal';
import { randomHexId, sha256Hex } from '../../common/crypto/secrets';
import { Page, PageQueryDto, toOrder, toPage } from '../../common/paging/page';
import { AuditCaller, AuditService } from '../audit/audit.service';
import { namespaceForAgent } from '../namespace';
import { AgentTokenEntity } from './agent-token.entity';
import { mintAgentToken } from './agent-token.format';
import { AgentTokenDto, RegisterAgentDto, RegistrationResultDto, toAgentTokenDto } from './tokens.dto';

/** Issues, lists and revokes agent tokens (deployment-gateway.md, States: Token). */
@Injectable()
export class TokensService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {}

  /**
   * Registers an agent: revokes its previous live token (one token per agent) and issues a new one with the
   * configured default permissions (or the subset it asks for), in one transaction with its audit row.
   * @throws BadRequestException (400) it asks for a permission the server does not grant
   * @returns the new token, shown only in this response
   */
  async register(input: RegisterAgentDto, caller: AuditCaller): Promise<RegistrationResultDto> {
    const agentId = input.agentId ?? `agent-${randomHexId(12)}`;
    const namespace = input.contactId ?? namespaceForAgent(agentId);
    const minted = mintAgentToken();
    const permissions = grantedPermissions(input.permissions, this.config.deploy.defaultPermissions);
    await this.dataSource.transaction(async (manager) => {
      await manager.update(AgentTokenEntity, { agentId, revokedAt: IsNull() }, { revokedAt: new Date() });
      await manager.insert(AgentTokenEntity, {
        prefix: minted.prefix,
        secretHash: sha256Hex(minted.token),
        agentId,
        instanceName: input.instanceName ?? null,
        namespace,
        permissions,
      });
      await this.audit.record(
        { ...caller, tokenPrefix: minted.prefix, agentId, namespace },
        { action: 'register', outcome: 'allowed', status: 201, target: minted.prefix },
        manager,
      );
    });
    return { token: minted.token, tokenPrefix: minted.prefix, permissions, agentId, instanceName: input.instanceName ?? null, contactId: namespace };
  }

  /** Every token, newest first by default; sortable by `createdAt`, `lastUsedAt`, `agentId`, `namespace`. */
  async list(query: PageQueryDto): Promise<Page<AgentTokenDto>> {
    const order = toOrder(query.sort, { createdAt: 'createdAt', lastUsedAt: 'lastUsedAt', agentId: 'agentId', namespace: 'namespace' }, { createdAt: 'DESC' });
    const [rows, total] = await this.dataSource.getRepository(AgentTokenEntity).findAndCount({
      order: { ...order, id: 'ASC' },
      skip: query.page * query.size,
      take: query.size,
    });
    return toPage(rows.map(toAgentTokenDto), total, query);
  }

  /**
   * Revokes the token with `prefix`; it stops working at the next request. Revoking a revoked token is a no-op.
   * @throws NotFoundException (404) no token has that prefix
   */
  async revoke(prefix: string, caller: AuditCaller): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const token = await manager.findOneBy(AgentTokenEntity, { prefix });
      if (!token) throw new NotFoundException(`No token has the prefix ${prefix}.`);
      if (!token.revokedAt) await manager.update(AgentTokenEntity, { id: token.id }, { revokedAt: new Date() });
      await this.audit.record(caller, { action: 'admin.revoke-token', outcome: 'allowed', status: 204, target: prefix }, manager);
    });
  }
}

/**
 * The permissions a new token gets: the requested subset of the server's grantable set, or all of it.
 * @throws BadRequestException (400) a requested permission is not grantable
 */
export function grantedPermissions(requested: DeployPermission[] | undefined, grantable: DeployPermission[]): DeployPermission[] {
  if (!requested) return grantable;
  const refused = requested.filter((permission) => !grantable.includes(permission));
  if (refused.length > 0) throw new BadRequestException(`This server does not grant: ${refused.join(', ')}.`);
  return grantable.filter((permission) => requested.includes(permission));
}
