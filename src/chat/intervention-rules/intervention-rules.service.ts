import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { toOrder } from '../../common/paging/page';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { FieldProblem, fieldErrors } from './field-errors';
import { InterventionRuleEntity } from './intervention-rule.entity';
import { INTERVENTION_RULE_SORT_FIELDS, InterventionRuleInputData, InterventionRulePageQuery } from './intervention-rules.dto';
import { InterventionDecision, InterventionMessage, interventionPatternProblems, matchInterventionRules } from './intervention-rules.rules';
import { uniqueViolation } from '../common/db-support';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager, type ListSlice } from '../../common/paging/list-pager';

/** Which view a request came through: the field names of its 400s follow it. */
export type InterventionRuleView = 'v1' | 'console';

/**
 * Human-intervention rules of a tenant (chat-management-api.md, "Human-intervention rule": the V1 tenant paths and
 * the console path; issue 6, "Configuration resources"). One service behind both views. Every query filters by the
 * tenant, so another tenant's ids answer 404. For the inbound pipeline: {@link matching} decides what a message
 * triggers.
 */
@Injectable()
export class InterventionRulesService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates a rule (defaults: enabled, all contacts, switch AI off and open a to-do).
   * @throws BadRequestException (400) bad patterns, scope or unknown digital staff; ConflictException (409) name
   *   taken, or the tenant has CHAT_RULE_MAX_PER_TENANT rules
   */
  async create(tenantId: string, input: InterventionRuleInputData, view: InterventionRuleView): Promise<InterventionRuleEntity> {
    const row = this.dataSource.getRepository(InterventionRuleEntity).create({
      tenantId,
      name: input.name,
      description: input.description ?? null,
      matchType: input.matchType,
      patterns: input.patterns,
      allContacts: input.allContacts ?? true,
      digitalStaffIds: input.digitalStaffIds ?? [],
      enabled: input.enabled ?? true,
      switchAiOff: input.switchAiOff ?? true,
      createTodo: input.createTodo ?? true,
      reason: input.reason,
    });
    await this.assertValid(tenantId, row, view);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`chat_intervention_rule:${tenantId}`]);
      const count = await manager.getRepository(InterventionRuleEntity).countBy({ tenantId });
      if (count >= this.config.chatRules.maxPerTenant) {
        throw new ConflictException(`The tenant already has ${count} human-intervention rules; at most ${this.config.chatRules.maxPerTenant} are allowed (CHAT_RULE_MAX_PER_TENANT). Delete unused ones first.`);
      }
      return saveUnique(manager, row);
    });
  }

  /** A page of the tenant's rules, in the order they apply (created first) unless sorted otherwise. */
  async list(tenantId: string, query: InterventionRulePageQuery): Promise<ListSlice<InterventionRuleEntity>> {
    const order = toOrder(query.sort, INTERVENTION_RULE_SORT_FIELDS, { createdAt: 'ASC' });
    const builder = this.dataSource.getRepository(InterventionRuleEntity).createQueryBuilder('rule').where('rule.tenant_id = :tenantId', { tenantId });
    if (query.matchType) builder.andWhere('rule.match_type = :matchType', { matchType: query.matchType });
    if (query.enabled !== undefined) builder.andWhere('rule.enabled = :enabled', { enabled: query.enabled });
    if (query.name) builder.andWhere(...containsMatch('rule.name', 'name', query.name));
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`rule.${property}`, direction);
    return this.pager.page(builder, query, { search: Boolean(query.name) });
  }

  /** @throws NotFoundException (404) no such rule in the tenant */
  async get(tenantId: string, id: string): Promise<InterventionRuleEntity> {
    const row = await this.dataSource.getRepository(InterventionRuleEntity).findOneBy({ tenantId, id });
    if (!row) throw new NotFoundException(`No human-intervention rule ${id} in this tenant.`);
    return row;
  }

  /**
   * Replaces the rule's fields; optional fields that are omitted keep their value (`allContacts: true` empties the
   * digital staff list).
   * @throws NotFoundException (404); BadRequestException (400); ConflictException (409) name taken
   */
  async update(tenantId: string, id: string, input: InterventionRuleInputData, view: InterventionRuleView): Promise<InterventionRuleEntity> {
    const row = await this.get(tenantId, id);
    row.name = input.name;
    if (input.description !== undefined) row.description = input.description;
    row.matchType = input.matchType;
    row.patterns = input.patterns;
    if (input.allContacts !== undefined) row.allContacts = input.allContacts;
    if (input.digitalStaffIds !== undefined) row.digitalStaffIds = input.digitalStaffIds;
    else if (row.allContacts) row.digitalStaffIds = [];
    if (input.enabled !== undefined) row.enabled = input.enabled;
    if (input.switchAiOff !== undefined) row.switchAiOff = input.switchAiOff;
    if (input.createTodo !== undefined) row.createTodo = input.createTodo;
    row.reason = input.reason;
    await this.assertValid(tenantId, row, view);
    return saveUnique(this.dataSource.manager, row);
  }

  /** @throws NotFoundException (404) no such rule in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(InterventionRuleEntity).delete({ tenantId, id });
    if (!result.affected) throw new NotFoundException(`No human-intervention rule ${id} in this tenant.`);
  }

  /** The tenant's enabled rules in the order they apply (for the inbound pipeline). */
  enabledRules(tenantId: string): Promise<InterventionRuleEntity[]> {
    return this.dataSource.getRepository(InterventionRuleEntity).find({ where: { tenantId, enabled: true }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * What an inbound customer message triggers (issue 6, "The inbound pipeline"): the tenant's enabled rules through
   * {@link matchInterventionRules}, with the configured text length (regexes run on RE2, linear in it).
   */
  async matching(tenantId: string, message: InterventionMessage, detectedIntent?: string | null): Promise<InterventionDecision> {
    const rules = await this.enabledRules(tenantId);
    return matchInterventionRules(rules, message, detectedIntent, { maxChars: this.config.chatRules.matchMaxChars });
  }

  /** Patterns per match type, scope consistency and digital staff of the tenant. @throws BadRequestException (400) */
  private async assertValid(tenantId: string, row: InterventionRuleEntity, view: InterventionRuleView): Promise<void> {
    const limits = this.config.chatRules;
    const problems: FieldProblem[] = interventionPatternProblems(row.matchType, row.patterns, {
      maxPatterns: limits.maxPatterns,
      maxPatternLength: limits.maxPatternLength,
    }).map((problem) => ({ field: problem.index === null ? 'patterns' : `patterns[${problem.index}]`, message: problem.message }));
    const idsField = view === 'console' ? 'scope.digitalStaffIds' : 'digitalStaffIds';
    const ids = [...new Set(row.digitalStaffIds)];
    if (ids.length !== row.digitalStaffIds.length) problems.push({ field: idsField, message: 'must not repeat an id' });
    if (row.allContacts && ids.length > 0) problems.push({ field: idsField, message: 'must be empty when allContacts is true (the rule applies to every contact)' });
    if (!row.allContacts && ids.length === 0) problems.push({ field: idsField, message: 'must name at least one digital staff when allContacts is false' });
    if (ids.length > limits.maxPatterns) problems.push({ field: idsField, message: `has ${ids.length} ids; at most ${limits.maxPatterns} are allowed` });
    if (ids.length > 0 && ids.length <= limits.maxPatterns) {
      const found = await this.dataSource.getRepository(DigitalStaffEntity).find({ select: { id: true }, where: { tenantId, id: In(ids) } });
      const known = new Set(found.map((staff) => staff.id));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length > 0) problems.push({ field: idsField, message: `no digital staff ${unknown.join(', ')} in this tenant` });
    }
    if (problems.length > 0) throw fieldErrors(problems);
  }
}

/** Saves the row; the unique name index becomes 409. */
async function saveUnique(manager: EntityManager, row: InterventionRuleEntity): Promise<InterventionRuleEntity> {
  try {
    return await manager.getRepository(InterventionRuleEntity).save(row);
  } catch (error) {
    if (uniqueViolation(error) === 'ux_chat_intervention_rule_tenant_name') {
      throw new ConflictException(`The tenant already has a human-intervention rule named "${row.name}".`);
    }
    throw error;
  }
}
