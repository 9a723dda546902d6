import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateNested } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { CHAT_TIMESTAMP_EXAMPLE, CHAT_TIMESTAMP_PATTERN } from '../common/chat-timestamp';
import { isoOfTimestamptzText } from '../../database/timestamptz-parser';
import type { ExternalContactEntity } from './external-contact.entity';

/** Platform ids (staff userid, external userid): 1..64 characters without spaces. */
const PLATFORM_ID = /^\S{1,64}$/;
const PLATFORM_ID_MESSAGE = (field: string) => `${field} must be 1..64 characters without spaces`;
/** Contact way states: 1..30 characters (the platform's limit). */
const STATE = /^\S(.{0,28}\S)?$/;
/** Remark mobiles: digits with an optional +, spaces not allowed (the platform's rule). */
const MOBILE = /^\+?[0-9-]{3,32}$/;
const TIMESTAMP_MESSAGE = (field: string) => `${field} must look like yyyy-MM-dd HH:mm:ss`;
/** Query-string booleans: only "true" and "false". */
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

// ---------------------------------------------------------------- shared pieces

/** A tag on a contact as the staff member sees it. */
export class ExternalContactTagDto {
  @ApiPropertyOptional({ description: 'The platform\'s corp tag id (corp tags only).', example: 'etXXXXXXXXXX' }) tagId?: string;
  @ApiPropertyOptional({ description: 'Tag name.', example: 'VIP' }) tagName?: string;
  @ApiPropertyOptional({ description: 'The platform\'s id of the tag\'s group (corp tags only).', example: 'etGROUPXXXX' }) groupId?: string;
  @ApiPropertyOptional({ description: 'Name of the tag\'s group.', example: 'Level' }) groupName?: string;
  @ApiProperty({ description: '1 corp tag, 2 personal tag of the staff member.', enum: [1, 2], example: 1 }) type: number;
}

/** Remark fields the platform keeps per (staff member, customer); shared by the remark requests. */
export class ContactRemarkFields {
  @ApiPropertyOptional({ description: 'The staff member\'s remark (name given to the customer), up to 20 characters on the platform; "" clears it.', maxLength: 20, example: 'Lily (booth A)' })
  @IsOptional() @IsString() @MaxLength(20)
  remark?: string;

  @ApiPropertyOptional({ description: 'The staff member\'s description of the customer, up to 150 characters; "" clears it.', maxLength: 150, example: 'Interested in the spring collection' })
  @IsOptional() @IsString() @MaxLength(150)
  description?: string;

  @ApiPropertyOptional({ description: 'The customer\'s company as remarked, up to 20 characters; "" clears it.', maxLength: 20, example: 'Globex' })
  @IsOptional() @IsString() @MaxLength(20)
  remarkCompany?: string;

  @ApiPropertyOptional({ description: 'Phone numbers remarked for the customer (up to 5); [] clears them. The first is the contact\'s `mobile`.', type: [String], maxItems: 5, example: ['13800000000'] })
  @IsOptional() @IsArray() @ArrayMaxSize(5) @IsString({ each: true }) @Matches(MOBILE, { each: true, message: 'each remarkMobiles entry must be a phone number (digits, "-", optional leading +)' })
  remarkMobiles?: string[];
}

// ---------------------------------------------------------------- console (`{C}/workChat/{workChatUserId}/contact/external`)

/** Body of `PUT {C}/workChat/{workChatUserId}/contact/external/{contactId}` (ChatContactsExternalRequest). Omitted fields are kept. */
export class ChatContactsExternalRequest {
  @ApiPropertyOptional({ description: 'The staff member\'s remark of the customer (pushed to the platform), up to 20 characters; "" clears it.', maxLength: 20, example: 'Lily (booth A)' })
  @IsOptional() @IsString() @MaxLength(20)
  remark?: string;

  @ApiPropertyOptional({ description: 'Description of the customer (pushed to the platform), up to 150 characters; "" clears it.', maxLength: 150 })
  @IsOptional() @IsString() @MaxLength(150)
  description?: string;

