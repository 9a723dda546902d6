import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { toOrder } from '../../common/paging/page';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { FieldProblem, fieldErrors } from '../intervention-rules/field-errors';
import { keywordListProblems } from './keyword-match';
import { TagRuleEntity } from './tag-rule.entity';
import { CustomerTagRuleRequest, TAG_RULE_SORT_FIELDS, TagRulePageQuery } from './tag-rules.dto';
import { TagsForMessage, tagsForMessage } from './tag-rules.rules';
import { uniqueViolation } from '../common/db-support';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager, type ListSlice } from '../../common/paging/list-pager';

/**
 * Keyword tag rules of a tenant (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/customers/tagRule/{id}`, plus create and list; issue 6, "Configuration resources"). Every query filters by the
 * tenant, so another tenant's ids answer 404. For the inbound pipeline: {@link tagsFor} gives the tags a message
 * earns.
 */
@Injectable()
export class TagRulesService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws BadRequestException (400) bad keywords or tags; ConflictException (409) name taken, or the tenant has
   *   CHAT_RULE_MAX_PER_TENANT tag rules
   */
  async create(tenantId: string, input: CustomerTagRuleRequest): Promise<TagRuleEntity> {
    const row = this.dataSource.getRepository(TagRuleEntity).create({
      tenantId,
      name: input.name,
      description: input.description ?? null,
      keywords: input.keywords,
      matchMode: input.matchMode ?? 'any',
      tagNames: input.tagNames ?? [],
      platformTagIds: input.platformTagIds ?? [],
      enabled: input.enabled ?? true,
    });
    this.assertValid(row);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`chat_tag_rule:${tenantId}`]);
      const count = await manager.getRepository(TagRuleEntity).countBy({ tenantId });
      if (count >= this.config.chatRules.maxPerTenant) {
        throw new ConflictException(`The tenant already has ${count} tag rules; at most ${this.config.chatRules.maxPerTenant} are allowed (CHAT_RULE_MAX_PER_TENANT). Delete unused ones first.`);
      }
      return saveUnique(manager, row);
    });
  }

  /** A page of the tenant's rules, oldest first (the order they apply in) unless sorted otherwise. */
  async list(tenantId: string, query: TagRulePageQuery): Promise<ListSlice<TagRuleEntity>> {
    const order = toOrder(query.sort, TAG_RULE_SORT_FIELDS, { createdAt: 'ASC' });
    const builder = this.dataSource.getRepository(TagRuleEntity).createQueryBuilder('rule').where('rule.tenant_id = :tenantId', { tenantId });
    if (query.enabled !== undefined) builder.andWhere('rule.enabled = :enabled', { enabled: query.enabled });
    if (query.name) builder.andWhere(...containsMatch('rule.name', 'name', query.name));
    if (query.keyword) builder.andWhere('rule.keywords @> :keyword::jsonb', { keyword: JSON.stringify([query.keyword]) });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`rule.${property}`, direction);
    return this.pager.page(builder, query, { search: Boolean(query.name) });
  }

  /** @throws NotFoundException (404) no such rule in the tenant */
  async get(tenantId: string, id: string): Promise<TagRuleEntity> {
    const row = await this.dataSource.getRepository(TagRuleEntity).findOneBy({ tenantId, id });
    if (!row) throw new NotFoundException(`No tag rule ${id} in this tenant.`);
    return row;
  }

  /**
   * Replaces the rule's fields; omitted optional fields keep their value.
   * @throws NotFoundException (404); BadRequestException (400); ConflictException (409) name taken
   */
  async update(tenantId: string, id: string, input: CustomerTagRuleRequest): Promise<TagRuleEntity> {
    const row = await this.get(tenantId, id);
    row.name = input.name;
    if (input.description !== undefined) row.description = input.description;
    row.keywords = input.keywords;
    if (input.matchMode !== undefined) row.matchMode = input.matchMode;
    if (input.tagNames !== undefined) row.tagNames = input.tagNames;
    if (input.platformTagIds !== undefined) row.platformTagIds = input.platformTagIds;
    if (input.enabled !== undefined) row.enabled = input.enabled;
    this.assertValid(row);
    return saveUnique(this.dataSource.manager, row);
  }

  /** @throws NotFoundException (404) no such rule in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(TagRuleEntity).delete({ tenantId, id });
    if (!result.affected) throw new NotFoundException(`No tag rule ${id} in this tenant.`);
  }

  /** The tenant's enabled rules in the order they apply (for the inbound pipeline). */
  enabledRules(tenantId: string): Promise<TagRuleEntity[]> {
    return this.dataSource.getRepository(TagRuleEntity).find({ where: { tenantId, enabled: true }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The tags an inbound customer message earns its contact ({@link tagsForMessage} over the enabled rules). */
  async tagsFor(tenantId: string, text: string): Promise<TagsForMessage> {
    return tagsForMessage(await this.enabledRules(tenantId), text, this.config.chatRules.matchMaxChars);
  }

  /** Keywords, tag names and ids within the configured limits, and at least one tag. @throws BadRequestException (400) */
  private assertValid(row: TagRuleEntity): void {
    const limits = { maxCount: this.config.chatRules.maxPatterns, maxLength: this.config.chatRules.maxPatternLength };
    const problems: FieldProblem[] = keywordListProblems(row.keywords, 'keywords', limits);
    if (row.tagNames.length > 0) problems.push(...keywordListProblems(row.tagNames, 'tagNames', limits));
    if (row.platformTagIds.length > limits.maxCount) problems.push({ field: 'platformTagIds', message: `has ${row.platformTagIds.length} entries; at most ${limits.maxCount} are allowed` });
    if (new Set(row.platformTagIds).size !== row.platformTagIds.length) problems.push({ field: 'platformTagIds', message: 'must not repeat an id' });
    if (row.tagNames.length === 0 && row.platformTagIds.length === 0) problems.push({ field: 'tagNames', message: 'give at least one tag name or platform tag id to add' });
    if (problems.length > 0) throw fieldErrors(problems);
  }
}

/** Saves the row; the unique name index becomes 409. */
async function saveUnique(manager: EntityManager, row: TagRuleEntity): Promise<TagRuleEntity> {
  try {
    return await manager.getRepository(TagRuleEntity).save(row);
  } catch (error) {
    if (uniqueViolation(error) === 'ux_chat_tag_rule_tenant_name') {
      throw new ConflictException(`The tenant already has a tag rule named "${row.name}".`);
    }
    throw error;
  }
}
