import { BadRequestException, ConflictException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { ProblemException } from '../../common/http/problem-details';
import { uniqueViolation } from '../common/db-support';
import { VariableDefinitionEntity } from './variable-definition.entity';
import { mergeVariableLayers, ResolvedVariable, SUBJECT_KIND, VariableCandidate, VariableSource } from './variable-resolution.rules';
import { assertValueSize, VariableScopesService } from './variable-scopes.service';
import { TENANT_SUBJECT, VariableValueEntity } from './variable-value.entity';
import { checkVariableValue } from './variable-value.rules';
import { ContactVariablesDto, CreateVariableValueRequest, PutVariableValueRequest, toVariableValueDto, VariableValueDto, VariableValueListQuery } from './variables.dto';
import { isUuidShaped } from '../../common/ids/uuid-shape';

/** The variables a contact sees, for the reply pipeline (see {@link VariablesService.resolveForContact}). */
export interface ContactVariables {
  contactId: string;
  /** The digital staff whose variables were included, or null. */
  digitalStaffId: string | null;
  /** Sorted by name. */
  variables: ResolvedVariable[];
}

/**
 * Variable values (chat-management-api.md, Console endpoints: `{C}/variables`; issue 6, Variables) and the
 * resolution of the variables a contact sees, for the reply pipeline and `{{name}}` templating
 * (template.rules.ts). A value is for one subject, by the scope's source (variable-resolution.rules.ts): none for
 * `tenant`, a digital staff id for `digital_staff`, an external contact id for `contact`; one value per
 * (definition, subject); it must match the definition's type (400 with the reason). Every query filters by the
 * tenant. Values whose subject is later deleted stay until their scope or definition is deleted; resolution only
 * ever reads the values of the subjects it is asked about.
 */
@Injectable()
export class VariablesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scopes: VariableScopesService,
  ) {}

  /**
   * Values of a scope, ordered by subject then variable name, at most `limit` (default and maximum
   * CHAT_VARIABLE_LIST_MAX).
   * @throws NotFoundException (404) no such scope; BadRequestException (400) limit above the maximum
   */
  async list(tenantId: string, query: VariableValueListQuery): Promise<VariableValueDto[]> {
    const max = this.config.chatVariables.listMax;
    if (query.limit !== undefined && query.limit > max) {
      throw new BadRequestException({ message: `limit is ${query.limit}; at most ${max} values are listed at once (CHAT_VARIABLE_LIST_MAX). Narrow the list with subjectId or definitionId.`, errors: [{ field: 'limit', messages: [`at most ${max}`] }] });
    }
    const scope = await this.scopes.findScope(this.dataSource.manager, tenantId, query.scopeId);
    const builder = this.dataSource
      .getRepository(VariableValueEntity)
      .createQueryBuilder('value')
      .innerJoin(VariableDefinitionEntity, 'definition', 'definition.tenant_id = value.tenant_id AND definition.id = value.definition_id')
      .select('value')
      .addSelect(['definition.name', 'definition.type'])
      .where('value.tenant_id = :tenantId AND value.scope_id = :scopeId', { tenantId, scopeId: scope.id });
    if (query.subjectId !== undefined) builder.andWhere('value.subject_id = :subjectId', { subjectId: query.subjectId.toLowerCase() });
    if (query.definitionId) builder.andWhere('value.definition_id = :definitionId', { definitionId: query.definitionId });
    builder.orderBy('value.subject_id', 'ASC').addOrderBy('definition.name', 'ASC').limit(query.limit ?? max);
    const { entities, raw } = await builder.getRawAndEntities<{ definition_name: string; definition_type: VariableDefinitionEntity['type'] }>();
    return entities.map((row, index) => toVariableValueDto(row, { name: raw[index].definition_name, type: raw[index].definition_type }));
  }

  /**
   * Sets the value of a variable for a subject.
   * @returns the new value
   * @throws BadRequestException (400) no way to name the variable, scopeId not the definition's, a subject that does
   *   not fit the source, a value that does not match the type
   * @throws NotFoundException (404) unknown scope, definition or subject in the tenant
   * @throws ProblemException (413) value larger than CHAT_VARIABLE_VALUE_MAX_BYTES
   * @throws ConflictException (409) the subject already has a value for this variable (PUT it instead)
   */
  async create(tenantId: string, input: CreateVariableValueRequest): Promise<VariableValueDto> {
    return this.dataSource.transaction(async (manager) => {
      const definition = await this.definitionFor(manager, tenantId, input);
      const scope = await this.scopes.findScope(manager, tenantId, definition.scopeId);
      const subjectId = await this.checkSubject(manager, tenantId, scope.source, input.subjectId ?? null);
      this.checkValue(definition, input.value);
      const existing = await manager.getRepository(VariableValueEntity).findOneBy({ tenantId, definitionId: definition.id, subjectId });
      if (existing) throw alreadySet(definition, existing.id);
      const row = manager.getRepository(VariableValueEntity).create({ tenantId, scopeId: scope.id, definitionId: definition.id, subjectId, value: input.value });
      try {
        await manager.save(row);
      } catch (error) {
        if (uniqueViolation(error) !== undefined) throw alreadySet(definition);
        throw error;
      }
      return toVariableValueDto(row, definition);
    });
  }

  /**
   * Replaces a value (same variable, same subject).
   * @throws NotFoundException (404); BadRequestException (400) type mismatch; ProblemException (413) too large
   */
  async update(tenantId: string, id: string, input: PutVariableValueRequest): Promise<VariableValueDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(VariableValueEntity).findOne({ where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw notFound(id);
      const definition = await manager.getRepository(VariableDefinitionEntity).findOne({ where: { tenantId, id: row.definitionId }, lock: { mode: 'pessimistic_read' } });
      if (!definition) throw notFound(id);
      this.checkValue(definition, input.value);
      row.value = input.value;
      await manager.save(row);
      return toVariableValueDto(row, definition);
    });
  }

  /** @throws NotFoundException (404) no such value in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(VariableValueEntity).delete({ tenantId, id });
    if (!result.affected) throw notFound(id);
  }

  /**
   * The variables a contact sees, for the reply pipeline: the tenant's, those of the digital staff that answers it,
   * and its own; the most specific wins on equal names, set values beat defaults (variable-resolution.rules.ts).
   * Feed `variablesByName(result.variables)` to renderTemplate.
   * @param digitalStaffId the digital staff replying; undefined = the one bound to the staff user the contact is
   *   added to (none when unbound), null = no digital staff variables
   * @throws NotFoundException (404) no such contact in the tenant
   */
  async resolveForContact(tenantId: string, contactId: string, digitalStaffId?: string | null): Promise<ContactVariables> {
    const manager = this.dataSource.manager;
    const contact = isUuidShaped(contactId) ? await manager.getRepository(ExternalContactEntity).findOneBy({ tenantId, id: contactId }) : null;
    if (!contact) throw new NotFoundException(`No contact ${contactId} in this tenant.`);
    let staffId = digitalStaffId;
    if (staffId === undefined) {
      const staffUser = await manager.getRepository(WorkChatUserEntity).findOneBy({ tenantId, corpId: contact.corpId, workChatUserId: contact.workChatUserId });
      staffId = staffUser?.digitalStaffId ?? null;
    }
    const subjects: { source: VariableSource; subjectId: string }[] = [
      { source: 'tenant', subjectId: TENANT_SUBJECT },
      { source: 'contact', subjectId: contact.id },
      ...(staffId ? [{ source: 'digital_staff' as const, subjectId: staffId }] : []),
    ];
    return { contactId: contact.id, digitalStaffId: staffId ?? null, variables: mergeVariableLayers(await this.candidates(manager, tenantId, subjects)) };
  }

  /** {@link resolveForContact} as the API's DTO. */
  async resolveForContactDto(tenantId: string, contactId: string, digitalStaffId?: string): Promise<ContactVariablesDto> {
    if (digitalStaffId !== undefined) {
      const staff = await this.dataSource.getRepository(DigitalStaffEntity).findOneBy({ tenantId, id: digitalStaffId });
      if (!staff) throw new NotFoundException(`No digital staff ${digitalStaffId} in this tenant.`);
    }
    return this.resolveForContact(tenantId, contactId, digitalStaffId);
  }

  /**
   * Every definition of the scopes of the given sources, with the subject's value or (when none) its default;
   * definitions with neither are left out.
   */
  private async candidates(manager: EntityManager, tenantId: string, subjects: { source: VariableSource; subjectId: string }[]): Promise<VariableCandidate[]> {
    const rows = await manager.query<
      { name: string; type: VariableDefinitionEntity['type']; default_value: unknown; definition_id: string; scope_id: string; source: VariableSource; scope_created_at: Date; value: unknown; has_value: boolean }[]
    >(
      `SELECT d.name, d.type, d.default_value, d.id AS definition_id, s.id AS scope_id, s.source, s.created_at AS scope_created_at,
              v.value, (v.id IS NOT NULL) AS has_value
         FROM chat_variable_scope s
         JOIN unnest($2::text[], $3::text[]) AS subject(source, subject_id) ON subject.source = s.source
         JOIN chat_variable_definition d ON d.tenant_id = s.tenant_id AND d.scope_id = s.id
         LEFT JOIN chat_variable_value v ON v.tenant_id = d.tenant_id AND v.definition_id = d.id AND v.subject_id = subject.subject_id
        WHERE s.tenant_id = $1 AND (v.id IS NOT NULL OR d.default_value IS NOT NULL)`,
      [tenantId, subjects.map((subject) => subject.source), subjects.map((subject) => subject.subjectId)],
    );
    return rows.map((row) => ({
      name: row.name,
      type: row.type,
      value: row.has_value ? row.value : row.default_value,
      source: row.source,
      scopeId: row.scope_id,
      scopeCreatedAt: new Date(row.scope_created_at).getTime(),
      definitionId: row.definition_id,
      fromDefault: !row.has_value,
    }));
  }

  /** The definition a create request names (by id, or scope + name), read-locked against concurrent type changes. */
  private async definitionFor(manager: EntityManager, tenantId: string, input: CreateVariableValueRequest): Promise<VariableDefinitionEntity> {
    const repository = manager.getRepository(VariableDefinitionEntity);
    if (input.definitionId) {
      const definition = await repository.findOne({ where: { tenantId, id: input.definitionId }, lock: { mode: 'pessimistic_read' } });
      if (!definition) throw new NotFoundException(`No variable definition ${input.definitionId} in this tenant.`);
      if (input.scopeId && input.scopeId !== definition.scopeId) throw badField('scopeId', `Variable definition ${definition.id} belongs to scope ${definition.scopeId}, not ${input.scopeId}.`);
      if (input.name !== undefined && input.name !== definition.name) throw badField('name', `Variable definition ${definition.id} is named "${definition.name}", not "${input.name}".`);
      return definition;
    }
    if (!input.scopeId || input.name === undefined) throw badField('definitionId', 'Name the variable by definitionId, or by scopeId and name.');
    await this.scopes.findScope(manager, tenantId, input.scopeId);
    const definition = await repository.findOne({ where: { tenantId, scopeId: input.scopeId, name: input.name }, lock: { mode: 'pessimistic_read' } });
    if (!definition) throw new NotFoundException(`Scope ${input.scopeId} has no variable named "${input.name}".`);
    return definition;
  }

  /**
   * The stored subject id for a scope's source.
   * @throws BadRequestException (400) a subject where none belongs, or none where one is needed
   * @throws NotFoundException (404) a digital staff or contact unknown in the tenant
   */
  private async checkSubject(manager: EntityManager, tenantId: string, source: VariableSource, subjectId: string | null): Promise<string> {
    if (source === 'tenant') {
      if (subjectId) throw badField('subjectId', 'Values of a tenant scope are global: leave subjectId out.');
      return TENANT_SUBJECT;
    }
    if (!subjectId) throw badField('subjectId', `Values of a ${source} scope need a subjectId: ${SUBJECT_KIND[source]}.`);
    if (!isUuidShaped(subjectId)) throw badField('subjectId', `subjectId must be ${SUBJECT_KIND[source]} (a UUID).`);
    const found =
      source === 'contact'
        ? await manager.getRepository(ExternalContactEntity).existsBy({ tenantId, id: subjectId })
        : await manager.getRepository(DigitalStaffEntity).existsBy({ tenantId, id: subjectId });
    if (!found) throw new NotFoundException(`No ${source === 'contact' ? 'contact' : 'digital staff'} ${subjectId} in this tenant.`);
    return subjectId.toLowerCase();
  }

  /** @throws BadRequestException (400) type mismatch, with the reason; ProblemException (413) too large */
  private checkValue(definition: VariableDefinitionEntity, value: unknown): void {
    const check = checkVariableValue(definition, value);
    if (!check.ok) throw badField('value', check.reason);
    assertValueSize(value, this.config.chatVariables.valueMaxBytes, 'The value');
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No variable value ${id} in this tenant.`);
}

function badField(field: string, message: string): BadRequestException {
  return new BadRequestException({ message, errors: [{ field, messages: [message] }] });
}

function alreadySet(definition: VariableDefinitionEntity, existingId?: string): ConflictException | ProblemException {
  const message = `This subject already has a value for variable "${definition.name}"; change it with PUT /variables/{id}.`;
  return existingId ? new ProblemException(HttpStatus.CONFLICT, message, { valueId: existingId }) : new ConflictException(message);
}