  @ApiPropertyOptional({ description: 'The customer\'s company as remarked (pushed to the platform), up to 20 characters; "" clears it.', maxLength: 20 })
  @IsOptional() @IsString() @MaxLength(20)
  remarkCompany?: string;

  @ApiPropertyOptional({ description: 'The customer\'s mobile (pushed to the platform as the remark mobile); "" clears it.', example: '13800000000' })
  @IsOptional() @IsString() @Matches(/^(\+?[0-9-]{3,32})?$/, { message: 'mobile must be a phone number (digits, "-", optional leading +) or ""' })
  mobile?: string;

  @ApiPropertyOptional({ description: 'The customer\'s open id in the tenant\'s official account or mini program (kept by Atrium); "" clears it.', maxLength: 128, example: 'oAbC123xyz' })
  @IsOptional() @IsString() @Matches(/^(\S{1,128})?$/, { message: 'openId must be up to 128 characters without spaces' })
  openId?: string;

  @ApiPropertyOptional({ description: 'Whether the digital staff replies to this customer.' })
  @IsOptional() @IsBoolean()
  aiEnabled?: boolean;
}

/** Sort fields of the console contact list. */
export const CHAT_CONTACTS_EXTERNAL_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', addedAt: 'addedAt', stateAt: 'stateAt', name: 'name', lastMessageAt: 'lastMessageAt' } as const;

