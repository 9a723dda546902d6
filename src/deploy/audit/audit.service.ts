import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { Between, DataSource, EntityManager } from 'typeorm';
import { Page, PageBoundsQueryDto, toPage } from '../../common/paging/page';
import { agentTokenPrefix } from '../tokens/agent-token.format';
import { bearerCredential } from '../../common/auth/auth.guard';
import type { DeployPrincipal } from '../auth/deploy-principal';
import { AuditEntryEntity, AuditOutcome } from './audit-entry.entity';
import { maskSecrets } from './mask-secrets';
import { ListPager } from '../../common/paging/list-pager';

/** Who called, as the audit records it. */
export interface AuditCaller {
  tokenPrefix: string | null;
  agentId: string | null;
  namespace: string | null;
  clientAddress: string | null;
}

/** One audit row to write; `occurredAt` defaults to now. */
export interface AuditRecord {
  action: string;
  outcome: AuditOutcome;
  status: number;
  target?: string | null;
  command?: string | null;
  exitCode?: number | null;
  detail?: string | null;
}

/**
 * The gateway's audit log (deployment-gateway.md, Events). Changes pass their transaction's EntityManager so the
 * row commits or rolls back with the change it records.
 */
@Injectable()
export class AuditService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
  ) {}

  /**
   * Describes the caller of `request`: the authenticated principal, or for a refused credential only the public
   * prefix it claims (never the secret part).
   */
  callerOf(request: Request & { principal?: DeployPrincipal }): AuditCaller {
    const principal = request.principal;
    const clientAddress = request.ip ?? request.socket?.remoteAddress ?? null;
    if (principal?.kind === 'agent') {
      return { tokenPrefix: principal.tokenPrefix, agentId: principal.agentId, namespace: principal.namespace, clientAddress };
    }
    const bearer = bearerCredential(request);
    const claimedPrefix = bearer ? (agentTokenPrefix(bearer) ?? null) : null;
    return { tokenPrefix: principal?.kind === 'owner' ? 'owner' : claimedPrefix, agentId: null, namespace: null, clientAddress };
  }

  /**
   * Writes one audit row.
   * @param manager the transaction of the change being recorded; omitted for reads and refusals
   */
  async record(caller: AuditCaller, record: AuditRecord, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.insert(AuditEntryEntity, {
      occurredAt: new Date(),
      ...caller,
      action: record.action,
      outcome: record.outcome,
      status: record.status,
      target: record.target ?? null,
      command: record.command == null ? null : maskSecrets(record.command),
      exitCode: record.exitCode ?? null,
      detail: record.detail ?? null,
    });
  }

  /**
   * The audit rows of one UTC day, oldest first.
   * @param day `YYYY-MM-DD`, already validated
   */
  async listDay(day: string, query: PageBoundsQueryDto): Promise<Page<AuditEntryEntity>> {
    const start = new Date(`${day}T00:00:00.000Z`);
    const end = new Date(start.getTime() + 86_400_000 - 1);
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(AuditEntryEntity), { where: { occurredAt: Between(start, end) }, order: { occurredAt: 'ASC' } }, query);
    return toPage(rows, slice, query);
  }
}
