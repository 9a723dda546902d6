import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { updateReturning } from '../contacts/update-returning';
import { CustomerTodoEntity } from './customer-todo.entity';
import { CUSTOMER_TODO_SORT_FIELDS, CustomerTodoDto, CustomerTodoPageQuery, ProcessTodoRequest, toCustomerTodoDto } from './customer-todos.dto';
import { ListPager } from '../../common/paging/list-pager';

/** What opens a customer to-do (see {@link CustomerTodosService.open}). */
export interface OpenCustomerTodoInput {
  /** The customer (chat_external_contact.id of the tenant; not checked here — the caller has the contact). */
  contactId: string;
  /** The digital staff answering the contact, or null. */
  digitalStaffId: string | null;
  /** The human-intervention rule that matched, or null. */
  ruleId: string | null;
  /** Why a person must look at the customer (shown to the operator). */
  reason: string;
  /** The inbound message (chat_message.id) that caused it: the idempotency key; null = always a new to-do. */
  sourceMessageId: string | null;
}

/**
 * Digital-staff customer to-dos (chat-management-api.md, Tenant API: `POST {T}/v1/chat/digitalStaff/customer/todo/process`
 * processDigitalStaffCustomerTodo, plus the list and read operators need; issue 6, "The inbound pipeline"): the
 * inbound pipeline {@link open}s one when a person must look at a customer (a human-intervention rule matched),
 * an operator {@link process}es it, optionally switching the contact's AI replies back on. Every query filters by
 * the tenant, so another tenant's ids answer 404.
 *
 * Exported from ChatModule for the pipeline: {@link open}.
 */
@Injectable()
export class CustomerTodosService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
  ) {}

  /**
   * Opens a digital-staff customer to-do (a person must look at this customer). Idempotent: a second call with the
   * same (tenantId, sourceMessageId) returns the existing row (whatever its state), race-safe through the unique
   * index `ux_chat_customer_todo_tenant_source_message` (`INSERT … ON CONFLICT DO NOTHING`, then a read). Runs in
   * `manager` when given (the caller's transaction), so the to-do commits or rolls back with the caller's writes.
   * @returns the to-do (status `open` when new)
   */
  async open(tenantId: string, input: OpenCustomerTodoInput, manager?: EntityManager): Promise<CustomerTodoEntity> {
    const runner = manager ?? this.dataSource.manager;
    const result = await runner
      .createQueryBuilder()
      .insert()
      .into(CustomerTodoEntity)
      .values({
        tenantId,
        contactId: input.contactId,
        digitalStaffId: input.digitalStaffId,
        ruleId: input.ruleId,
        sourceMessageId: input.sourceMessageId,
        reason: input.reason,
        status: 'open',
        aiReEnabled: false,
      })
      .orIgnore()
      .returning(['id'])
      .execute();
    const inserted = (result.raw as { id: string }[])[0];
    if (inserted) return runner.findOneByOrFail(CustomerTodoEntity, { tenantId, id: inserted.id });
    return runner.findOneByOrFail(CustomerTodoEntity, { tenantId, sourceMessageId: input.sourceMessageId as string });
  }

  /**
   * The tenant's to-dos, newest first unless sorted otherwise; filters: status, contactId, digitalStaffId.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: CustomerTodoPageQuery): Promise<Page<CustomerTodoDto>> {
    const order = toOrder(query.sort, CUSTOMER_TODO_SORT_FIELDS, { createdAt: 'DESC' });
    const where: FindOptionsWhere<CustomerTodoEntity> = { tenantId };
    if (query.status) where.status = query.status;
    if (query.contactId) where.contactId = query.contactId;
    if (query.digitalStaffId) where.digitalStaffId = query.digitalStaffId;
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(CustomerTodoEntity), {
      where,
      order,
    }, query);
    return toPage(rows.map(toCustomerTodoDto), slice, query);
  }

  /** @throws NotFoundException (404) no such to-do in the tenant */
  async get(tenantId: string, id: string): Promise<CustomerTodoDto> {
    const row = await this.dataSource.getRepository(CustomerTodoEntity).findOneBy({ tenantId, id });
    if (!row) throw notFound(id);
    return toCustomerTodoDto(row);
  }

  /**
   * Processes (closes) an open to-do: status `processed`, who and when, the note; with `enableAi` the contact's AI
   * reply switch is set on in the same transaction. The close is one conditional UPDATE (`… WHERE status = 'open'`),
   * so of two concurrent calls exactly one wins and the other gets 409.
   * @param processedBy the caller (access token subject)
   * @returns the processed to-do
   * @throws NotFoundException (404) no such to-do in the tenant
   * @throws ConflictException (409) the to-do is already processed; or `enableAi` and its contact no longer exists
   *   (nothing changes then)
   */
  async process(tenantId: string, processedBy: string, body: ProcessTodoRequest): Promise<CustomerTodoDto> {
    const enableAi = body.enableAi ?? false;
    const row = await this.dataSource.transaction(async (manager) => {
      const [closed] = await updateReturning<{ contact_id: string }>(
        manager,
        `UPDATE chat_customer_todo SET status = 'processed', processed_by = $3, processed_at = now(), note = $4, ai_re_enabled = $5, updated_at = now()
          WHERE tenant_id = $1 AND id = $2 AND status = 'open' RETURNING contact_id`,
        [tenantId, body.todoId, processedBy, body.note ?? null, enableAi],
      );
      if (!closed) {
        const existing = await manager.findOneBy(CustomerTodoEntity, { tenantId, id: body.todoId });
        if (!existing) throw notFound(body.todoId);
        throw new ConflictException(`To-do ${body.todoId} was already processed${existing.processedBy ? ` by ${existing.processedBy}` : ''}${existing.processedAt ? ` at ${existing.processedAt.toISOString()}` : ''}.`);
      }
      if (enableAi) {
        const [contact] = await updateReturning<{ id: string }>(
          manager,
          `UPDATE chat_external_contact SET ai_enabled = true, updated_at = CASE WHEN ai_enabled THEN updated_at ELSE now() END
            WHERE tenant_id = $1 AND id = $2 RETURNING id`,
          [tenantId, closed.contact_id],
        );
        if (!contact) throw new ConflictException(`The contact ${closed.contact_id} of to-do ${body.todoId} no longer exists, so its AI cannot be switched on; process the to-do without enableAi.`);
      }
      return manager.findOneByOrFail(CustomerTodoEntity, { tenantId, id: body.todoId });
    });
    return toCustomerTodoDto(row);
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No customer to-do ${id} in this tenant.`);
}
