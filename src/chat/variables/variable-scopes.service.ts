import { BadRequestException, ConflictException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { lockTenantResource, uniqueViolation } from '../common/db-support';
import { VariableDefinitionEntity } from './variable-definition.entity';
import { VariableScopeEntity } from './variable-scope.entity';
import { VariableValueEntity } from './variable-value.entity';
import { checkVariableOptions, checkVariableValue, variableValueBytes } from './variable-value.rules';
import {
  toVariableDefinitionDto,
  toVariableScopeDto,
  VariableDefinitionDto,
  VariableDefinitionPayload,
  VariableScopeDto,
  VariableScopePayload,
} from './variables.dto';
import type { VariableSource } from './variable-resolution.rules';

/** Advisory-lock names (db-support.ts lockTenantResource). */
const SCOPE_LOCK = 'chat_variable_scope';

/**
 * Variable scopes and their typed definitions (chat-management-api.md, Console endpoints: `{C}/variableScopes`,
 * `{C}/variableScopes/{scopeId}/definitions/{id}`; issue 6, Variables). Every query filters by the tenant, so another
 * tenant's ids answer 404. Writes that add scopes or definitions hold a per-tenant lock, so the count limits
 * (CHAT_VARIABLE_MAX_SCOPES, CHAT_VARIABLE_MAX_DEFINITIONS) are exact.
 *
 * Deleting: a scope that still has definitions, or a definition that still has values, is refused (409) unless
 * `recursive` is set, which deletes the contents too, in one transaction.
 */
@Injectable()
export class VariableScopesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The tenant's scopes of one source, by name. */
  async listScopes(tenantId: string, source: VariableSource): Promise<VariableScopeDto[]> {
    const rows = await this.dataSource.getRepository(VariableScopeEntity).find({ where: { tenantId, source }, order: { name: 'ASC', id: 'ASC' } });
    const counts = await this.definitionCounts(this.dataSource.manager, tenantId, rows.map((row) => row.id));
    return rows.map((row) => toVariableScopeDto(row, counts.get(row.id) ?? 0));
  }

  /**
   * @throws ConflictException (409) name taken for this source, or the tenant has CHAT_VARIABLE_MAX_SCOPES scopes
   */
  async createScope(tenantId: string, input: VariableScopePayload): Promise<VariableScopeDto> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantResource(manager, SCOPE_LOCK, tenantId);
      const max = this.config.chatVariables.maxScopes;
      const count = await manager.getRepository(VariableScopeEntity).countBy({ tenantId });
      if (count >= max) throw new ConflictException(`The tenant already has ${count} variable scopes; at most ${max} are allowed (CHAT_VARIABLE_MAX_SCOPES).`);
      const row = manager.getRepository(VariableScopeEntity).create({ tenantId, name: input.name, source: input.source, description: input.description || null });
      await saveUnique(manager, row, () => duplicateScope(input));
      return toVariableScopeDto(row, 0);
    });
  }

  /** @throws NotFoundException (404) no such scope in the tenant */
  async getScope(tenantId: string, id: string): Promise<VariableScopeDto> {
    const row = await this.findScope(this.dataSource.manager, tenantId, id);
    return toVariableScopeDto(row, (await this.definitionCounts(this.dataSource.manager, tenantId, [id])).get(id) ?? 0);
  }

  /**
   * Replaces name, source and description.
   * @throws NotFoundException (404); ConflictException (409) duplicate name, or a source change while the scope has values
   */
  async updateScope(tenantId: string, id: string, input: VariableScopePayload): Promise<VariableScopeDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findScope(manager, tenantId, id, true);
      if (input.source !== row.source) {
        const values = await manager.getRepository(VariableValueEntity).countBy({ tenantId, scopeId: id });
        if (values > 0) throw new ConflictException(`Scope "${row.name}" has ${values} values for ${row.source} subjects; delete them before changing its source to ${input.source}.`);
      }
      row.name = input.name;
      row.source = input.source;
      row.description = input.description || null;
      await saveUnique(manager, row, () => duplicateScope(input));
      return toVariableScopeDto(row, (await this.definitionCounts(manager, tenantId, [id])).get(id) ?? 0);
    });
  }

  /**
   * Deletes a scope; with `recursive`, its definitions and values too (one transaction).
   * @returns the deleted scope
   * @throws NotFoundException (404); ConflictException (409) it has definitions and `recursive` is not set
   */
  async deleteScope(tenantId: string, id: string, recursive: boolean): Promise<VariableScopeDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findScope(manager, tenantId, id, true);
      const definitions = (await this.definitionCounts(manager, tenantId, [id])).get(id) ?? 0;
      if (definitions > 0 && !recursive) {
        throw new ConflictException(`Scope "${row.name}" has ${definitions} variable definitions; delete them first, or delete with ?recursive=true to remove them and their values too.`);
      }
      const dto = toVariableScopeDto(row, definitions);
      await manager.getRepository(VariableValueEntity).delete({ tenantId, scopeId: id });
      await manager.getRepository(VariableDefinitionEntity).delete({ tenantId, scopeId: id });
      await manager.getRepository(VariableScopeEntity).delete({ tenantId, id });
      return dto;
    });
  }

  /** The definitions of a scope, by name. @throws NotFoundException (404) no such scope */
  async listDefinitions(tenantId: string, scopeId: string): Promise<VariableDefinitionDto[]> {
    await this.findScope(this.dataSource.manager, tenantId, scopeId);
    const rows = await this.dataSource.getRepository(VariableDefinitionEntity).find({ where: { tenantId, scopeId }, order: { name: 'ASC' } });
    return rows.map(toVariableDefinitionDto);
  }

  /**
   * @throws NotFoundException (404) no such scope
   * @throws BadRequestException (400) options that do not fit the type, a default that does not match it
   * @throws ProblemException (413) a default larger than CHAT_VARIABLE_VALUE_MAX_BYTES
   * @throws ConflictException (409) name taken in the scope, or the scope has CHAT_VARIABLE_MAX_DEFINITIONS definitions
   */
  async createDefinition(tenantId: string, scopeId: string, input: VariableDefinitionPayload): Promise<VariableDefinitionDto> {
    const shape = this.checkDefinition(input);
    return this.dataSource.transaction(async (manager) => {
      await lockTenantResource(manager, SCOPE_LOCK, tenantId);
      await this.findScope(manager, tenantId, scopeId, true);
      const max = this.config.chatVariables.maxDefinitions;
      const count = await manager.getRepository(VariableDefinitionEntity).countBy({ tenantId, scopeId });
      if (count >= max) throw new ConflictException(`The scope already has ${count} variable definitions; at most ${max} are allowed (CHAT_VARIABLE_MAX_DEFINITIONS).`);
      const row = manager.getRepository(VariableDefinitionEntity).create({ tenantId, scopeId, ...shape });
      await saveUnique(manager, row, () => duplicateDefinition(input.name));
      return toVariableDefinitionDto(row);
    });
  }

  /** @throws NotFoundException (404) no such scope, or no such definition in it */
  async getDefinition(tenantId: string, scopeId: string, id: string): Promise<VariableDefinitionDto> {
    return toVariableDefinitionDto(await this.findDefinition(this.dataSource.manager, tenantId, scopeId, id));
  }

  /**
   * Replaces name, type, options, default and description. Existing values must stay valid: a type change while
   * values exist, or removing enum options that values use, is refused (409).
   * @throws NotFoundException (404); BadRequestException (400); ProblemException (413); ConflictException (409)
   */
  async updateDefinition(tenantId: string, scopeId: string, id: string, input: VariableDefinitionPayload): Promise<VariableDefinitionDto> {
    const shape = this.checkDefinition(input);
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findDefinition(manager, tenantId, scopeId, id, true);
      if (shape.type !== row.type) {
        const values = await manager.getRepository(VariableValueEntity).countBy({ tenantId, definitionId: id });
        if (values > 0) throw new ConflictException(`Variable "${row.name}" has ${values} values of type ${row.type}; delete them before changing its type to ${shape.type}.`);
      } else if (shape.type === 'enum') {
        const [{ count }] = await manager.query<{ count: string }[]>(
          `SELECT count(*)::text AS count FROM chat_variable_value WHERE tenant_id = $1 AND definition_id = $2 AND NOT ((value #>> '{}') = ANY($3::text[]))`,
          [tenantId, id, shape.options],
        );
        if (Number(count) > 0) throw new ConflictException(`Variable "${row.name}" has ${count} values that are not among the new options; change or delete them first.`);
      }
      Object.assign(row, shape);
      await saveUnique(manager, row, () => duplicateDefinition(input.name));
      return toVariableDefinitionDto(row);
    });
  }

  /**
   * Deletes a definition; with `recursive`, its values too (one transaction).
   * @returns the deleted definition
   * @throws NotFoundException (404); ConflictException (409) it has values and `recursive` is not set
   */
  async deleteDefinition(tenantId: string, scopeId: string, id: string, recursive: boolean): Promise<VariableDefinitionDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findDefinition(manager, tenantId, scopeId, id, true);
      const values = await manager.getRepository(VariableValueEntity).countBy({ tenantId, definitionId: id });
      if (values > 0 && !recursive) throw new ConflictException(`Variable "${row.name}" has ${values} values; delete them first, or delete with ?recursive=true to remove them too.`);
      await manager.getRepository(VariableValueEntity).delete({ tenantId, definitionId: id });
      await manager.getRepository(VariableDefinitionEntity).delete({ tenantId, id });
      return toVariableDefinitionDto(row);
    });
  }

  /**
   * A scope of the tenant (optionally locked for update).
   * @throws NotFoundException (404)
   */
  async findScope(manager: EntityManager, tenantId: string, id: string, lock = false): Promise<VariableScopeEntity> {
    const row = await manager.getRepository(VariableScopeEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw new NotFoundException(`No variable scope ${id} in this tenant.`);
    return row;
  }

  private async findDefinition(manager: EntityManager, tenantId: string, scopeId: string, id: string, lock = false): Promise<VariableDefinitionEntity> {
    await this.findScope(manager, tenantId, scopeId);
    const row = await manager.getRepository(VariableDefinitionEntity).findOne({ where: { tenantId, scopeId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw new NotFoundException(`No variable definition ${id} in scope ${scopeId}.`);
    return row;
  }

  /**
   * The stored shape of a definition payload, checked: options fit the type, the default matches it and is not too
   * large. @throws BadRequestException (400) with every problem in `errors`; ProblemException (413)
   */
  private checkDefinition(input: VariableDefinitionPayload): Pick<VariableDefinitionEntity, 'name' | 'type' | 'options' | 'defaultValue' | 'description'> {
    const problems = checkVariableOptions(input.type, input.options, this.config.chatVariables.maxEnumOptions);
    const options = input.type === 'enum' ? ((input.options ?? []) as string[]) : null;
    const defaultValue = input.defaultValue ?? null;
    if (problems.length === 0 && defaultValue !== null) {
      const check = checkVariableValue({ name: input.name, type: input.type, options }, defaultValue);
      if (!check.ok) problems.push({ field: 'defaultValue', message: check.reason });
    }
    if (problems.length) {
      throw new BadRequestException({ message: `Invalid variable definition: ${problems.map((problem) => problem.message).join(' ')}`, errors: problems.map((problem) => ({ field: problem.field, messages: [problem.message] })) });
    }
    if (defaultValue !== null) assertValueSize(defaultValue, this.config.chatVariables.valueMaxBytes, 'The default value');
    return { name: input.name, type: input.type, options, defaultValue, description: input.description || null };
  }

  private async definitionCounts(manager: EntityManager, tenantId: string, scopeIds: string[]): Promise<Map<string, number>> {
    if (scopeIds.length === 0) return new Map();
    const rows = await manager.query<{ scope_id: string; count: string }[]>(
      'SELECT scope_id, count(*)::text AS count FROM chat_variable_definition WHERE tenant_id = $1 AND scope_id = ANY($2::uuid[]) GROUP BY scope_id',
      [tenantId, scopeIds],
    );
    return new Map(rows.map((row) => [row.scope_id, Number(row.count)]));
  }
}

/**
 * Refuses a value whose JSON is larger than the limit.
 * @param what how to name the value in the message ("The value", "The default value")
 * @throws ProblemException (413)
 */
export function assertValueSize(value: unknown, maxBytes: number, what: string): void {
  const size = variableValueBytes(value);
  if (size > maxBytes) throw new ProblemException(HttpStatus.PAYLOAD_TOO_LARGE, `${what} is ${size} bytes of JSON; at most ${maxBytes} are allowed (CHAT_VARIABLE_VALUE_MAX_BYTES).`);
}

/** Saves a row inside the transaction's savepoint-free flow; a unique violation becomes the given 409. */
async function saveUnique<T extends object>(manager: EntityManager, row: T, conflict: () => ConflictException): Promise<void> {
  try {
    await manager.save(row);
  } catch (error) {
    if (uniqueViolation(error) !== undefined) throw conflict();
    throw error;
  }
}

function duplicateScope(input: VariableScopePayload): ConflictException {
  return new ConflictException(`The tenant already has a ${input.source} variable scope named "${input.name}".`);
}

function duplicateDefinition(name: string): ConflictException {
  return new ConflictException(`The scope already has a variable named "${name}".`);
}
