import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { toOrder } from '../../common/paging/page';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { fieldErrors } from '../intervention-rules/field-errors';
import { IntentionRecordEntity } from './intention-record.entity';
import { CreateCustomerIntentionRecord, INTENTION_RECORD_SORT_FIELDS, IntentionRecordPageQuery, ModifyCustomerIntentionRecord } from './intention-records.dto';
import { reviewIntentionRecord } from './intention-records.rules';
import { uniqueViolation } from '../common/db-support';
import { ListPager, type ListSlice } from '../../common/paging/list-pager';

/** What the inbound pipeline knows when it detects an intent. */
export interface DetectedIntent {
  contactId: string;
  intentName: string;
  /** 0..1 */
  confidence: number | null;
  messageId: string;
}

/**
 * Intent records of a tenant (chat-management-api.md, Console endpoints: `PUT {C}/customers/intentionRecord/{id}`,
 * plus create, list by contact, read and delete; issue 6, "The inbound pipeline": "intent records are written when an
 * intent is detected"). Every query filters by the tenant, so another tenant's ids answer 404.
 */
@Injectable()
export class IntentionRecordsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
  ) {}

  /**
   * An operator records an intent by hand.
   * @throws BadRequestException (400) the contact is not one of the tenant's; ConflictException (409) the message
   *   already has a record of this intent
   */
  async create(tenantId: string, input: CreateCustomerIntentionRecord): Promise<IntentionRecordEntity> {
    const contact = await this.dataSource.getRepository(ExternalContactEntity).exists({ where: { tenantId, id: input.contactId } });
    if (!contact) throw fieldErrors([{ field: 'contactId', message: `no contact ${input.contactId} in this tenant` }]);
    const status = input.status ?? 'open';
    const row = this.dataSource.getRepository(IntentionRecordEntity).create({
      tenantId,
      contactId: input.contactId,
      intentName: input.intentName,
      confidence: input.confidence ?? null,
      messageId: input.messageId ?? null,
      status,
      source: 'operator',
      operatorNote: input.operatorNote ?? null,
      reviewedAt: status === 'open' ? null : new Date(),
    });
    try {
      return await this.dataSource.getRepository(IntentionRecordEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) !== undefined) throw new ConflictException(`Message ${input.messageId} already has a record of the intent "${input.intentName}".`);
      throw error;
    }
  }

  /**
   * Records an intent the pipeline detected, once per (message, intent): a retried job gets the same row back.
   * @param manager the pipeline's transaction, when it has one
   */
  async recordDetected(tenantId: string, detected: DetectedIntent, manager: EntityManager = this.dataSource.manager): Promise<IntentionRecordEntity> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(IntentionRecordEntity)
      .values({ tenantId, contactId: detected.contactId, intentName: detected.intentName, confidence: detected.confidence, messageId: detected.messageId, status: 'open', source: 'pipeline' })
      .orIgnore()
      .execute();
    return manager.getRepository(IntentionRecordEntity).findOneByOrFail({ tenantId, messageId: detected.messageId, intentName: detected.intentName });
  }

  /** A page of the tenant's records (newest first unless sorted otherwise), optionally of one contact, status or intent. */
  async list(tenantId: string, query: IntentionRecordPageQuery): Promise<ListSlice<IntentionRecordEntity>> {
    const order = toOrder(query.sort, INTENTION_RECORD_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(IntentionRecordEntity).createQueryBuilder('record').where('record.tenant_id = :tenantId', { tenantId });
    if (query.contactId) builder.andWhere('record.contact_id = :contactId', { contactId: query.contactId });
    if (query.status) builder.andWhere('record.status = :status', { status: query.status });
    if (query.intentName) builder.andWhere('record.intent_name = :intentName', { intentName: query.intentName });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`record.${property}`, direction, direction === 'DESC' ? 'NULLS LAST' : 'NULLS FIRST');
    return this.pager.page(builder, query);
  }

  /** @throws NotFoundException (404) no such record in the tenant */
  async get(tenantId: string, id: string): Promise<IntentionRecordEntity> {
    const row = await this.dataSource.getRepository(IntentionRecordEntity).findOneBy({ tenantId, id });
    if (!row) throw new NotFoundException(`No intent record ${id} in this tenant.`);
    return row;
  }

  /**
   * The operator's review: status (see reviewIntentionRecord), note, corrected intent name.
   * @throws NotFoundException (404); BadRequestException (400) nothing to change; ConflictException (409) the
   *   corrected name is already recorded for the same message
   */
  async modify(tenantId: string, id: string, input: ModifyCustomerIntentionRecord): Promise<IntentionRecordEntity> {
    if (input.status === undefined && input.operatorNote === undefined && input.intentName === undefined) {
      throw new BadRequestException('Give at least one of status, operatorNote, intentName.');
    }
    const row = await this.get(tenantId, id);
    Object.assign(row, reviewIntentionRecord(row, input.status, new Date()));
    if (input.operatorNote !== undefined) row.operatorNote = input.operatorNote;
    if (input.intentName !== undefined) row.intentName = input.intentName;
    try {
      return await this.dataSource.getRepository(IntentionRecordEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) !== undefined) throw new ConflictException(`Message ${row.messageId} already has a record of the intent "${row.intentName}".`);
      throw error;
    }
  }

  /** @throws NotFoundException (404) no such record in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(IntentionRecordEntity).delete({ tenantId, id });
    if (!result.affected) throw new NotFoundException(`No intent record ${id} in this tenant.`);
  }
}