/** Query of `GET {C}/workChat/{workChatUserId}/contact/external` (the staff member's contacts). */
export class ChatContactsExternalPageQuery extends PageBoundsQueryDto {
  @SortParam(CHAT_CONTACTS_EXTERNAL_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only contacts in this corp (id of the corp link).', format: 'uuid' })
  @IsOptional() @IsUUID()
  corpId?: string;

  @ApiPropertyOptional({ description: 'Name, remark or external user id contains this text (case-insensitive).', maxLength: 64, example: 'Lily' })
  @IsOptional() @IsString() @MaxLength(64)
  keyword?: string;

  @ApiPropertyOptional({ description: 'Only contacts whose last contact way state is this.', maxLength: 30, example: 'spring-fair' })
  @IsOptional() @IsString() @Matches(STATE, { message: 'state must be 1..30 characters' })
  state?: string;

  @ApiPropertyOptional({ description: 'Only contacts with the AI reply switched on (true) or off (false).' })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  aiEnabled?: boolean;

  @ApiPropertyOptional({ description: 'Created at or after (yyyy-MM-dd HH:mm:ss, UTC).', example: CHAT_TIMESTAMP_EXAMPLE, pattern: CHAT_TIMESTAMP_PATTERN.source })
  @IsOptional() @Matches(CHAT_TIMESTAMP_PATTERN, { message: TIMESTAMP_MESSAGE('startCreateTime') })
  startCreateTime?: string;

  @ApiPropertyOptional({ description: 'Created at or before (yyyy-MM-dd HH:mm:ss, UTC).', example: CHAT_TIMESTAMP_EXAMPLE, pattern: CHAT_TIMESTAMP_PATTERN.source })
  @IsOptional() @Matches(CHAT_TIMESTAMP_PATTERN, { message: TIMESTAMP_MESSAGE('endCreateTime') })
  endCreateTime?: string;
}

/** A contact as the console shows it (ChatContactsExternalDto). */
export class ChatContactsExternalDto {
  @ApiProperty({ description: 'Contact id (the spec\'s contactId / chatContactId).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Id of the corp link.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' }) corpName: string;
  @ApiProperty({ description: 'The staff member (platform userid) the customer is added to.', example: 'zhangsan' }) workChatUserId: string;
  @ApiProperty({ description: 'The platform\'s id of the customer.', example: 'wmXXXXXXXXXXXXXXXX' }) externalUserId: string;
  @ApiProperty({ description: 'Open id in the tenant\'s official account / mini program, or null.', type: String, nullable: true }) openId: string | null;
  @ApiProperty({ description: 'Union id on the platform\'s chat app, or null.', type: String, nullable: true }) unionId: string | null;
  @ApiProperty({ description: 'The customer\'s name on the platform.', example: 'Lily' }) name: string;
  @ApiProperty({ description: 'Avatar URL, or null.', type: String, nullable: true }) avatarUrl: string | null;
  @ApiProperty({ description: '1 personal chat-app user, 2 user of another enterprise.', enum: [1, 2] }) type: number;
  @ApiProperty({ description: '0 unknown, 1 male, 2 female.', enum: [0, 1, 2] }) gender: number;
  @ApiProperty({ description: 'The customer\'s enterprise (type 2), or null.', type: String, nullable: true }) customerCorpName: string | null;
  @ApiProperty({ description: 'The staff member\'s remark, or null.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'The staff member\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Company as remarked, or null.', type: String, nullable: true }) remarkCompany: string | null;
  @ApiProperty({ description: 'Mobile (first remark mobile), or null.', type: String, nullable: true }) mobile: string | null;
  @ApiProperty({ description: 'Tags as the staff member sees them.', type: [ExternalContactTagDto] }) tags: ExternalContactTagDto[];
  @ApiProperty({ description: 'State of the contact way the customer last came through ("last state"), or null.', type: String, nullable: true, example: 'spring-fair' }) state: string | null;
  @ApiProperty({ description: 'When the state was last set (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) stateAt: string | null;
  @ApiProperty({ description: 'How the customer was added (platform add_way: 1 QR code, 0 unknown, …).' }) addWay: number;
  @ApiProperty({ description: 'When the customer added the staff member (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) addedAt: string | null;
  @ApiProperty({ description: 'Whether the digital staff replies to this customer.' }) aiEnabled: boolean;
  @ApiProperty({ description: 'Names of the customer\'s stored profiles (read one with GET {T}/v1/customers/profiles/{name}).', type: [String], example: ['basic'] }) profileNames: string[];
  @ApiProperty({ description: 'Last message in either direction (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) lastMessageAt: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Times of a contact, as ISO 8601 text in {@link ExternalContactSource}. */
type ContactTimes = 'stateAt' | 'addedAt' | 'lastMessageAt' | 'createdAt' | 'updatedAt';

/**
 * What the contact DTOs are made of: a contact's columns (no tenant, sandbox flag or profile data) with its times as
 * ISO 8601 text. The hot lists read exactly this as plain rows (issue 14 item 1, {@link CONTACT_SOURCE_COLUMNS}); a
 * single contact is read as an entity and turned into it ({@link contactSourceOf}).
 */
export type ExternalContactSource = Omit<ExternalContactEntity, 'tenantId' | 'sandbox' | 'profile' | ContactTimes> & {
  [time in ContactTimes]: time extends 'createdAt' | 'updatedAt' ? string : string | null;
};

/** {@link ExternalContactSource} with the names of the contact's profiles: what the console DTO is made of. */
export type ChatContactsExternalSource = ExternalContactSource & { profileNames: string[] };

/**
 * The SELECT of {@link ExternalContactSource}, by alias, for `pageRows` (alias `contact`): the columns as they are,
 * times as PostgreSQL's text (made ISO by {@link contactSourceOfRow}: no Date per value).
 */
export const CONTACT_SOURCE_COLUMNS: Readonly<Record<keyof ExternalContactSource, string>> = {
  id: 'contact.id',
  corpId: 'contact.corpId',
  workChatUserId: 'contact.workChatUserId',
  externalUserId: 'contact.externalUserId',
  openId: 'contact.openId',
  unionId: 'contact.unionId',
  name: 'contact.name',
  avatarUrl: 'contact.avatarUrl',
  type: 'contact.type',
  gender: 'contact.gender',
  customerCorpName: 'contact.customerCorpName',
  remark: 'contact.remark',
  description: 'contact.description',
  remarkCompany: 'contact.remarkCompany',
  mobile: 'contact.mobile',
  tags: 'contact.tags',
  state: 'contact.state',
  stateAt: 'CAST(contact.stateAt AS text)',
  addWay: 'contact.addWay',
  addedAt: 'CAST(contact.addedAt AS text)',
  aiEnabled: 'contact.aiEnabled',
  lastMessageAt: 'CAST(contact.lastMessageAt AS text)',
  createdAt: 'CAST(contact.createdAt AS text)',
  updatedAt: 'CAST(contact.updatedAt AS text)',
};

/**
 * The console list's SELECT of {@link ChatContactsExternalSource}: {@link CONTACT_SOURCE_COLUMNS} and the profiles'
 * names instead of their data (a profile can be kilobytes; the list shows names only).
 */
export const CONSOLE_CONTACT_LIST_COLUMNS: Readonly<Record<keyof ChatContactsExternalSource, string>> = {
  ...CONTACT_SOURCE_COLUMNS,
  // Only an object has keys: anything else stored there has no profile names (as contactSourceOf reads them).
  profileNames: `CASE WHEN jsonb_typeof(contact.profile) = 'object' THEN ARRAY(SELECT jsonb_object_keys(contact.profile)) ELSE '{}'::text[] END`,
};

/**
 * A contact entity as {@link ChatContactsExternalSource}: its times as ISO text, its profiles' names (none unless the
 * stored profile is a JSON object, as {@link CONSOLE_CONTACT_LIST_COLUMNS} reads them: an array's indexes are no names).
 */
export function contactSourceOf(row: ExternalContactEntity): ChatContactsExternalSource {
  const times = { stateAt: iso(row.stateAt), addedAt: iso(row.addedAt), lastMessageAt: iso(row.lastMessageAt), createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
  const profile: unknown = row.profile;
  const isObject = typeof profile === 'object' && profile !== null && !Array.isArray(profile);
  return { ...row, ...times, profileNames: isObject ? Object.keys(profile) : [] };
}

/**
 * A row read with {@link CONTACT_SOURCE_COLUMNS} (or {@link CONSOLE_CONTACT_LIST_COLUMNS}) as its source: its times,
 * PostgreSQL's text as read, made ISO 8601 in place (what `toISOString` of the entity's Dates gives).
 */
export function contactSourceOfRow<T extends ExternalContactSource>(row: T): T {
  row.stateAt = row.stateAt === null ? null : isoOfTimestamptzText(row.stateAt);
  row.addedAt = row.addedAt === null ? null : isoOfTimestamptzText(row.addedAt);
  row.lastMessageAt = row.lastMessageAt === null ? null : isoOfTimestamptzText(row.lastMessageAt);
  row.createdAt = isoOfTimestamptzText(row.createdAt);
  row.updatedAt = isoOfTimestamptzText(row.updatedAt);
  return row;
}

/** Maps a contact to the console DTO (profile names sorted, in place). */
export function chatContactsExternalDtoOf(row: ChatContactsExternalSource, corpName: string): ChatContactsExternalDto {
  return {
    id: row.id,
    corpId: row.corpId,
    corpName,
    workChatUserId: row.workChatUserId,
    externalUserId: row.externalUserId,
    openId: row.openId,
    unionId: row.unionId,
    name: row.name,
    avatarUrl: row.avatarUrl,
    type: row.type,
    gender: row.gender,
    customerCorpName: row.customerCorpName,
    remark: row.remark,
    description: row.description,
    remarkCompany: row.remarkCompany,
    mobile: row.mobile,
    tags: row.tags,
    state: row.state,
    stateAt: row.stateAt,
    addWay: row.addWay,
    addedAt: row.addedAt,
    aiEnabled: row.aiEnabled,
    profileNames: row.profileNames.sort(),
    lastMessageAt: row.lastMessageAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Maps an entity to the console DTO. */
export function toChatContactsExternalDto(row: ExternalContactEntity, corpName: string): ChatContactsExternalDto {
  return chatContactsExternalDtoOf(contactSourceOf(row), corpName);
}

// ---------------------------------------------------------------- tenant API v1 (`{T}/v1/workChat/contact/...`)

/** A contact as the v1 tenant API returns it (ExternalContactDtoV1). */
export class ExternalContactDtoV1 {
  @ApiProperty({ description: 'Contact id (chatContactId).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' }) corpName: string;
  @ApiProperty({ description: 'The staff member (platform userid).', example: 'zhangsan' }) userId: string;
  @ApiProperty({ description: 'The platform\'s id of the customer.', example: 'wmXXXXXXXXXXXXXXXX' }) externalUserId: string;
  @ApiProperty({ description: 'Open id, or null.', type: String, nullable: true }) openId: string | null;
  @ApiProperty({ description: 'Union id, or null.', type: String, nullable: true }) unionId: string | null;
  @ApiProperty({ description: 'The customer\'s name.', example: 'Lily' }) name: string;
  @ApiProperty({ description: 'Avatar URL, or null.', type: String, nullable: true }) avatarUrl: string | null;
  @ApiProperty({ description: '1 personal chat-app user, 2 user of another enterprise.', enum: [1, 2] }) type: number;
  @ApiProperty({ description: '0 unknown, 1 male, 2 female.', enum: [0, 1, 2] }) gender: number;
  @ApiProperty({ description: 'The staff member\'s remark, or null.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'The staff member\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Company as remarked, or null.', type: String, nullable: true }) remarkCompany: string | null;
  @ApiProperty({ description: 'Mobile, or null.', type: String, nullable: true }) mobile: string | null;
  @ApiProperty({ description: 'Tags as the staff member sees them.', type: [ExternalContactTagDto] }) tags: ExternalContactTagDto[];
  @ApiProperty({ description: 'State of the contact way the customer last came through, or null.', type: String, nullable: true, example: 'spring-fair' }) lastState: string | null;
  @ApiProperty({ description: 'When the last state was set (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) lastStateAt: string | null;
  @ApiProperty({ description: 'When the customer added the staff member (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) addedAt: string | null;
  @ApiProperty({ description: 'Whether the digital staff replies to this customer.' }) aiEnabled: boolean;
  @ApiProperty({ description: 'Last message (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) lastMessageAt: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to the v1 DTO. */
export function toExternalContactDtoV1(row: ExternalContactEntity, corpName: string): ExternalContactDtoV1 {
  return externalContactDtoV1Of(contactSourceOf(row), corpName);
}

/** Maps a contact (a row read with {@link CONTACT_SOURCE_COLUMNS}, or {@link contactSourceOf} an entity) to the v1 DTO. */
export function externalContactDtoV1Of(row: ExternalContactSource, corpName: string): ExternalContactDtoV1 {
  return {
    id: row.id,
    corpName,
    userId: row.workChatUserId,
    externalUserId: row.externalUserId,
    openId: row.openId,
    unionId: row.unionId,
    name: row.name,
    avatarUrl: row.avatarUrl,
    type: row.type,
    gender: row.gender,
    remark: row.remark,
    description: row.description,
    remarkCompany: row.remarkCompany,
    mobile: row.mobile,
    tags: row.tags,
    lastState: row.state,
    lastStateAt: row.stateAt,
    addedAt: row.addedAt,
    aiEnabled: row.aiEnabled,
    lastMessageAt: row.lastMessageAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Names one contact: corp, staff member and customer (v1 requests). */
export class ContactRefV1 {
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'The staff member (platform userid).', example: 'zhangsan' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId: string;

  @ApiProperty({ description: 'The platform\'s id of the customer.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('externalUserId') })
  externalUserId: string;
}

/** Body of `POST {T}/v1/workChat/contact/external/remark` (UpdateExternalContactRemarkRequestV1); give at least one remark field. */
export class UpdateExternalContactRemarkRequestV1 extends ContactRemarkFields {
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'The staff member whose remark it is (platform userid).', example: 'zhangsan' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId: string;

  @ApiProperty({ description: 'The platform\'s id of the customer.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('externalUserId') })
  externalUserId: string;
}

/** Body of `PUT /api/v1/workChat/customer/{corpName}/remark` (ChangeCustomerRemarkRequestV1); give at least one remark field. */
export class ChangeCustomerRemarkRequestV1 extends ContactRemarkFields {
  @ApiProperty({ description: 'The staff member whose remark it is (platform userid).', example: 'zhangsan' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId: string;

  @ApiProperty({ description: 'The platform\'s id of the customer.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('externalUserId') })
  externalUserId: string;
}

/** Body of `POST {T}/v1/workChat/contact/external/byOpenId` (ExternalContactByOpenIdQueryV1). */
export class ExternalContactByOpenIdQueryV1 {
  @ApiProperty({ description: 'The customer\'s open id.', maxLength: 128, example: 'oAbC123xyz' })
  @IsString() @Matches(/^\S{1,128}$/, { message: 'openId must be 1..128 characters without spaces' })
  openId: string;

  @ApiPropertyOptional({ description: 'Only in this corp.', example: 'Acme Retail' })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100)
  corpName?: string;

  @ApiPropertyOptional({ description: 'Only the contact of this staff member (platform userid). Without it, the customer\'s most recently active contact is returned.', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId?: string;
}

/** Body of `POST {T}/v1/workChat/contact/external/byLastStates` (ExternalContactByLastStatesQueryV1). */
export class ExternalContactByLastStatesQueryV1 {
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Contact way states; contacts whose last state is one of them (at most CHAT_CONTACT_LOOKUP_MAX_IDS, default 200).', type: [String], example: ['spring-fair', 'web'] })
  @IsArray() @ArrayMinSize(1) @IsString({ each: true }) @Matches(STATE, { each: true, message: 'each state must be 1..30 characters' })
  states: string[];

  @ApiPropertyOptional({ description: 'Only contacts of this staff member (platform userid).', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId?: string;

  @ApiPropertyOptional({ description: 'Last state set at or after (yyyy-MM-dd HH:mm:ss, UTC).', example: CHAT_TIMESTAMP_EXAMPLE, pattern: CHAT_TIMESTAMP_PATTERN.source })
  @IsOptional() @Matches(CHAT_TIMESTAMP_PATTERN, { message: TIMESTAMP_MESSAGE('startTime') })
  startTime?: string;

  @ApiPropertyOptional({ description: 'Last state set at or before (yyyy-MM-dd HH:mm:ss, UTC).', example: CHAT_TIMESTAMP_EXAMPLE, pattern: CHAT_TIMESTAMP_PATTERN.source })
  @IsOptional() @Matches(CHAT_TIMESTAMP_PATTERN, { message: TIMESTAMP_MESSAGE('endTime') })
  endTime?: string;
}

/** Sort fields of the by-last-states list. */
export const LAST_STATES_SORT_FIELDS = { lastStateAt: 'stateAt', createdAt: 'createdAt', addedAt: 'addedAt', name: 'name' } as const;

/** Query (page, size, sort) of `POST {T}/v1/workChat/contact/external/byLastStates`. */
export class ExternalContactByLastStatesPageQuery extends PageBoundsQueryDto {
  @SortParam(LAST_STATES_SORT_FIELDS, ['lastStateAt,desc'])
  sort?: string[];
}

/** Body of `POST {T}/v1/workChat/contact/external/byExternalUserIds` (ExternalContactByExternalUserIdQueryRequestV1). */
export class ExternalContactByExternalUserIdQueryRequestV1 {
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Customers\' platform ids (at most CHAT_CONTACT_LOOKUP_MAX_IDS, default 200). Every contact of each is returned (one per staff member).', type: [String], example: ['wmXXXXXXXXXXXXXXXX'] })
  @IsArray() @ArrayMinSize(1) @IsString({ each: true }) @Matches(PLATFORM_ID, { each: true, message: 'each externalUserIds entry must be 1..64 characters without spaces' })
  externalUserIds: string[];

  @ApiPropertyOptional({ description: 'Only contacts of this staff member (platform userid).', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId?: string;
}

/** Query of `GET {T}/v1/workChat/contact/external/ai/switch`. */
export class ExternalContactAiReplyQueryV1 extends ContactRefV1 {}

/** Body of `POST {T}/v1/workChat/contact/external/ai/switch` (ExternalContactAiSwitchRequestV1). */
export class ExternalContactAiSwitchRequestV1 extends ContactRefV1 {
  @ApiProperty({ description: 'true: the digital staff replies to this customer; false: it stays silent.', example: false })
  @IsBoolean()
  enabled: boolean;
}

/** One change of a batch: move a contact to a contact way state. */
export class BatchChangeStateItemV1 {
  @ApiProperty({ description: 'The staff member (platform userid).', example: 'zhangsan' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('userId') })
  userId: string;

  @ApiProperty({ description: 'The platform\'s id of the customer.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsString() @Matches(PLATFORM_ID, { message: PLATFORM_ID_MESSAGE('externalUserId') })
  externalUserId: string;

  @ApiProperty({ description: 'The new last state: the state of one of the corp\'s contact ways.', maxLength: 30, example: 'vip-followup' })
  @IsString() @Matches(STATE, { message: 'state must be 1..30 characters' })
  state: string;
}

/** Body of `POST {T}/v1/workChat/contact/batchChangeState` (BatchChangeStateRequestV1). */
export class BatchChangeStateRequestV1 {
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'The changes, applied in order (at most CHAT_CONTACT_BATCH_MAX_ITEMS, default 500). Items that fail do not stop the others.', type: [BatchChangeStateItemV1] })
  @IsArray() @ArrayMinSize(1) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => BatchChangeStateItemV1)
  items: BatchChangeStateItemV1[];
}

/** The outcome of one item. */
export class BatchChangeStateItemResultV1 {
  @ApiProperty({ description: 'Position of the item in the request, from 0.', example: 0 }) index: number;
  @ApiProperty({ description: 'The staff member of the item.', example: 'zhangsan' }) userId: string;
  @ApiProperty({ description: 'The customer of the item.', example: 'wmXXXXXXXXXXXXXXXX' }) externalUserId: string;
  @ApiProperty({ description: 'The state asked for.', example: 'vip-followup' }) state: string;
  @ApiProperty({ description: 'Whether the contact is now in the state.' }) success: boolean;
  @ApiProperty({ description: 'Whether this request changed it (false when it already was in the state, or on failure).' }) changed: boolean;
  @ApiPropertyOptional({ description: 'The contact\'s id, when found.', format: 'uuid' }) chatContactId?: string;
  @ApiPropertyOptional({ description: 'The state before, when found.', type: String, nullable: true }) previousState?: string | null;
  @ApiPropertyOptional({ description: 'Why the item failed.', example: 'Staff member lisi has no customer wm-2 in corp "Acme".' }) reason?: string;
}

/** Response of batchChangeState (BatchChangeStateResponseV1): one result per item, in request order. */
export class BatchChangeStateResponseV1 {
  @ApiProperty({ description: 'Number of items.', example: 2 }) total: number;
  @ApiProperty({ description: 'Items now in their state.', example: 1 }) succeeded: number;
  @ApiProperty({ description: 'Items that failed.', example: 1 }) failed: number;
  @ApiProperty({ description: 'Per-item outcomes.', type: [BatchChangeStateItemResultV1] }) results: BatchChangeStateItemResultV1[];
}

/** Query of `PUT /api/v1/workChat/tag/{workCorpId}/{id}`. */
export class RenameTagQuery {
  @ApiProperty({ description: 'New name of the tag group or tag (1..30 characters).', maxLength: 30, example: 'Gold customers' })
  @IsString() @Matches(/^\S(.{0,28}\S)?$/, { message: 'name must be 1..30 characters and not start or end with spaces' })
  name: string;
}

function iso(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}
