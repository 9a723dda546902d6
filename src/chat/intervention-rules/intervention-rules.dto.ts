import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, ValidateNested } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { INTERVENTION_MATCH_TYPES, InterventionMatchType, InterventionRuleEntity } from './intervention-rule.entity';

/*
 * Human-intervention rules have two views of the same rows (chat-management-api.md, "Human-intervention rule"):
 * the tenant API's V1 view (`{T}/v1/customers/interventionRule`: CustomerInterventionRuleRequestV1 /
 * CustomerInterventionRulesDtoV1) is flat; the console view (`{C}/customers/interventionRule`:
 * CustomerInterventionRuleRequest / CustomerInterventionRulesDto) groups the scope and the action. Limits that come
 * from configuration (pattern count and length, regex safety) are checked by InterventionRulesService.
 */

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

const PATTERNS_DESCRIPTION =
  'What the rule looks for, per matchType: `keywords` — words or phrases found anywhere in the message (case-insensitive, full-width = half-width); ' +
  '`regex` — regular expressions in JavaScript syntax, case-insensitive, run on the RE2 engine (time linear in the message, so `(a+)+` is harmless); backreferences (`\\1`, `\\k<name>`), lookahead `(?=` `(?!`, lookbehind `(?<=` `(?<!`, atomic groups and possessive quantifiers are refused with 400 naming the construct; a pattern matching the empty text is refused; at most CHAT_RULE_MAX_PATTERN_LENGTH characters each; ' +
  '`intent` — intent names, matched against the intent detected in the message (case-insensitive). 1..CHAT_RULE_MAX_PATTERNS entries, no repeats.';

// ---------------------------------------------------------------- shared field declarations

