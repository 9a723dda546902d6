import { HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { DeployPermission } from '../auth/deploy-principal';
import { randomHexId, sha256Hex } from '../../common/crypto/secrets';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { AuditCaller, AuditService } from '../audit/audit.service';
import type { DeployPrincipal } from '../auth/deploy-principal';
import { namespaceForAgent } from '../namespace';
import { NamespacesService } from '../namespaces/namespaces.service';
import { AgentTokenEntity } from './agent-token.entity';
import { mintAgentToken } from './agent-token.format';
import { grantedPermissions } from './granted-permissions';
import { AGENT_TOKEN_SORT_FIELDS, AgentTokenDto, type AgentTokenQueryDto, RegisterAgentDto, RegistrationResultDto, toAgentTokenDto } from './tokens.dto';
import { ListPager } from '../../common/paging/list-pager';

export { grantedPermissions } from './granted-permissions';

/** Issues, lists and revokes agent tokens (deployment-gateway.md, States: Token). */
@Injectable()
export class TokensService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly namespaces: NamespacesService,
  ) {}

  /**
   * Registers an agent (issue 12, item 3). One live token per agent; who may do what:
   * - a new `agentId` into a new namespace: the registration key alone (the agent claims the namespace);
   * - a new `agentId` into an existing namespace: also a join grant from the owner (`joinGrant`), consumed here;
   * - an existing `agentId`: also its current token in `Authorization` (rotation: the old token is revoked and the new
   *   one returned; it keeps or narrows its permissions and may stay in its namespace without a grant), or the owner
   *   token (may register any agent into any namespace).
   * Everything, audit row included, happens in one transaction under a per-agent lock, so two registrations of one
   * agent can't both succeed and a refused one consumes no grant.
   * @param presented the principal of the `Authorization` credential, already verified, or undefined when none was sent
   * @throws ProblemException 409 `agent-exists` the agentId is registered and neither its token nor the owner's was sent
   * @throws ProblemException 403 `not-this-agent` the token sent belongs to another agent
   * @throws ProblemException 401 `token-rotated` the token sent was rotated or revoked meanwhile
   * @throws ProblemException 409/403 from {@link NamespacesService.enter} (namespace claimed, grant refused)
   * @throws BadRequestException (400) a permission that can't be granted
   * @returns the new token, shown only in this response
   */
  async register(input: RegisterAgentDto, presented: DeployPrincipal | undefined, caller: AuditCaller): Promise<RegistrationResultDto> {
    const rotating = presented?.kind === 'agent' ? presented : undefined;
    const owner = presented?.kind === 'owner';
    const agentId = input.agentId ?? rotating?.agentId ?? `agent-${randomHexId(12)}`;
    if (rotating && rotating.agentId !== agentId) {
      throw new ProblemException(
        HttpStatus.FORBIDDEN,
        `The token in Authorization belongs to the agent "${rotating.agentId}"; a token can only rotate itself. The owner token can re-register another agent.`,
        { rule: 'not-this-agent' },
      );
    }
    const namespace = input.contactId ?? rotating?.namespace ?? namespaceForAgent(agentId);
    const minted = mintAgentToken();
    const permissions = await this.dataSource.transaction(async (manager) => {
      // Serialises registrations of one agentId: the check below and the insert can't interleave with another's.
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`deploy-agent:${agentId}`]);
      const previous = await manager.find(AgentTokenEntity, { where: { agentId }, select: { id: true, revokedAt: true } });
      if (rotating && !previous.some((token) => token.id === rotating.tokenId && !token.revokedAt)) {
        throw new ProblemException(HttpStatus.UNAUTHORIZED, 'The token in Authorization was rotated or revoked meanwhile.', { rule: 'token-rotated' });
      }
      if (previous.length > 0 && !rotating && !owner) {
        throw new ProblemException(
          HttpStatus.CONFLICT,
          `The agent "${agentId}" is already registered. To rotate its token, send its current token as "Authorization: Bearer <token>"; the owner can re-register it; otherwise choose another agentId.`,
          { rule: 'agent-exists' },
        );
      }
      const admission = await this.namespaces.enter(manager, {
        namespace,
        agentId,
        owner,
        currentNamespace: rotating?.namespace,
        joinGrant: input.joinGrant,
      });
      // Least privilege can't be undone by the agent itself: a rotation keeps or narrows the token's permissions,
      // and a join grant caps what the joining agent gets.
      let grantable: DeployPermission[] = this.config.deploy.defaultPermissions;
      if (rotating && !owner) grantable = grantable.filter((permission) => rotating.permissions.includes(permission));
      if (admission.kind === 'joined' && admission.permissionCap) grantable = grantable.filter((permission) => admission.permissionCap!.includes(permission));
      const granted = grantedPermissions(input.permissions ?? (rotating ? rotating.permissions.filter((p) => grantable.includes(p)) : undefined), grantable);
      await manager.update(AgentTokenEntity, { agentId, revokedAt: IsNull() }, { revokedAt: new Date() });
      await manager.insert(AgentTokenEntity, {
        prefix: minted.prefix,
        secretHash: sha256Hex(minted.token),
        agentId,
        instanceName: input.instanceName ?? null,
        namespace,
        permissions: granted,
      });
      const how = owner ? 'by the owner' : rotating ? `rotating ${rotating.tokenPrefix}` : 'new agent';
      const where = admission.kind === 'joined' ? `joined with grant ${admission.grantPrefix}` : admission.kind === 'claimed' ? 'claimed the namespace' : 'member of the namespace';
      await this.audit.record(
        { ...caller, tokenPrefix: minted.prefix, agentId, namespace },
        { action: 'register', outcome: 'allowed', status: 201, target: minted.prefix, detail: `${how}; ${where}` },
        manager,
      );
      return granted;
    });
    return { token: minted.token, tokenPrefix: minted.prefix, permissions, agentId, instanceName: input.instanceName ?? null, contactId: namespace };
  }

  /** Every token, newest first by default; sortable by `createdAt`, `lastUsedAt`, `agentId`, `namespace`. */
  async list(query: AgentTokenQueryDto): Promise<Page<AgentTokenDto>> {
    const order = toOrder(query.sort, AGENT_TOKEN_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(AgentTokenEntity), { where: {}, order }, query);
    return toPage(rows.map(toAgentTokenDto), slice, query);
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
