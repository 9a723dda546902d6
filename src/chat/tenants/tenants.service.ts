import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { tenantSlugProblem } from './tenant-slug';
import { TenantEntity } from './tenant.entity';
import { ClusterEvents } from '../../common/cluster/cluster-events';
import { ListPager } from '../../common/paging/list-pager';

/** ClusterEvents topic of tenant rows (key: the tenant id). */
export const TENANT_EVENTS = 'chat-tenant';
import { TENANT_SORT_FIELDS, CreateTenantRequest, TenantDto, TenantPageQuery, toTenantDto, UpdateTenantRequest } from './tenants.dto';

/** Tenants of the chat wing (issue 5, Tenancy): created by a platform administrator (API or `atrium-chat tenant`). */
@Injectable()
export class TenantsService {
  /** Tenants read by {@link lookup}, null for "no such tenant" (CHAT_AUTH_TENANT_CACHE_TTL_MS; undefined when 0). */
  private readonly recentLookups?: LRUCache<string, { row: TenantEntity | null }>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly events: ClusterEvents,
    @Optional() private readonly pager: ListPager = ListPager.withDefaults(),
  ) {
    const ttl = config.chatAuth.tenantCacheTtlMs;
    if (ttl > 0) this.recentLookups = new LRUCache({ max: 10_000, ttl });
    // A change on any instance drops the entry here too (issue 20 item 5).
    events.subscribe(TENANT_EVENTS, (id) => this.recentLookups?.delete(id), () => this.recentLookups?.clear());
  }

  /**
   * @throws BadRequestException (400) id not a valid slug, or reserved (tenant-slug.ts)
   * @throws ConflictException (409) a tenant with this id exists
   */
  async create(input: CreateTenantRequest): Promise<TenantDto> {
    const problem = tenantSlugProblem(input.id);
    if (problem) throw new BadRequestException(problem);
    const inserted = await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(TenantEntity)
      .values({ id: input.id, name: input.name.trim(), status: 'active' })
      .orIgnore()
      .returning('*')
      .execute();
    if (!inserted.raw.length) throw new ConflictException(`Tenant "${input.id}" already exists.`);
    await this.events.publish(TENANT_EVENTS, input.id);
    return toTenantDto(await this.find(input.id));
  }

  /** Sorted by `createdAt` (default, newest first), `id` or `name`. */
  async list(query: TenantPageQuery): Promise<Page<TenantDto>> {
    const order = toOrder(query.sort, TENANT_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(TenantEntity), { where: query.status ? { status: query.status } : {}, order }, query);
    return toPage(rows.map(toTenantDto), slice, query);
  }

  /** @throws NotFoundException (404) */
  async get(id: string): Promise<TenantDto> {
    return toTenantDto(await this.find(id));
  }

  /** Renames, disables or re-enables a tenant. @throws NotFoundException (404) */
  async update(id: string, input: UpdateTenantRequest): Promise<TenantDto> {
    const row = await this.find(id);
    if (input.name !== undefined) row.name = input.name.trim();
    if (input.status !== undefined) row.status = input.status;
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(TenantEntity).save(row);
      await this.events.publish(TENANT_EVENTS, id, manager);
    });
    return toTenantDto(row);
  }

  /**
   * The tenant row, or undefined: what every chat request's auth check reads. Reused for
   * CHAT_AUTH_TENANT_CACHE_TTL_MS (a primary-key read per request otherwise). A change through any instance drops the
   * entry on every instance at commit (ClusterEvents, LISTEN/NOTIFY); only while an instance's listener is down can a
   * change made elsewhere show late there, by at most that TTL.
   */
  async lookup(id: string): Promise<TenantEntity | undefined> {
    const cached = this.recentLookups?.get(id);
    if (cached) return cached.row ?? undefined;
    const row = await this.dataSource.getRepository(TenantEntity).findOneBy({ id });
    this.recentLookups?.set(id, { row });
    return row ?? undefined;
  }

  private async find(id: string): Promise<TenantEntity> {
    const row = await this.dataSource.getRepository(TenantEntity).findOneBy({ id });
    if (!row) throw new NotFoundException(`No tenant "${id}".`);
    return row;
  }
}
