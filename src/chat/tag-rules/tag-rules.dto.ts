import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { TAG_RULE_MATCH_MODES, TagRuleEntity, TagRuleMatchMode } from './tag-rule.entity';

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** The platform's corp tag ids: letters, digits, `_` or `-`, 1..64. */
export const PLATFORM_TAG_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Body of `POST {C}/customers/tagRule` and `PUT {C}/customers/tagRule/{id}` (chat-management-api.md:
 * CustomerTagRuleRequest). Keywords → tags: when an inbound customer message contains the keywords (any or all,
 * case-insensitive), the pipeline adds the tags to the contact. On update the required fields are given again;
 * omitted optional fields keep their value. Counts and lengths over CHAT_RULE_MAX_PATTERNS /
 * CHAT_RULE_MAX_PATTERN_LENGTH are 400 (checked by TagRulesService).
 */
export class CustomerTagRuleRequest {
  @ApiProperty({ description: 'Name of the rule, unique within the tenant.', maxLength: 100, example: 'Price-sensitive customers' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description; null clears it on update.', type: String, nullable: true, maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string | null;

  @ApiProperty({ description: 'Words or phrases looked for anywhere in the message (case-insensitive, full-width = half-width); 1..CHAT_RULE_MAX_PATTERNS, no repeats.', type: [String], minItems: 1, example: ['price', 'discount', '优惠'] })
  @IsArray() @ArrayMinSize(1) @IsString({ each: true })
  keywords: string[];

  @ApiPropertyOptional({ description: '`any`: one keyword is enough (default on create). `all`: every keyword must be in the message.', enum: TAG_RULE_MATCH_MODES, default: 'any' })
  @IsOptional() @IsIn(TAG_RULE_MATCH_MODES)
  matchMode?: TagRuleMatchMode;

  @ApiPropertyOptional({ description: 'Tag names to add. At least one of tagNames / platformTagIds must be non-empty.', type: [String], example: ['price-sensitive'] })
  @IsOptional() @IsArray() @IsString({ each: true })
  tagNames?: string[];

  @ApiPropertyOptional({ description: 'The platform\'s corp tag ids to add (letters, digits, "_" or "-").', type: [String], example: ['etXXXXXXXXXXXXXXXX'] })
  @IsOptional() @IsArray() @Matches(PLATFORM_TAG_ID_PATTERN, { each: true, message: 'each platform tag id must be 1..64 letters, digits, "_" or "-"' })
  platformTagIds?: string[];

  @ApiPropertyOptional({ description: 'A disabled rule is kept but never matches. Default true on create.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** A keyword tag rule as returned (CustomerTagRuleDto). */
export class CustomerTagRuleDto {
  @ApiProperty({ description: 'Id of the rule (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name, unique within the tenant.' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Keywords looked for.', type: [String] }) keywords: string[];
  @ApiProperty({ description: 'any / all of the keywords.', enum: TAG_RULE_MATCH_MODES }) matchMode: TagRuleMatchMode;
  @ApiProperty({ description: 'Tag names added.', type: [String] }) tagNames: string[];
  @ApiProperty({ description: 'Platform corp tag ids added.', type: [String] }) platformTagIds: string[];
  @ApiProperty({ description: 'Whether the rule is in use.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Sort fields of the tag rule list. */
export const TAG_RULE_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {C}/customers/tagRule`. */
export class TagRulePageQuery extends PageBoundsQueryDto {
  @SortParam(TAG_RULE_SORT_FIELDS, ['createdAt,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) rules. Sort fields: createdAt, updatedAt, name (default createdAt,asc: the order rules apply in).', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ description: 'Only rules whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only rules with this keyword (exact, case-sensitive as stored).', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(200)
  keyword?: string;
}

/** Maps a row to its response. */
export function toCustomerTagRuleDto(row: TagRuleEntity): CustomerTagRuleDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    keywords: row.keywords,
    matchMode: row.matchMode,
    tagNames: row.tagNames,
    platformTagIds: row.platformTagIds,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
