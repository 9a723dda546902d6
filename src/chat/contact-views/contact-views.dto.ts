import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { ContactViewEntity } from './contact-view.entity';
import {
  ALL_CONTACT_VIEW_OPERATORS,
  CONTACT_VIEW_FIELDS,
  CONTACT_VIEW_MAX_SORT_KEYS,
  CONTACT_VIEW_SORT_FIELDS,
  ContactViewFilter,
  ContactViewMatch,
  ContactViewSort,
} from './contact-view-filter.rules';

const FIELD_NAMES = Object.keys(CONTACT_VIEW_FIELDS);
const SORT_FIELD_NAMES = Object.keys(CONTACT_VIEW_SORT_FIELDS);

/** One condition of a contact view's filter. */
export class ContactViewConditionDto {
  @ApiProperty({ description: 'Contact field.', enum: FIELD_NAMES, example: 'tags' })
  @IsIn(FIELD_NAMES, { message: `field must be one of ${FIELD_NAMES.join(', ')}` })
  field: string;

  @ApiProperty({
    description:
      'Operator, by the field\'s kind — text (name, remark, description, mobile, externalUserId, workChatUserId, state, customerCorpName): eq, ne, contains, notContains, startsWith, in, notIn, isEmpty, isNotEmpty; corpId: eq, ne, in, notIn; aiEnabled: eq; gender, type: eq, ne, in, notIn; tags: hasAny, hasAll, hasNone, isEmpty, isNotEmpty; times (createdAt, addedAt, lastMessageAt, stateAt): before, after, between, withinLastDays, isEmpty, isNotEmpty.',
    enum: ALL_CONTACT_VIEW_OPERATORS,
    example: 'hasAny',
  })
  @IsIn(ALL_CONTACT_VIEW_OPERATORS, { message: `operator must be one of ${ALL_CONTACT_VIEW_OPERATORS.join(', ')}` })
  operator: string;

  @ApiPropertyOptional({
    description:
      'Value, by operator: a string (text; 1..200 chars), a UUID (corpId), true/false (aiEnabled), a number (gender 0/1/2, type 1/2), a list of 1..100 of these (in, notIn) or of tag names (hasAny, hasAll, hasNone), a timestamp "yyyy-MM-dd HH:mm:ss" in UTC (before, after), [from, to] (between, inclusive), a number of days 1..3650 (withinLastDays); none for isEmpty / isNotEmpty.',
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: {} }],
    example: ['VIP'],
  })
  @IsOptional()
  value?: unknown;
}

/** A contact view's filter: conditions joined by AND (`all`) or OR (`any`). */
export class ContactViewFilterDto {
  @ApiProperty({ description: '`all`: every condition must hold (AND); `any`: at least one (OR). No conditions = every contact.', enum: ['all', 'any'], example: 'all' })
  @IsIn(['all', 'any'], { message: 'match must be "all" or "any"' })
  match: ContactViewMatch;

  @ApiProperty({ description: 'Conditions, at most CHAT_CONTACT_VIEW_MAX_CONDITIONS (400).', type: [ContactViewConditionDto] })
  @IsArray() @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ContactViewConditionDto)
  conditions: ContactViewConditionDto[];
}

/** One sort key of a contact view. */
export class ContactViewSortDto {
  @ApiProperty({ description: 'Contact field to sort by.', enum: SORT_FIELD_NAMES, example: 'lastMessageAt' })
  @IsIn(SORT_FIELD_NAMES, { message: `field must be one of ${SORT_FIELD_NAMES.join(', ')}` })
  field: string;

  @ApiProperty({ description: 'Direction.', enum: ['asc', 'desc'], example: 'desc' })
  @IsIn(['asc', 'desc'], { message: 'direction must be "asc" or "desc"' })
  direction: 'asc' | 'desc';
}

/**
 * Body of `POST {C}/userChatContactView` and `PUT {C}/userChatContactView/{id}` (chat-management-api.md:
 * UserChatContactViewRequest). PUT replaces every field.
 */
export class UserChatContactViewRequest {
  @ApiProperty({ description: 'Name; unique among the caller\'s views (409).', maxLength: 100, example: 'VIPs quiet for a week' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description; omitted or "" = none.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiProperty({ description: 'Which contacts the view shows (validated: known fields, operators that fit them, values that fit the operators → 400 naming each bad part).', type: ContactViewFilterDto })
  @IsDefined() @ValidateNested() @Type(() => ContactViewFilterDto)
  filter: ContactViewFilterDto;

  @ApiPropertyOptional({ description: `Order of the contacts, up to ${CONTACT_VIEW_MAX_SORT_KEYS} keys, each field once; omitted = the list's default order.`, type: [ContactViewSortDto] })
  @IsOptional() @IsArray() @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ContactViewSortDto)
  sort?: ContactViewSortDto[];

  @ApiPropertyOptional({ description: 'Shared views are visible (read-only) to every caller of the tenant; only the owner changes or deletes a view.', default: false })
  @IsOptional() @IsBoolean()
  shared?: boolean;
}

/** Sort fields of the view list (`sort=field,asc|desc`). */
export const CONTACT_VIEW_LIST_SORT_FIELDS = { name: 'name', createdAt: 'createdAt', updatedAt: 'updatedAt' } as const;

/** Query of `GET {C}/userChatContactView`. */
export class ContactViewPageQuery extends PageBoundsQueryDto {
  @SortParam(CONTACT_VIEW_LIST_SORT_FIELDS, ['name,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: '`all` (default): the caller\'s views and views others share; `mine`: only the caller\'s; `shared`: only shared ones (anyone\'s).', enum: ['all', 'mine', 'shared'], default: 'all' })
  @IsOptional() @IsIn(['all', 'mine', 'shared'], { message: 'scope must be all, mine or shared' })
  scope?: 'all' | 'mine' | 'shared';
}

/** A contact view as returned (chat-management-api.md: UserChatContactViewDto). */
export class UserChatContactViewDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name.', example: 'VIPs quiet for a week' }) name: string;
  @ApiProperty({ description: 'Description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'The filter.', type: ContactViewFilterDto }) filter: ContactViewFilter;
  @ApiProperty({ description: 'Sort keys (empty = the list\'s default order).', type: [ContactViewSortDto] }) sort: ContactViewSort[];
  @ApiProperty({ description: 'Whether every caller of the tenant sees it.' }) shared: boolean;
  @ApiProperty({ description: 'Owner: the access token subject that created it (the client id for client-credentials tokens).', example: 'chat-console' }) owner: string;
  @ApiProperty({ description: 'Whether the caller owns it (and so may change or delete it).' }) mine: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a view row to its response for a caller. */
export function toUserChatContactViewDto(row: ContactViewEntity, caller: string): UserChatContactViewDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    filter: row.filter,
    sort: row.sort,
    shared: row.shared,
    owner: row.ownerSubject,
    mine: row.ownerSubject === caller,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
