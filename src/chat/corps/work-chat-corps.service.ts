import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { ChatCorpDirectory } from './corp-directory';
import { WorkChatCorpEntity } from './work-chat-corp.entity';
import {
  CreateWorkChatCorpRelateRequest,
  toWorkChatCorpRelateDto,
  UpdateWorkChatCorpRelateRequest,
  WORK_CHAT_CORP_SORT_FIELDS,
  WorkChatCorpPageQuery,
  WorkChatCorpRelateDto,
} from './work-chat-corps.dto';
import { uniqueViolation } from '../common/db-support';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Which unique index a duplicate hit, and what to tell the caller. */
const DUPLICATE_MESSAGES: Record<string, (row: Pick<WorkChatCorpEntity, 'corpName' | 'workChatCorpId'>) => string> = {
  ux_chat_work_corp_tenant_name: (row) => `The tenant already has a corp named "${row.corpName}".`,
  ux_chat_work_corp_tenant_platform_id: (row) => `The tenant already links the platform corp "${row.workChatCorpId}".`,
};

/**
 * Corp links of a tenant (chat-management-api.md, Console endpoints: `{C}/workChat/corps`). Every query filters by
 * the tenant, so another tenant's ids answer 404.
 */
@Injectable()
export class WorkChatCorpsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly corpDirectory: ChatCorpDirectory,
  ) {}

  /**
   * @throws BadRequestException (400) only one of callbackToken / callbackAesKey
   * @throws ConflictException (409) corpName or workChatCorpId already used in the tenant
   */
  async create(tenantId: string, input: CreateWorkChatCorpRelateRequest): Promise<WorkChatCorpRelateDto> {
    const repository = this.dataSource.getRepository(WorkChatCorpEntity);
    const row = repository.create({
      tenantId,
      corpName: input.corpName,
      workChatCorpId: input.workChatCorpId,
      agentId: input.agentId || null,
      secret: input.secret || null,
      callbackToken: input.callbackToken || null,
      callbackAesKey: input.callbackAesKey || null,
      remark: input.remark ?? null,
      enabled: input.enabled ?? true,
    });
    assertCallbackPair(row);
    await this.saveUnique(row);
    return toWorkChatCorpRelateDto(row);
  }

  /** The tenant's corps, newest first; `likeCorpName` filters by name (case-insensitive substring). */
  async list(tenantId: string, query: WorkChatCorpPageQuery): Promise<Page<WorkChatCorpRelateDto>> {
    const order = toOrder(query.sort, WORK_CHAT_CORP_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(WorkChatCorpEntity).createQueryBuilder('corp').where('corp.tenant_id = :tenantId', { tenantId });
    if (query.likeCorpName) {
      builder.andWhere(...containsMatch('corp.corp_name', 'pattern', query.likeCorpName));
    }
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`corp.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.likeCorpName) });
    return toPage(rows.map(toWorkChatCorpRelateDto), slice, query);
  }

  /** @throws NotFoundException (404) no such corp in the tenant */
  async get(tenantId: string, id: string): Promise<WorkChatCorpRelateDto> {
    return toWorkChatCorpRelateDto(await this.find(tenantId, id));
  }

  /**
   * Changes the given fields; secrets omitted are kept, "" clears them (callbackToken "" clears the callback pair).
   * @throws NotFoundException (404); BadRequestException (400) half a callback pair; ConflictException (409) duplicate
   */
  async update(tenantId: string, id: string, input: UpdateWorkChatCorpRelateRequest): Promise<WorkChatCorpRelateDto> {
    const row = await this.find(tenantId, id);
    if (input.corpName !== undefined) row.corpName = input.corpName;
    if (input.workChatCorpId !== undefined) row.workChatCorpId = input.workChatCorpId;
    if (input.agentId !== undefined) row.agentId = input.agentId || null;
    if (input.secret !== undefined) row.secret = input.secret || null;
    if (input.callbackToken === '' || input.callbackAesKey === '') {
      row.callbackToken = null;
      row.callbackAesKey = null;
    }
    if (input.callbackToken) row.callbackToken = input.callbackToken;
    if (input.callbackAesKey) row.callbackAesKey = input.callbackAesKey;
    if (input.remark !== undefined) row.remark = input.remark || null;
    if (input.enabled !== undefined) row.enabled = input.enabled;
    assertCallbackPair(row);
    await this.saveUnique(row);
    return toWorkChatCorpRelateDto(row);
  }

  /**
   * Unlinks a corp that nothing refers to any more: its staff users, contact ways, group ways, external contacts,
   * group rooms and channels must be removed first (a corp deleted under them would leave rows that can never reach
   * the platform again). The corp row is locked while counting.
   * @throws NotFoundException (404) no such corp in the tenant; ConflictException (409) rows still refer to it
   */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const locked = await manager.query('SELECT id FROM chat_work_corp WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [tenantId, id]);
      if (locked.length === 0) throw notFound(id);
      const [counts]: Record<string, string>[] = await manager.query(CORP_REFERENCES_SQL, [tenantId, id]);
      const inUse = Object.entries(counts).filter(([, count]) => Number(count) > 0).map(([what, count]) => `${count} ${what.replaceAll('_', ' ')}`);
      if (inUse.length > 0) throw new ConflictException(`The corp is still used by ${inUse.join(', ')}; remove them first, or disable the corp instead (PUT with enabled: false).`);
      await manager.delete(WorkChatCorpEntity, { tenantId, id });
    });
    this.corpDirectory.forget(tenantId);
  }

  private async find(tenantId: string, id: string): Promise<WorkChatCorpEntity> {
    const row = await this.dataSource.getRepository(WorkChatCorpEntity).findOneBy({ tenantId, id });
    if (!row) throw notFound(id);
    return row;
  }

  /** Saves the row; a unique-index violation becomes 409 naming the duplicate field. */
  private async saveUnique(row: WorkChatCorpEntity): Promise<void> {
    try {
      await this.dataSource.getRepository(WorkChatCorpEntity).save(row);
      this.corpDirectory.forget(row.tenantId);
    } catch (error) {
      const constraint = uniqueViolation(error);
      const message = constraint === undefined ? undefined : DUPLICATE_MESSAGES[constraint];
      if (message) throw new ConflictException(message(row));
      throw error;
    }
  }
}

/** How many rows of each kind refer to corp $2 of tenant $1 (column names are what the 409 message says). */
const CORP_REFERENCES_SQL = `
  SELECT (SELECT count(*) FROM chat_work_user WHERE tenant_id = $1 AND corp_id = $2) AS staff_users,
         (SELECT count(*) FROM chat_contact_way WHERE tenant_id = $1 AND corp_id = $2) AS contact_ways,
         (SELECT count(*) FROM chat_group_way WHERE tenant_id = $1 AND corp_id = $2) AS group_ways,
         (SELECT count(*) FROM chat_external_contact WHERE tenant_id = $1 AND corp_id = $2) AS external_contacts,
         (SELECT count(*) FROM chat_group_room WHERE tenant_id = $1 AND corp_id = $2) AS group_rooms,
         (SELECT count(*) FROM chat_channel WHERE tenant_id = $1 AND corp_id = $2) AS channels`;

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No corp ${id} in this tenant.`);
}

/** The callback token and EncodingAESKey only work together. @throws BadRequestException (400) */
function assertCallbackPair(row: Pick<WorkChatCorpEntity, 'callbackToken' | 'callbackAesKey'>): void {
  if (Boolean(row.callbackToken) !== Boolean(row.callbackAesKey)) {
    throw new BadRequestException('callbackToken and callbackAesKey go together: give both, or clear both with "".');
  }
}
