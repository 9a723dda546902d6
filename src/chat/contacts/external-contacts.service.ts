import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { ChatListPager } from '../common/list-pager';
import { listShape, selectAs } from '../../common/paging/list-pager';
import { ChatCorpDirectory } from '../corps/corp-directory';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ContactWayEntity } from '../contact-ways/contact-way.entity';
import type { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { CHAT_PLATFORM, type ChatPlatform, type UpdateCustomerRemarkInput } from '../platform';
import { contactKey, planBatchStateChange, type BatchStateContact } from './batch-state.rules';
import { parseChatTimeRange } from '../common/chat-timestamp';
import { corpContext, findCorpById, findCorpByName, findCorpByPlatformId } from './corp-lookup';
import { ExternalContactEntity } from './external-contact.entity';
import { updateReturning } from './update-returning';
import {
  BatchChangeStateRequestV1,
  BatchChangeStateResponseV1,
  CHAT_CONTACTS_EXTERNAL_SORT_FIELDS,
  chatContactsExternalDtoOf,
  ChatContactsExternalDto,
  ChatContactsExternalSource,
  CONSOLE_CONTACT_LIST_COLUMNS,
  CONTACT_SOURCE_COLUMNS,
  contactSourceOfRow,
  externalContactDtoV1Of,
  ExternalContactSource,
  ChatContactsExternalPageQuery,
  ChatContactsExternalRequest,
  ContactRefV1,
  ContactRemarkFields,
  ExternalContactByExternalUserIdQueryRequestV1,
  ExternalContactByLastStatesPageQuery,
  ExternalContactByLastStatesQueryV1,
  ExternalContactByOpenIdQueryV1,
  ExternalContactDtoV1,
  LAST_STATES_SORT_FIELDS,
  toChatContactsExternalDto,
  toExternalContactDtoV1,
} from './external-contacts.dto';
import { searchMatch, searchScopeCondition, type ListSearch } from '../../database/like-contains';

/**
 * External contacts (chat-management-api.md, External contact; issue 5, "External contacts"): the console's read,
 * edit, list and AI switch of a staff member's contact; the v1 tenant API's lookups (open id, last states, external
 * user ids), remark update (pushed to the platform), AI reply switch and batch state change; tag renames.
 * Every query filters by the tenant: another tenant's ids answer 404.
 */
@Injectable()
export class ExternalContactsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly pager: ChatListPager,
    private readonly corpDirectory: ChatCorpDirectory,
  ) {}

  // ---------------------------------------------------------------- console

  /** @throws NotFoundException (404) no such contact of the staff member in the tenant */
  async getForStaff(tenantId: string, workChatUserId: string, contactId: string): Promise<ChatContactsExternalDto> {
    const row = await this.findForStaff(this.dataSource.manager, tenantId, workChatUserId, contactId);
    return this.toConsoleDto(row);
  }

  /**
   * Changes a contact from the console. Remark, description, company and mobile are the platform's fields: they are
   * pushed to the platform first (a refusal changes nothing); open id and the AI switch are Atrium's.
   * @throws NotFoundException (404); ConflictException (409) disabled corp; ChatPlatformError (mapped)
   */
  async updateForStaff(tenantId: string, workChatUserId: string, contactId: string, input: ChatContactsExternalRequest): Promise<ChatContactsExternalDto> {
    const row = await this.findForStaff(this.dataSource.manager, tenantId, workChatUserId, contactId);
    const remark: ContactRemarkFields = {
      remark: input.remark,
      description: input.description,
      remarkCompany: input.remarkCompany,
      remarkMobiles: input.mobile === undefined ? undefined : input.mobile ? [input.mobile] : [],
    };
    if (Object.values(remark).some((value) => value !== undefined)) await this.pushRemark(row, remark);
    const changes: { openId?: string | null; aiEnabled?: boolean } = {};
    if (input.openId !== undefined) changes.openId = input.openId || null;
    if (input.aiEnabled !== undefined) changes.aiEnabled = input.aiEnabled;
    if (Object.keys(changes).length > 0) await this.dataSource.getRepository(ExternalContactEntity).update({ tenantId, id: row.id }, changes);
    return this.toConsoleDto(await this.findForStaff(this.dataSource.manager, tenantId, workChatUserId, contactId));
  }

  /** The staff member's contacts, newest first, with the query's filters (sizes 1..200); evaluation sandbox contacts are left out. */
  async listForStaff(tenantId: string, workChatUserId: string, query: ChatContactsExternalPageQuery): Promise<Page<ChatContactsExternalDto>> {
    const order = toOrder(query.sort, CHAT_CONTACTS_EXTERNAL_SORT_FIELDS, { createdAt: 'DESC' });
    const range = parseChatTimeRange(query.startCreateTime, query.endCreateTime, ['startCreateTime', 'endCreateTime']);
    // A keyword rare among the staff member's contacts is found through the scoped grams indexes alone (the scope is
    // then a plain filter: searchScopeCondition); a common one by walking the sort index with the ILIKEs (a page is found early).
    const search = staffContactSearch(tenantId, workChatUserId);
    const commonKeyword = query.keyword ? await this.pager.isCommonTerm(this.dataSource, search, query.keyword) : true;
    const [staffScope, scopeParameters] = searchScopeCondition(search, !commonKeyword);
    const builder = this.dataSource
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .where(`${staffScope} AND NOT contact.sandbox`, scopeParameters);
    if (query.corpId) builder.andWhere('contact.corp_id = :corpId', { corpId: query.corpId });
    if (query.state) builder.andWhere('contact.state = :state', { state: query.state });
    if (query.aiEnabled !== undefined) builder.andWhere('contact.ai_enabled = :aiEnabled', { aiEnabled: query.aiEnabled });
    if (range.start) builder.andWhere('contact.created_at >= :start', { start: range.start });
    if (range.end) builder.andWhere('contact.created_at <= :end', { end: range.end });
    if (query.keyword) {
      // Name or remark contains it (the staff member's scoped grams indexes, migration 1795600700000), or the external user id is it.
      // The tenant is repeated in the external user id's arm so that its btree serves it when the scope is a plain filter.
      const orElse: [string, Record<string, unknown>] = ['(contact.tenant_id = :tenantId AND contact.external_user_id = :keyword)', { keyword: query.keyword }];
      builder.andWhere(...searchMatch(search, 'pattern', query.keyword, { common: commonKeyword, orElse }));
    }
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`contact.${property}`, direction, direction === 'DESC' ? 'NULLS LAST' : 'NULLS FIRST');
    // Ties: id ascending under the default (descending) order, descending under an ascending one, so one index per
    // sort serves both directions (migration 1795600200000).
    builder.addOrderBy('contact.id', Object.values(order)[0] === 'ASC' ? 'DESC' : 'ASC');
    // A keyword search's total is exact up to PAGING_SEARCH_TOTAL_EXACT_CAP only (docs/lists-and-search.md).
    // Without a keyword the statement's shape is which filters are given and the sort: named, the pager skips
    // rendering the builder's SQL per request (issue 14 acceptance 1). A search's SQL depends on its term: not named.
    const shape = query.keyword ? undefined : listShape('staff-contacts', [Boolean(query.corpId), Boolean(query.state), query.aiEnabled !== undefined, Boolean(range.start), Boolean(range.end)], order);
    // Plain rows of the answer's columns, mapped once (issue 14 item 1): no entity, no Date per time.
    const { rows, ...slice } = await this.pager.pageRows<ChatContactsExternalSource>(selectAs(builder, CONSOLE_CONTACT_LIST_COLUMNS), query, {
      search: Boolean(query.keyword),
      shape,
      candidates: !commonKeyword,
      tenantId,
    });
    const names = await this.corpDirectory.names(tenantId, rows.map((row) => row.corpId));
    return toPage(rows.map((row) => chatContactsExternalDtoOf(contactSourceOfRow(row), names.get(row.corpId) ?? '')), slice, query);
  }

  /**
   * Flips the AI reply switch of a contact in one statement (`SET ai_enabled = NOT ai_enabled … RETURNING`), so
   * concurrent toggles each flip once.
   * @returns the new value
   * @throws NotFoundException (404) no such contact of the staff member in the tenant
   */
  async toggleAi(tenantId: string, workChatUserId: string, contactId: string): Promise<boolean> {
    const [row] = await updateReturning<{ ai_enabled: boolean }>(
      this.dataSource.manager,
      `UPDATE chat_external_contact SET ai_enabled = NOT ai_enabled, updated_at = now()
        WHERE tenant_id = $1 AND id = $2 AND work_chat_user_id = $3 RETURNING ai_enabled`,
      [tenantId, contactId, workChatUserId],
    );
    if (!row) throw contactNotFound(contactId, workChatUserId);
    return row.ai_enabled;
  }

  // ---------------------------------------------------------------- v1 tenant API

  /**
   * Sets the staff member's remark fields of a customer: on the platform first, then on the stored contact.
   * @throws BadRequestException (400) no remark field given; NotFoundException (404) unknown corp or contact;
   *   ConflictException (409) disabled corp; ChatPlatformError (mapped)
   */
  async updateRemark(tenantId: string, corpName: string, userId: string, externalUserId: string, fields: ContactRemarkFields): Promise<void> {
    const given = [fields.remark, fields.description, fields.remarkCompany, fields.remarkMobiles].some((value) => value !== undefined);
    if (!given) throw new BadRequestException('Give at least one of remark, description, remarkCompany, remarkMobiles.');
    const corp = await findCorpByName(this.dataSource.manager, tenantId, corpName);
    const row = await this.findByRef(this.dataSource.manager, corp, userId, externalUserId);
    await this.pushRemark(row, fields, corp);
  }

  /**
   * The contact of a customer by open id: the given staff member's, else the most recently active one.
   * @throws NotFoundException (404) no contact with this open id (in the corp, for the staff member)
   */
  async byOpenId(tenantId: string, query: ExternalContactByOpenIdQueryV1): Promise<ExternalContactDtoV1> {
    const builder = this.dataSource.getRepository(ExternalContactEntity).createQueryBuilder('contact').where('contact.tenant_id = :tenantId AND contact.open_id = :openId', { tenantId, openId: query.openId });
    if (query.corpName) builder.andWhere('contact.corp_id = :corpId', { corpId: (await this.corpDirectory.byName(tenantId, query.corpName)).id });
    if (query.userId) builder.andWhere('contact.work_chat_user_id = :userId', { userId: query.userId });
    const row = await builder
      .orderBy('contact.last_message_at', 'DESC', 'NULLS LAST')
      .addOrderBy('contact.state_at', 'DESC', 'NULLS LAST')
      .addOrderBy('contact.created_at', 'DESC')
      .addOrderBy('contact.id', 'ASC')
      .getOne();
    if (!row) throw new NotFoundException(`No contact with open id "${query.openId}"${query.corpName ? ` in corp "${query.corpName}"` : ''}${query.userId ? ` of staff member ${query.userId}` : ''}.`);
    return toExternalContactDtoV1(row, (await this.corpDirectory.names(tenantId, [row.corpId])).get(row.corpId) ?? '');
  }

  /**
   * Contacts of a corp whose last state is one of `states`, optionally of one staff member and with the state set in
   * a time range; newest state first; evaluation sandbox contacts left out. Served by the index
   *   ix_chat_external_contact_state_at (migration 1795405000000).
   * @throws BadRequestException (400) too many states, a bad time filter, an unknown sort field;
   *   NotFoundException (404) unknown corp
   */
  async byLastStates(tenantId: string, body: ExternalContactByLastStatesQueryV1, query: ExternalContactByLastStatesPageQuery): Promise<Page<ExternalContactDtoV1>> {
    const max = this.config.chatContacts.lookupMaxIds;
    if (body.states.length > max) throw new BadRequestException(`states names ${body.states.length} states; at most ${max} (CHAT_CONTACT_LOOKUP_MAX_IDS).`);
    const order = toOrder(query.sort, LAST_STATES_SORT_FIELDS, { stateAt: 'DESC' });
    const range = parseChatTimeRange(body.startTime, body.endTime, ['startTime', 'endTime']);
    const corp = await this.corpDirectory.byName(tenantId, body.corpName);
    const builder = this.dataSource
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .where('contact.tenant_id = :tenantId AND contact.corp_id = :corpId AND NOT contact.sandbox', { tenantId, corpId: corp.id });
    // One state is an equality: its statement runs prepared (genericPlanSafe), served in order by
    // ix_chat_external_contact_state_at; a list of states stays an IN (custom plans: see prepared.rules.ts).
    const states = [...new Set(body.states)];
    if (states.length === 1) builder.andWhere('contact.state = :state', { state: states[0] });
    else builder.andWhere('contact.state IN (:...states)', { states });
    if (body.userId) builder.andWhere('contact.work_chat_user_id = :userId', { userId: body.userId });
    if (range.start) builder.andWhere('contact.state_at >= :start', { start: range.start });
    if (range.end) builder.andWhere('contact.state_at <= :end', { end: range.end });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`contact.${property}`, direction, direction === 'DESC' ? 'NULLS LAST' : 'NULLS FIRST');
    // Ties: id ascending under the default (descending) order, descending under an ascending one, so one index per
    // sort serves both directions (migration 1795600200000).
    builder.addOrderBy('contact.id', Object.values(order)[0] === 'ASC' ? 'DESC' : 'ASC');
    // Named by one state or several, which filters are given and the sort, so the pager does not render the builder's
    // SQL per request (issue 14 item 1); several states are one `:...states` parameter whatever their number.
    const shape = listShape(`last-states:${states.length === 1 ? 'one' : 'many'}`, [Boolean(body.userId), Boolean(range.start), Boolean(range.end)], order);
    // Plain rows of the answer's columns, mapped once (issue 14 item 1).
    const { rows, ...slice } = await this.pager.pageRows<ExternalContactSource>(selectAs(builder, CONTACT_SOURCE_COLUMNS), query, { tenantId, shape });
    return toPage(rows.map((row) => externalContactDtoV1Of(contactSourceOfRow(row), corp.corpName)), slice, query);
  }

  /**
   * Every contact of the given customers in the corp (one per staff member who has them), in the order of
   * `externalUserIds`, then by staff member. Unknown ids are simply absent.
   * @throws BadRequestException (400) too many ids; NotFoundException (404) unknown corp
   */
  async byExternalUserIds(tenantId: string, body: ExternalContactByExternalUserIdQueryRequestV1): Promise<ExternalContactDtoV1[]> {
    const max = this.config.chatContacts.lookupMaxIds;
    if (body.externalUserIds.length > max) throw new BadRequestException(`externalUserIds names ${body.externalUserIds.length} ids; at most ${max} (CHAT_CONTACT_LOOKUP_MAX_IDS).`);
    const corp = await this.corpDirectory.byName(tenantId, body.corpName);
    const ids = [...new Set(body.externalUserIds)];
    const rows = await this.dataSource.getRepository(ExternalContactEntity).find({
      where: { tenantId, corpId: corp.id, externalUserId: In(ids), ...(body.userId ? { workChatUserId: body.userId } : {}) },
    });
    const position = new Map(ids.map((id, index) => [id, index]));
    rows.sort((a, b) => position.get(a.externalUserId)! - position.get(b.externalUserId)! || a.workChatUserId.localeCompare(b.workChatUserId));
    return rows.map((row) => toExternalContactDtoV1(row, corp.corpName));
  }

  /** @throws NotFoundException (404) unknown corp or contact */
  async getAi(tenantId: string, ref: ContactRefV1): Promise<boolean> {
    const corp = await findCorpByName(this.dataSource.manager, tenantId, ref.corpName);
    return (await this.findByRef(this.dataSource.manager, corp, ref.userId, ref.externalUserId)).aiEnabled;
  }

  /**
   * Sets the AI reply switch (idempotent: setting the current value is fine).
   * @returns the value now stored
   * @throws NotFoundException (404) unknown corp or contact
   */
  async setAi(tenantId: string, ref: ContactRefV1, enabled: boolean): Promise<boolean> {
    const corp = await findCorpByName(this.dataSource.manager, tenantId, ref.corpName);
    const [row] = await updateReturning<{ ai_enabled: boolean }>(
      this.dataSource.manager,
      `UPDATE chat_external_contact SET ai_enabled = $5, updated_at = CASE WHEN ai_enabled = $5 THEN updated_at ELSE now() END
        WHERE tenant_id = $1 AND corp_id = $2 AND work_chat_user_id = $3 AND external_user_id = $4 RETURNING ai_enabled`,
      [tenantId, corp.id, ref.userId, ref.externalUserId, enabled],
    );
    if (!row) throw refNotFound(corp, ref.userId, ref.externalUserId);
    return row.ai_enabled;
  }

  /**
   * Moves contacts to contact way states, per item (batch-state.rules.ts): items that fail (unknown state or
   * contact, repeated contact) do not stop the others; every change is written in one transaction, with the
   * contacts locked, and `stateAt` set to now.
   * @throws BadRequestException (400) more items than CHAT_CONTACT_BATCH_MAX_ITEMS; NotFoundException (404) unknown corp
   */
  async batchChangeState(tenantId: string, body: BatchChangeStateRequestV1): Promise<BatchChangeStateResponseV1> {
    const max = this.config.chatContacts.batchMaxItems;
    if (body.items.length > max) throw new BadRequestException(`items holds ${body.items.length} changes; at most ${max} per request (CHAT_CONTACT_BATCH_MAX_ITEMS).`);
    return this.dataSource.transaction(async (manager) => {
      const corp = await findCorpByName(manager, tenantId, body.corpName);
      const states = [...new Set(body.items.map((item) => item.state))];
      const ways = await manager.getRepository(ContactWayEntity).find({ select: { state: true }, where: { tenantId, corpId: corp.id, state: In(states) } });
      const knownStates = new Set(ways.map((way) => way.state!));
      const rows = await manager
        .getRepository(ExternalContactEntity)
        .createQueryBuilder('contact')
        .select(['contact.id', 'contact.workChatUserId', 'contact.externalUserId', 'contact.state'])
        .where('contact.tenant_id = :tenantId AND contact.corp_id = :corpId', { tenantId, corpId: corp.id })
        .andWhere('(contact.work_chat_user_id, contact.external_user_id) IN (SELECT * FROM jsonb_to_recordset(:pairs::jsonb) AS p(u varchar, e varchar))', {
          pairs: JSON.stringify(body.items.map((item) => ({ u: item.userId, e: item.externalUserId }))),
        })
        .orderBy('contact.id')
        .setLock('pessimistic_write')
        .getMany();
      const contacts = new Map<string, BatchStateContact>(rows.map((row) => [contactKey(row.workChatUserId, row.externalUserId), { id: row.id, state: row.state }]));
      const plan = planBatchStateChange(body.items, contacts, knownStates, corp.corpName);
      const changes = new Map<string, string[]>();
      for (const entry of plan) if (entry.outcome === 'change') changes.set(entry.item.state, [...(changes.get(entry.item.state) ?? []), entry.contactId]);
      for (const [state, ids] of changes) {
        await manager.query(`UPDATE chat_external_contact SET state = $3, state_at = now(), updated_at = now() WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [tenantId, ids, state]);
      }
      const results = plan.map((entry) => ({
        index: entry.index,
        userId: entry.item.userId,
        externalUserId: entry.item.externalUserId,
        state: entry.item.state,
        success: entry.outcome !== 'failed',
        changed: entry.outcome === 'change',
        ...(entry.outcome === 'failed' ? { reason: entry.reason } : { chatContactId: entry.contactId, previousState: entry.previousState }),
      }));
      const succeeded = results.filter((result) => result.success).length;
      return { total: results.length, succeeded, failed: results.length - succeeded, results };
    });
  }

  // ---------------------------------------------------------------- tags

  /**
   * Renames a corp tag or tag group (`id` is either kind of platform id) on the platform, then in the tags stored on
   * the corp's contacts (one statement).
   * @returns true
   * @throws NotFoundException (404) no corp with this platform corp id in the tenant; ConflictException (409)
   *   disabled corp or the name is taken on the platform; ChatPlatformError (mapped) unknown tag id
   */
  async renameTag(tenantId: string, workCorpId: string, id: string, name: string): Promise<boolean> {
    const corp = await findCorpByPlatformId(this.dataSource.manager, tenantId, workCorpId);
    await this.platform.renameTag(corpContext(corp), id, name);
    await this.dataSource.query(
      `UPDATE chat_external_contact c SET
         tags = (SELECT jsonb_agg(CASE WHEN e->>'tagId' = $3 THEN e || jsonb_build_object('tagName', $4::text)
                                       WHEN e->>'groupId' = $3 THEN e || jsonb_build_object('groupName', $4::text)
                                       ELSE e END ORDER BY o)
                   FROM jsonb_array_elements(c.tags) WITH ORDINALITY AS t(e, o)),
         updated_at = now()
       WHERE c.tenant_id = $1 AND c.corp_id = $2
         AND (c.tags @> jsonb_build_array(jsonb_build_object('tagId', $3::text)) OR c.tags @> jsonb_build_array(jsonb_build_object('groupId', $3::text)))`,
      [tenantId, corp.id, id, name],
    );
    return true;
  }

  // ---------------------------------------------------------------- internals

  private async findForStaff(manager: EntityManager, tenantId: string, workChatUserId: string, contactId: string): Promise<ExternalContactEntity> {
    const row = await manager.findOneBy(ExternalContactEntity, { tenantId, id: contactId, workChatUserId });
    if (!row) throw contactNotFound(contactId, workChatUserId);
    return row;
  }

  private async findByRef(manager: EntityManager, corp: WorkChatCorpEntity, userId: string, externalUserId: string): Promise<ExternalContactEntity> {
    const row = await manager.findOneBy(ExternalContactEntity, { tenantId: corp.tenantId, corpId: corp.id, workChatUserId: userId, externalUserId });
    if (!row) throw refNotFound(corp, userId, externalUserId);
    return row;
  }

  /** Pushes remark fields to the platform, then stores them on the contact. */
  private async pushRemark(row: ExternalContactEntity, fields: ContactRemarkFields, knownCorp?: WorkChatCorpEntity): Promise<void> {
    const corp = knownCorp ?? (await findCorpById(this.dataSource.manager, row.tenantId, row.corpId));
    const input: UpdateCustomerRemarkInput = { userId: row.workChatUserId, externalUserId: row.externalUserId };
    if (fields.remark !== undefined) input.remark = fields.remark;
    if (fields.description !== undefined) input.description = fields.description;
    if (fields.remarkCompany !== undefined) input.remarkCompany = fields.remarkCompany;
    if (fields.remarkMobiles !== undefined) input.remarkMobiles = fields.remarkMobiles;
    await this.platform.updateCustomerRemark(corpContext(corp), input);
    const changes: { remark?: string | null; description?: string | null; remarkCompany?: string | null; mobile?: string | null } = {};
    if (fields.remark !== undefined) changes.remark = fields.remark || null;
    if (fields.description !== undefined) changes.description = fields.description || null;
    if (fields.remarkCompany !== undefined) changes.remarkCompany = fields.remarkCompany || null;
    if (fields.remarkMobiles !== undefined) changes.mobile = fields.remarkMobiles[0] ?? null;
    await this.dataSource.getRepository(ExternalContactEntity).update({ tenantId: row.tenantId, id: row.id }, changes);
  }

  private async toConsoleDto(row: ExternalContactEntity): Promise<ChatContactsExternalDto> {
    const names = await this.corpDirectory.names(row.tenantId, [row.corpId]);
    return toChatContactsExternalDto(row, names.get(row.corpId) ?? '');
  }
}

function contactNotFound(contactId: string, workChatUserId: string): NotFoundException {
  return new NotFoundException(`Staff member ${workChatUserId} has no contact ${contactId} in this tenant.`);
}

function refNotFound(corp: WorkChatCorpEntity, userId: string, externalUserId: string): NotFoundException {
  return new NotFoundException(`Staff member ${userId} has no customer ${externalUserId} in corp "${corp.corpName}".`);
}

/**
 * The staff contact search's one description (migration 1795600700000): scoped by tenant and staff member, over name
 * and remark. Its scope parameters are the list statement's own (`:tenantId`, `:workChatUserId`).
 */
function staffContactSearch(tenantId: string, workChatUserId: string): ListSearch {
  return {
    table: 'chat_external_contact',
    alias: 'contact',
    scope: [
      { column: 'tenant_id', parameter: 'tenantId', value: tenantId },
      { column: 'work_chat_user_id', parameter: 'workChatUserId', value: workChatUserId },
    ],
    columns: ['name', 'remark'],
  };
}
