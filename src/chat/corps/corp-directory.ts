import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { WorkChatCorpEntity } from './work-chat-corp.entity';
import { ClusterEvents } from '../../common/cluster/cluster-events';

/** ClusterEvents topic of a tenant's corps (key: the tenant id). */
export const CORP_EVENTS = 'chat-corps';

/** A corp's id and name: all a list needs of it (no secrets are kept in memory). */
export interface CorpName {
  id: string;
  corpName: string;
}

/** One tenant's corps, by id and by name. */
interface TenantCorps {
  byId: Map<string, CorpName>;
  byName: Map<string, CorpName>;
}

/**
 * The corp names the chat lists filter by and show (chat-management-api.md: the `corpName` filters of the contact
 * and contact-way lists and their `corpName` columns), reused for CHAT_LIST_CORP_CACHE_TTL_MS per tenant so that a
 * list page is one PostgreSQL statement (issue 5, acceptance 6: a round trip costs more app CPU than the page's
 * index reads). Not for writes: they read the corp in their own transaction.
 *
 * Freshness: {@link WorkChatCorpsService} forgets a tenant on every corp change, on every instance (LISTEN/NOTIFY,
 * issue 20 item 5); a name or id not in the reused set is always looked up again (so a new corp is found at once);
 * only while an instance's listener is down can a rename or removal elsewhere show late there, by at most the TTL.
 */
@Injectable()
export class ChatCorpDirectory {
  private readonly recent?: LRUCache<string, Promise<TenantCorps>>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: ClusterEvents,
  ) {
    const ttl = config.chatLists.corpCacheTtlMs;
    if (ttl > 0) this.recent = new LRUCache({ max: 10_000, ttl });
    events.subscribe(CORP_EVENTS, (tenantId) => this.recent?.delete(tenantId), () => this.recent?.clear());
  }

  /** @throws NotFoundException (404) the tenant has no corp of that name */
  async byName(tenantId: string, corpName: string): Promise<CorpName> {
    const corp = await this.findByName(tenantId, corpName);
    if (!corp) throw new NotFoundException(`No corp named "${corpName}" in this tenant.`);
    return corp;
  }

  /** The tenant's corp of that name, or undefined. */
  async findByName(tenantId: string, corpName: string): Promise<CorpName | undefined> {
    return (await this.corps(tenantId)).byName.get(corpName) ?? (await this.corps(tenantId, true)).byName.get(corpName);
  }

  /** The tenant's corp names by corp id; ids of no corp of the tenant are absent. */
  async names(tenantId: string, corpIds: Iterable<string>): Promise<Map<string, string>> {
    let corps = await this.corps(tenantId);
    const ids = [...new Set(corpIds)];
    if (ids.some((id) => !corps.byId.has(id))) corps = await this.corps(tenantId, true);
    return new Map(ids.flatMap((id) => (corps.byId.has(id) ? [[id, corps.byId.get(id)!.corpName] as const] : [])));
  }

  /**
   * Drops the tenant's reused corps here at once and on every other instance within milliseconds (ClusterEvents):
   * called after every corp change.
   */
  forget(tenantId: string): void {
    this.recent?.delete(tenantId);
    this.events.publishSoon(CORP_EVENTS, tenantId);
  }

  private corps(tenantId: string, fresh = false): Promise<TenantCorps> {
    const cached = fresh ? undefined : this.recent?.get(tenantId);
    if (cached) return cached;
    const reading = this.dataSource
      .getRepository(WorkChatCorpEntity)
      .find({ select: { id: true, corpName: true }, where: { tenantId } })
      .then((rows) => {
        const corps = rows.map((row) => ({ id: row.id, corpName: row.corpName }));
        return { byId: new Map(corps.map((corp) => [corp.id, corp])), byName: new Map(corps.map((corp) => [corp.corpName, corp])) };
      });
    this.recent?.set(tenantId, reading);
    reading.catch(() => {
      if (this.recent?.get(tenantId) === reading) this.recent.delete(tenantId);
    });
    return reading;
  }
}