/** Fields both views of a rule share (name, description, match type, patterns, enabled). */
class RuleFields {
  @ApiProperty({ description: 'Name of the rule, unique within the tenant.', maxLength: 100, example: 'Complaints go to a person' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description; null clears it on update.', type: String, nullable: true, maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string | null;

  @ApiProperty({ description: 'How the rule recognises a message.', enum: INTERVENTION_MATCH_TYPES, example: 'keywords' })
  @IsIn(INTERVENTION_MATCH_TYPES)
  matchType: InterventionMatchType;

  @ApiProperty({ description: PATTERNS_DESCRIPTION, type: [String], minItems: 1, example: ['complaint', 'manager', '投诉'] })
  @IsArray() @ArrayMinSize(1) @IsString({ each: true })
  patterns: string[];

  @ApiPropertyOptional({ description: 'A disabled rule is kept but never matches. Default true on create; omitted on update keeps it.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

// ---------------------------------------------------------------- console view

/** Which contacts a rule applies to (console view). */
export class InterventionRuleScope {
  @ApiProperty({ description: 'true: every contact of the tenant. false: only contacts answered by one of digitalStaffIds.', example: true })
  @IsBoolean()
  allContacts: boolean;

  @ApiPropertyOptional({ description: 'Digital staff (ChatStaffDto ids) the rule is limited to; required (non-empty) when allContacts is false, must be empty otherwise. Each must be a digital staff of the tenant.', type: [String], format: 'uuid', example: [] })
  @IsOptional() @IsArray() @IsUUID('all', { each: true })
  digitalStaffIds?: string[];
}

/** What happens when a rule matches (console view). */
export class InterventionRuleAction {
  @ApiPropertyOptional({ description: 'Switch the contact\'s AI replies off. Default true.', default: true })
  @IsOptional() @IsBoolean()
  switchAiOff?: boolean;

  @ApiPropertyOptional({ description: 'Open a digital-staff customer to-do for a person to handle. Default true.', default: true })
  @IsOptional() @IsBoolean()
  createTodo?: boolean;

  @ApiProperty({ description: 'Why, as recorded on the to-do and shown to the operator.', maxLength: 500, example: 'Customer complaint: a person must answer.' })
  @IsString() @IsNotEmpty() @MaxLength(500)
  reason: string;
}

/**
 * Body of the console's `POST {C}/customers/interventionRule` and `PUT {C}/customers/interventionRule/{id}`
 * (CustomerInterventionRuleRequest). On update the required fields are given again; omitted optional fields keep
 * their value.
 */
export class CustomerInterventionRuleRequest extends RuleFields {
  @ApiProperty({ description: 'Which contacts the rule applies to.', type: InterventionRuleScope })
  @IsDefined() @IsObject() @ValidateNested() @Type(() => InterventionRuleScope)
  scope: InterventionRuleScope;

  @ApiProperty({ description: 'What happens when the rule matches.', type: InterventionRuleAction })
  @IsDefined() @IsObject() @ValidateNested() @Type(() => InterventionRuleAction)
  action: InterventionRuleAction;
}

/** Scope of a rule as returned (console view). */
export class InterventionRuleScopeDto {
  @ApiProperty({ description: 'The rule applies to every contact.' }) allContacts: boolean;
  @ApiProperty({ description: 'Digital staff the rule is limited to (empty when allContacts).', type: [String], format: 'uuid' }) digitalStaffIds: string[];
}

/** Action of a rule as returned (console view). */
export class InterventionRuleActionDto {
  @ApiProperty({ description: 'Switches the contact\'s AI replies off.' }) switchAiOff: boolean;
  @ApiProperty({ description: 'Opens a digital-staff customer to-do.' }) createTodo: boolean;
  @ApiProperty({ description: 'Recorded reason.' }) reason: string;
}

/** A human-intervention rule as the console shows it (CustomerInterventionRulesDto). */
export class CustomerInterventionRulesDto {
  @ApiProperty({ description: 'Id of the rule (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name, unique within the tenant.' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'How the rule recognises a message.', enum: INTERVENTION_MATCH_TYPES }) matchType: InterventionMatchType;
  @ApiProperty({ description: 'Keywords, regular expressions or intent names.', type: [String] }) patterns: string[];
  @ApiProperty({ description: 'Which contacts the rule applies to.', type: InterventionRuleScopeDto }) scope: InterventionRuleScopeDto;
  @ApiProperty({ description: 'Whether the rule is in use.' }) enabled: boolean;
  @ApiProperty({ description: 'What happens when it matches.', type: InterventionRuleActionDto }) action: InterventionRuleActionDto;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

// ---------------------------------------------------------------- V1 view

/**
 * Body of `POST {T}/v1/customers/interventionRule` and `PUT {T}/v1/customers/interventionRule/{id}`
 * (CustomerInterventionRuleRequestV1): the console's fields, flat. On update the required fields are given again;
 * omitted optional fields keep their value.
 */
export class CustomerInterventionRuleRequestV1 extends RuleFields {
  @ApiPropertyOptional({ description: 'true (default on create): every contact. false: only contacts answered by one of digitalStaffIds.', default: true })
  @IsOptional() @IsBoolean()
  allContacts?: boolean;

  @ApiPropertyOptional({ description: 'Digital staff the rule is limited to; required (non-empty) when allContacts is false, must be empty otherwise.', type: [String], format: 'uuid' })
  @IsOptional() @IsArray() @IsUUID('all', { each: true })
  digitalStaffIds?: string[];

  @ApiPropertyOptional({ description: 'Switch the contact\'s AI replies off when the rule matches. Default true.', default: true })
  @IsOptional() @IsBoolean()
  switchAiOff?: boolean;

  @ApiPropertyOptional({ description: 'Open a digital-staff customer to-do when the rule matches. Default true.', default: true })
  @IsOptional() @IsBoolean()
  createTodo?: boolean;

  @ApiProperty({ description: 'Why, as recorded on the to-do and shown to the operator.', maxLength: 500, example: 'Customer complaint: a person must answer.' })
  @IsString() @IsNotEmpty() @MaxLength(500)
  reason: string;
}

/** A human-intervention rule of the tenant API (CustomerInterventionRulesDtoV1): the console's fields, flat. */
export class CustomerInterventionRulesDtoV1 {
  @ApiProperty({ description: 'Id of the rule (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name, unique within the tenant.' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'How the rule recognises a message.', enum: INTERVENTION_MATCH_TYPES }) matchType: InterventionMatchType;
  @ApiProperty({ description: 'Keywords, regular expressions or intent names.', type: [String] }) patterns: string[];
  @ApiProperty({ description: 'The rule applies to every contact.' }) allContacts: boolean;
  @ApiProperty({ description: 'Digital staff the rule is limited to (empty when allContacts).', type: [String], format: 'uuid' }) digitalStaffIds: string[];
  @ApiProperty({ description: 'Whether the rule is in use.' }) enabled: boolean;
  @ApiProperty({ description: 'Switches the contact\'s AI replies off.' }) switchAiOff: boolean;
  @ApiProperty({ description: 'Opens a digital-staff customer to-do.' }) createTodo: boolean;
  @ApiProperty({ description: 'Recorded reason.' }) reason: string;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

// ---------------------------------------------------------------- list query, mapping

/** Sort fields of the rule lists (`sort=field,asc|desc`). */
export const INTERVENTION_RULE_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of the rule lists (both views). */
export class InterventionRulePageQuery extends PageBoundsQueryDto {
  @SortParam(INTERVENTION_RULE_SORT_FIELDS, ['createdAt,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only rules of this match type. Sort fields: createdAt, updatedAt, name (default createdAt,asc: the order rules apply in).', enum: INTERVENTION_MATCH_TYPES })
  @IsOptional() @IsIn(INTERVENTION_MATCH_TYPES)
  matchType?: InterventionMatchType;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) rules.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ description: 'Only rules whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;
}

/** The fields of a rule in the service's terms (both views map to this). */
export interface InterventionRuleInputData {
  name: string;
  description?: string | null;
  matchType: InterventionMatchType;
  patterns: string[];
  allContacts?: boolean;
  digitalStaffIds?: string[];
  enabled?: boolean;
  switchAiOff?: boolean;
  createTodo?: boolean;
  reason: string;
}

/** Console body → service input. */
export function fromConsoleRequest(body: CustomerInterventionRuleRequest): InterventionRuleInputData {
  return {
    name: body.name,
    description: body.description,
    matchType: body.matchType,
    patterns: body.patterns,
    allContacts: body.scope.allContacts,
    digitalStaffIds: body.scope.digitalStaffIds,
    enabled: body.enabled,
    switchAiOff: body.action.switchAiOff,
    createTodo: body.action.createTodo,
    reason: body.action.reason,
  };
}

/** V1 body → service input. */
export function fromV1Request(body: CustomerInterventionRuleRequestV1): InterventionRuleInputData {
  return { ...body };
}

/** Maps a row to the console view. */
export function toCustomerInterventionRulesDto(row: InterventionRuleEntity): CustomerInterventionRulesDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    matchType: row.matchType,
    patterns: row.patterns,
    scope: { allContacts: row.allContacts, digitalStaffIds: row.digitalStaffIds },
    enabled: row.enabled,
    action: { switchAiOff: row.switchAiOff, createTodo: row.createTodo, reason: row.reason },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Maps a row to the V1 view. */
export function toCustomerInterventionRulesDtoV1(row: InterventionRuleEntity): CustomerInterventionRulesDtoV1 {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    matchType: row.matchType,
    patterns: row.patterns,
    allContacts: row.allContacts,
    digitalStaffIds: row.digitalStaffIds,
    enabled: row.enabled,
    switchAiOff: row.switchAiOff,
    createTodo: row.createTodo,
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
