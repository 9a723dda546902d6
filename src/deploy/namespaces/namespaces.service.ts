import { BadRequestException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { DeployPermission } from '../auth/deploy-principal';
import { secretsEqual, sha256Hex } from '../../common/crypto/secrets';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { AuditCaller, AuditService } from '../audit/audit.service';
import { grantedPermissions } from '../tokens/granted-permissions';
import { JoinGrantEntity } from './join-grant.entity';
import { joinGrantPrefix, mintJoinGrant } from './join-grant.format';
import { NamespaceEntity } from './namespace.entity';
import { IssuedJoinGrantDto, IssueJoinGrantDto, JOIN_GRANT_SORT_FIELDS, JoinGrantDto, type JoinGrantQueryDto, NAMESPACE_SORT_FIELDS, NamespaceDto, type NamespaceQueryDto, toJoinGrantDto, toNamespaceDto } from './namespaces.dto';
import { ListPager } from '../../common/paging/list-pager';

/** Who is asking to register into a namespace, as far as namespace ownership cares (issue 12, item 3). */
export interface NamespaceEntry {
  namespace: string;
  agentId: string;
  /** The owner token was presented: may claim or join any namespace. */
  owner: boolean;
  /** The namespace of the agent's current token, when it rotates its own token: it may stay there. */
  currentNamespace?: string;
  /** The join code from the body, if any. */
  joinGrant?: string;
}

/** How the namespace was entered: claimed now, already a member (owner, rotation) or joined with a grant. */
export type NamespaceAdmission = { kind: 'claimed' } | { kind: 'member' } | { kind: 'joined'; grantPrefix: string; permissionCap: DeployPermission[] | null };

/**
 * Namespace ownership (issue 12, item 3; deployment-gateway.md: the user's contactId is the namespace): the first
 * registration for a contactId claims it, and a later one into it needs a one-time join grant from the owner. Also
 * the owner's API over namespaces and grants.
 */
@Injectable()
export class NamespacesService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {}

  /**
   * Claims `entry.namespace` when nobody has, else checks the right to enter it and consumes the join grant. Runs in
   * the registration's transaction, so a refused registration later on gives the grant back. Race-free: the claim is
   * one `INSERT … ON CONFLICT DO NOTHING`, and the grant row is locked before it is marked used.
   * @throws ProblemException 409 `namespace-claimed` it exists and neither owner, rotation nor a grant lets the caller in
   * @throws ProblemException 409 `namespace-case-collision` a namespace differing only in letter case exists
   * @throws ProblemException 403 `join-grant-refused` the grant is unknown, for another namespace, used, expired or revoked
   */
  async enter(manager: EntityManager, entry: NamespaceEntry): Promise<NamespaceAdmission> {
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(NamespaceEntity)
      .values({ name: entry.namespace, claimedByAgentId: entry.agentId })
      .orIgnore()
      .returning(['name'])
      .execute();
    if ((inserted.raw as unknown[]).length > 0) {
      // A grant names an existing namespace, so one sent with a fresh claim was meant for another name: refuse
      // rather than silently claim a misspelled namespace.
      if (entry.joinGrant) throw this.grantRefused(entry.namespace);
      return { kind: 'claimed' };
    }
    const existing = await manager.findOneBy(NamespaceEntity, { name: entry.namespace });
    if (!existing) {
      const twin = await manager.createQueryBuilder(NamespaceEntity, 'n').where('lower(n.name) = lower(:name)', { name: entry.namespace }).getOne();
      throw new ProblemException(
        HttpStatus.CONFLICT,
        `The namespace "${twin?.name ?? entry.namespace}" exists; namespaces differing only in letter case are not allowed. Use "${twin?.name ?? entry.namespace}" with a join grant, or another contactId.`,
        { rule: 'namespace-case-collision' },
      );
    }
    if (entry.owner || entry.currentNamespace === entry.namespace) {
      if (!entry.joinGrant) return { kind: 'member' };
    } else if (!entry.joinGrant) {
      throw new ProblemException(
        HttpStatus.CONFLICT,
        `The namespace "${entry.namespace}" is already claimed. Joining it needs a join grant from the gateway owner (POST /api/admin/namespaces/${entry.namespace}/grants), sent as "joinGrant".`,
        { rule: 'namespace-claimed' },
      );
    }
    return this.consumeGrant(manager, entry.joinGrant!, entry.namespace, entry.agentId);
  }

  /** Marks the grant used by `agentId` when it is open and for `namespace`; refuses anything else alike. */
  private async consumeGrant(manager: EntityManager, code: string, namespace: string, agentId: string): Promise<NamespaceAdmission> {
    const prefix = joinGrantPrefix(code);
    const grant = prefix ? await manager.findOne(JoinGrantEntity, { where: { prefix }, lock: { mode: 'pessimistic_write' } }) : null;
    const now = new Date();
    if (
      !grant ||
      !secretsEqual(sha256Hex(code), grant.secretHash) ||
      grant.namespace !== namespace ||
      grant.usedAt ||
      grant.revokedAt ||
      grant.expiresAt.getTime() <= now.getTime()
    ) {
      throw this.grantRefused(namespace);
    }
    await manager.update(JoinGrantEntity, { id: grant.id }, { usedAt: now, usedByAgentId: agentId });
    return { kind: 'joined', grantPrefix: grant.prefix, permissionCap: grant.permissions };
  }

  private grantRefused(namespace: string): ProblemException {
    // One answer for every reason, so a stolen or guessed code teaches nothing about which grants exist.
    return new ProblemException(
      HttpStatus.FORBIDDEN,
      `The join grant is not valid for the namespace "${namespace}": it is unknown, for another namespace, already used, expired or revoked. Ask the owner for a new one.`,
      { rule: 'join-grant-refused' },
    );
  }

  /**
   * Issues a one-time join grant for an existing namespace (owner only).
   * @param input lifetime (ms, default DEPLOY_JOIN_GRANT_TTL_MS), note and permission cap
   * @returns the grant with its code, shown only here
   * @throws NotFoundException (404) no such namespace
   * @throws BadRequestException (400) lifetime over DEPLOY_JOIN_GRANT_MAX_TTL_MS, or a permission the server doesn't grant
   */
  async issueGrant(namespace: string, input: IssueJoinGrantDto, caller: AuditCaller): Promise<IssuedJoinGrantDto> {
    const { joinGrantTtlMs, joinGrantMaxTtlMs } = this.config.deployNamespaces;
    const ttlMs = input.ttlMs ?? joinGrantTtlMs;
    if (ttlMs > joinGrantMaxTtlMs) throw new BadRequestException(`ttlMs may be at most ${joinGrantMaxTtlMs} (DEPLOY_JOIN_GRANT_MAX_TTL_MS).`);
    const permissions = input.permissions ? grantedPermissions(input.permissions, this.config.deploy.defaultPermissions) : null;
    const minted = mintJoinGrant();
    const grant = await this.dataSource.transaction(async (manager) => {
      await this.requireNamespace(manager, namespace);
      const row = manager.create(JoinGrantEntity, {
        prefix: minted.prefix,
        secretHash: sha256Hex(minted.code),
        namespace,
        note: input.note ?? null,
        permissions,
        expiresAt: new Date(Date.now() + ttlMs),
        usedAt: null,
        usedByAgentId: null,
        revokedAt: null,
      });
      await manager.insert(JoinGrantEntity, row);
      await this.audit.record(
        { ...caller, namespace },
        { action: 'admin.issue-join-grant', outcome: 'allowed', status: 201, target: minted.prefix, detail: `expires ${row.expiresAt.toISOString()}` },
        manager,
      );
      return manager.findOneByOrFail(JoinGrantEntity, { id: row.id });
    });
    return { ...toJoinGrantDto(grant), code: minted.code };
  }

  /**
   * The namespace's grants, newest first by default (sortable by `createdAt`, `expiresAt`).
   * @throws NotFoundException (404) no such namespace
   */
  async listGrants(namespace: string, query: JoinGrantQueryDto): Promise<Page<JoinGrantDto>> {
    await this.requireNamespace(this.dataSource.manager, namespace);
    const order = toOrder(query.sort, JOIN_GRANT_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(JoinGrantEntity), {
      where: { namespace },
      order,
    }, query);
    return toPage(rows.map(toJoinGrantDto), slice, query);
  }

  /**
   * Revokes an unused grant; revoking a revoked or used grant succeeds and changes nothing.
   * @throws NotFoundException (404) no grant with that prefix in that namespace
   */
  async revokeGrant(namespace: string, prefix: string, caller: AuditCaller): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const grant = await manager.findOne(JoinGrantEntity, { where: { prefix, namespace }, lock: { mode: 'pessimistic_write' } });
      if (!grant) throw new NotFoundException(`The namespace ${namespace} has no join grant with the prefix ${prefix}.`);
      if (!grant.revokedAt && !grant.usedAt) await manager.update(JoinGrantEntity, { id: grant.id }, { revokedAt: new Date() });
      await this.audit.record({ ...caller, namespace }, { action: 'admin.revoke-join-grant', outcome: 'allowed', status: 204, target: prefix }, manager);
    });
  }

  /**
   * Every namespace with its live token count, newest first by default (sortable by `createdAt`, `name`). The count
   * is the namespace row's own `live_tokens`, kept by triggers (migration 1795600740000): a page reads no tokens, so
   * its cost doesn't grow with them (issue 23, acceptance 1).
   */
  async list(query: NamespaceQueryDto): Promise<Page<NamespaceDto>> {
    const order = toOrder(query.sort, NAMESPACE_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(NamespaceEntity), { where: {}, order }, query);
    return toPage(rows.map(toNamespaceDto), slice, query);
  }

  private async requireNamespace(manager: EntityManager, namespace: string): Promise<void> {
    if (!(await manager.existsBy(NamespaceEntity, { name: namespace }))) throw new NotFoundException(`No namespace is named ${namespace}.`);
  }
}
