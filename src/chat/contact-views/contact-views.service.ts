import { BadRequestException, ConflictException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { lockTenantResource, uniqueViolation } from '../common/db-support';
import { ContactViewEntity } from './contact-view.entity';
import { checkContactViewFilter, checkContactViewSort, compileContactView, CompiledContactView, ContactViewFilter, ContactViewSort } from './contact-view-filter.rules';
import { CONTACT_VIEW_LIST_SORT_FIELDS, ContactViewPageQuery, toUserChatContactViewDto, UserChatContactViewDto, UserChatContactViewRequest } from './contact-views.dto';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Saved contact-list filters of the operators (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/userChatContactView/{id}`; issue 6, Contact views). A view belongs to the access token's subject that created
 * it (`owner`); the owner sees, changes and deletes it; a `shared` view is also visible, read-only, to every other
 * caller of the tenant (changing it → 403). A view neither owned nor shared answers 404, as do other tenants' views.
 * The filter's structure is checked (contact-view-filter.rules.ts) and {@link compile} turns a view into the SQL
 * condition the contact list applies.
 */
@Injectable()
export class ContactViewsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @param owner the caller's token subject
   * @throws BadRequestException (400) a filter or sort that does not fit (every problem in `errors`)
   * @throws ConflictException (409) the owner has a view with this name, or CHAT_CONTACT_VIEW_MAX_PER_OWNER views
   */
  async create(tenantId: string, owner: string, input: UserChatContactViewRequest): Promise<UserChatContactViewDto> {
    const fields = this.checked(input);
    return this.dataSource.transaction(async (manager) => {
      await lockTenantResource(manager, `chat_contact_view:${owner}`, tenantId);
      const max = this.config.chatContactViews.maxPerOwner;
      const count = await manager.getRepository(ContactViewEntity).countBy({ tenantId, ownerSubject: owner });
      if (count >= max) throw new ConflictException(`You already have ${count} contact views; at most ${max} are allowed (CHAT_CONTACT_VIEW_MAX_PER_OWNER).`);
      const row = manager.getRepository(ContactViewEntity).create({ tenantId, ownerSubject: owner, ...fields });
      await saveUnique(manager, row);
      return toUserChatContactViewDto(row, owner);
    });
  }

  /**
   * A page of the views the caller sees (`scope`: all = own + shared, mine, shared), by name unless sorted
   * (name, createdAt, updatedAt).
   */
  async list(tenantId: string, owner: string, query: ContactViewPageQuery): Promise<Page<UserChatContactViewDto>> {
    const order = toOrder(query.sort, CONTACT_VIEW_LIST_SORT_FIELDS, { name: 'ASC' });
    const builder = this.dataSource.getRepository(ContactViewEntity).createQueryBuilder('view').where('view.tenant_id = :tenantId', { tenantId });
    const scope = query.scope ?? 'all';
    if (scope === 'mine') builder.andWhere('view.owner_subject = :owner', { owner });
    else if (scope === 'shared') builder.andWhere('view.shared = true');
    else builder.andWhere('(view.owner_subject = :owner OR view.shared = true)', { owner });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`view.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query);
    return toPage(rows.map((row) => toUserChatContactViewDto(row, owner)), slice, query);
  }

  /** @throws NotFoundException (404) no such view visible to the caller */
  async get(tenantId: string, owner: string, id: string): Promise<UserChatContactViewDto> {
    return toUserChatContactViewDto(await this.visible(this.dataSource.manager, tenantId, owner, id), owner);
  }

  /**
   * Replaces name, description, filter, sort and shared.
   * @throws NotFoundException (404) not visible; ForbiddenException (403) shared by someone else;
   *   BadRequestException (400); ConflictException (409) the owner has another view with the name
   */
  async update(tenantId: string, owner: string, id: string, input: UserChatContactViewRequest): Promise<UserChatContactViewDto> {
    const fields = this.checked(input);
    return this.dataSource.transaction(async (manager) => {
      const row = await this.owned(manager, tenantId, owner, id);
      Object.assign(row, fields);
      await saveUnique(manager, row);
      return toUserChatContactViewDto(row, owner);
    });
  }

  /** @throws NotFoundException (404) not visible; ForbiddenException (403) shared by someone else */
  async remove(tenantId: string, owner: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.owned(manager, tenantId, owner, id);
      await manager.getRepository(ContactViewEntity).delete({ tenantId, id: row.id });
    });
  }

  /**
   * A view the caller sees, compiled for a query builder over chat_external_contact aliased `alias`:
   * `builder.andWhere(compiled.where, compiled.parameters)` and `orderBy` — how the contact list applies a view.
   * @param now the instant `withinLastDays` counts back from
   * @throws NotFoundException (404) no such view visible to the caller
   */
  async compile(tenantId: string, owner: string, id: string, alias: string, now: Date): Promise<CompiledContactView> {
    const row = await this.visible(this.dataSource.manager, tenantId, owner, id);
    return compileContactView(row.filter, row.sort, alias, now);
  }

  private async visible(manager: EntityManager, tenantId: string, owner: string, id: string, lock = false): Promise<ContactViewEntity> {
    const row = await manager.getRepository(ContactViewEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row || (row.ownerSubject !== owner && !row.shared)) throw new NotFoundException(`No contact view ${id} visible to you in this tenant.`);
    return row;
  }

  private async owned(manager: EntityManager, tenantId: string, owner: string, id: string): Promise<ContactViewEntity> {
    const row = await this.visible(manager, tenantId, owner, id, true);
    if (row.ownerSubject !== owner) throw new ForbiddenException(`Contact view ${id} is shared by ${row.ownerSubject}; only its owner may change or delete it.`);
    return row;
  }

  /** The stored fields of a request, checked. @throws BadRequestException (400) with every problem in `errors` */
  private checked(input: UserChatContactViewRequest): Pick<ContactViewEntity, 'name' | 'description' | 'filter' | 'sort' | 'shared'> {
    const filter: ContactViewFilter = {
      match: input.filter.match,
      conditions: input.filter.conditions.map((condition) => ({
        field: condition.field,
        operator: condition.operator,
        ...(condition.value === undefined || condition.value === null ? {} : { value: condition.value }),
      })),
    };
    const sort: ContactViewSort[] = (input.sort ?? []).map((key) => ({ field: key.field, direction: key.direction }));
    const problems = [...checkContactViewFilter(filter, this.config.chatContactViews.maxConditions), ...checkContactViewSort(sort)];
    if (problems.length) {
      throw new BadRequestException({
        message: `Invalid contact view: ${problems.map((problem) => `${problem.field}: ${problem.message}`).join(' ')}`,
        errors: problems.map((problem) => ({ field: problem.field, messages: [problem.message] })),
      });
    }
    return { name: input.name, description: input.description || null, filter, sort, shared: input.shared ?? false };
  }
}

/** @throws ConflictException (409) the owner already has a view with the name */
async function saveUnique(manager: EntityManager, row: ContactViewEntity): Promise<void> {
  try {
    await manager.save(row);
  } catch (error) {
    if (uniqueViolation(error) !== undefined) throw new ConflictException(`You already have a contact view named "${row.name}".`);
    throw error;
  }
}
