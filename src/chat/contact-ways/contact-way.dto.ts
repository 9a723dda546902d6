import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { IsChatTimestamp } from '../common/chat-timestamp';
import { MAX_CONTACT_WAY_USERS, WAY_STATE_PATTERN, WORK_CHAT_USER_ID_PATTERN } from './contact-way.rules';
import type { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import type { ContactWayEntity } from './contact-way.entity';
import { int64ToNumber, IsPositiveInt64String } from './int64-id';

/**
 * DTOs of contact ways (chat-management-api.md, "Contact way (scene code)"): the rich family
 * (`{T}/v1/chat/contact/way`: ChatContactWayRequestV1, ChatContactWayRichDto, refresh, SceneCodeDefaultDto), the
 * `{T}/v1/workChat/contact/way` family (ContactWayRequestV1, ContactWayDtoV1) and the console
 * (`{C}/workChat/contactWay`: ContactWayRequest, ContactWayDto). All three read and write the same contact ways.
 * Ids of contact ways are int64 JSON numbers.
 */

/** Reads `true` / `false` query text as a boolean (anything else is left for @IsBoolean to refuse). */
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** Hard ceiling of refresh ids (the configured CHAT_CONTACT_WAY_REFRESH_MAX_IDS is at most this; the service checks it). */
const REFRESH_IDS_CEILING = 1000;

const STATE_MESSAGE = 'state must be 1..30 letters, digits, "_" or "-"';
const USER_ID_MESSAGE = 'each workChatUserId must be 1..64 characters without spaces';

// ---------------------------------------------------------------- requests

/**
 * Body of `POST {T}/v1/workChat/contact/way` and `POST {T}/v1/workChat/contact/way/{id}` (ContactWayRequestV1).
 * On update the required fields are given again (`corpName` must name the way's corp; `type` and `scene` cannot
 * change on the platform); optional fields that are omitted keep their value, `null` clears them.
 */
export class ContactWayRequestV1 {
  @ApiProperty({ description: 'Name of the corp (WorkChatCorpRelateDto.corpName) the way belongs to.', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Name of the way as operators see it.', maxLength: 100, example: 'Spring poster, store 12' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiProperty({
    description: `Platform userids of the staff users customers add through the way (1..${MAX_CONTACT_WAY_USERS}, no repeats); each must be a staff user of the corp.`,
    type: [String],
    minItems: 1,
    maxItems: MAX_CONTACT_WAY_USERS,
    example: ['zhangsan'],
  })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_CONTACT_WAY_USERS) @ArrayUnique() @IsString({ each: true }) @Matches(WORK_CHAT_USER_ID_PATTERN, { each: true, message: USER_ID_MESSAGE })
  workChatUserIds: string[];

  @ApiPropertyOptional({
    description: 'Platform type: 1 = one staff user, 2 = several (the platform picks one). Default: 1 for one staff user, else 2. Cannot change after creation.',
    enum: [1, 2],
    example: 1,
  })
  @IsOptional() @IsIn([1, 2])
  type?: 1 | 2;

  @ApiPropertyOptional({ description: 'Platform scene: 1 = mini-program button, 2 = QR code. Default 2. Cannot change after creation.', enum: [1, 2], default: 2, example: 2 })
  @IsOptional() @IsIn([1, 2])
  scene?: 1 | 2;

  @ApiPropertyOptional({
    description: 'Scene parameter the platform echoes when a customer adds through the way: 1..30 letters, digits, "_" or "-", unique within the corp (409). Generated (`cw_` + 16 characters) when omitted on create; omitted on update keeps it.',
    maxLength: 30,
    pattern: WAY_STATE_PATTERN.source,
    example: 'spring_store12',
  })
  @ValidateIf((body: ContactWayRequestV1) => body.state !== undefined) @IsString() @Matches(WAY_STATE_PATTERN, { message: STATE_MESSAGE })
  state?: string;

  @ApiPropertyOptional({ description: 'Note kept on the platform (up to 30 characters); null clears it.', type: String, nullable: true, maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  remark?: string | null;

  @ApiPropertyOptional({ description: 'Customers add without the staff user confirming. Default true.', default: true })
  @IsOptional() @IsBoolean()
  skipVerify?: boolean;

  @ApiPropertyOptional({ description: 'Digital staff (id) answering customers who come through the way; null clears it.', type: String, format: 'uuid', nullable: true })
  @IsOptional() @IsUUID()
  digitalStaffId?: string | null;

  @ApiPropertyOptional({ description: 'Channel the way is published on (campaign, store, poster …); null clears it.', type: String, nullable: true, maxLength: 100, example: 'Store posters' })
  @IsOptional() @IsString() @MaxLength(100)
  channelName?: string | null;
}

/**
 * Body of `POST {T}/v1/chat/contact/way` and `POST {T}/v1/chat/contact/way/{id}` (ChatContactWayRequestV1): the
 * fields of ContactWayRequestV1 plus the tenant's relevance code and the hidden flag (update: `hidden: false`
 * shows a hidden way again).
 */
export class ChatContactWayRequestV1 extends ContactWayRequestV1 {
  @ApiPropertyOptional({ description: 'The tenant\'s own business code the way relates to (a store, a form …), filterable as `relevanceCode`; null clears it.', type: String, nullable: true, maxLength: 64, example: 'STORE-0012' })
  @IsOptional() @IsString() @MaxLength(64)
  relevanceCode?: string | null;

  @ApiPropertyOptional({ description: 'Hide the way from lists (true) or show it again (false). A hidden way cannot be the default.' })
  @IsOptional() @IsBoolean()
  hidden?: boolean;
}

/** Body of `POST {C}/workChat/contactWay` (ContactWayRequest): a single-staff contact way of one staff user. */
export class ContactWayRequest {
  @ApiProperty({ description: 'Name of the corp the way belongs to.', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Platform userid of the staff user customers add (a staff user of the corp).', maxLength: 64, example: 'zhangsan' })
  @IsString() @Matches(WORK_CHAT_USER_ID_PATTERN, { message: 'workChatUserId must be 1..64 characters without spaces' })
  workChatUserId: string;

  @ApiProperty({ description: 'Name of the way as operators see it.', maxLength: 100, example: 'Zhang San business card' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ description: 'Platform scene: 1 = mini-program button, 2 = QR code. Default 2.', enum: [1, 2], default: 2 })
  @IsOptional() @IsIn([1, 2])
  scene?: 1 | 2;

  @ApiPropertyOptional({ description: 'Scene parameter (1..30 letters, digits, "_" or "-"), unique within the corp; generated when omitted.', maxLength: 30, pattern: WAY_STATE_PATTERN.source })
  @ValidateIf((body: ContactWayRequest) => body.state !== undefined) @IsString() @Matches(WAY_STATE_PATTERN, { message: STATE_MESSAGE })
  state?: string;

  @ApiPropertyOptional({ description: 'Note kept on the platform (up to 30 characters).', maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  remark?: string;

  @ApiPropertyOptional({ description: 'Customers add without the staff user confirming. Default true.', default: true })
  @IsOptional() @IsBoolean()
  skipVerify?: boolean;

  @ApiPropertyOptional({ description: 'Digital staff (id) answering customers who come through the way.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'Channel the way is published on.', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  channelName?: string;
}

/** Body of `POST {T}/v1/chat/contact/way/refresh` (ChatContactWayRefreshRequestV1). */
export class ChatContactWayRefreshRequestV1 {
  @ApiProperty({ description: 'Ids (int64) of the contact ways whose QR codes to re-read from the platform, no repeats; at least 1, at most CHAT_CONTACT_WAY_REFRESH_MAX_IDS (default 100; more → 400).', type: 'integer', isArray: true, format: 'int64', minItems: 1, example: [1, 2] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(REFRESH_IDS_CEILING) @ArrayUnique() @IsInt({ each: true }) @Min(1, { each: true })
  ids: number[];
}

// ---------------------------------------------------------------- list queries

/** Sort fields of the contact way lists (`sort=field,asc|desc`). */
export const CONTACT_WAY_SORT_FIELDS = { id: 'id', createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {T}/v1/chat/contact/way` (pageChatContactWayV1). */
export class ChatContactWayPageQuery extends PageBoundsQueryDto {
  @SortParam(CONTACT_WAY_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only ways of the corp with this name (none match an unknown name). Sort fields: id, createdAt, updatedAt, name (default createdAt,desc).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  corpName?: string;

  @ApiPropertyOptional({ description: 'Only ways listing a staff user with this mobile number (exact).', maxLength: 32, example: '13800000000' })
  @IsOptional() @IsString() @MaxLength(32)
  mobile?: string;

  @ApiPropertyOptional({ description: 'Only the way with this id (int64).', type: 'integer', format: 'int64', example: '1' })
  @IsOptional() @IsPositiveInt64String()
  id?: string;

  @ApiPropertyOptional({ description: 'Only ways whose name contains this text (case-insensitive, wildcards taken literally).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only ways with this relevance code (exact).', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  relevanceCode?: string;

  @ApiPropertyOptional({ description: 'Only the way with this state (exact).', maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  state?: string;

  @ApiPropertyOptional({ description: 'Also list hidden ways. Default false.', default: false })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  includeHidden?: boolean;
}

/** Query of `GET {T}/v1/workChat/contact/way` (pageWorkChatContactWayV1). */
export class WorkChatContactWayPageQuery extends PageBoundsQueryDto {
  @SortParam(CONTACT_WAY_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiProperty({ description: 'Name of the corp whose ways to list (required; 404 when the tenant has no such corp). Sort fields: id, createdAt, updatedAt, name (default createdAt,desc).', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiPropertyOptional({ description: 'Only ways listing a staff user with this mobile number (exact).', maxLength: 32 })
  @IsOptional() @IsString() @MaxLength(32)
  mobile?: string;

  @ApiPropertyOptional({ description: 'Only the way with this id (int64).', type: 'integer', format: 'int64' })
  @IsOptional() @IsPositiveInt64String()
  id?: string;

  @ApiPropertyOptional({ description: 'Only ways of this channel (exact).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  channelName?: string;

  @ApiPropertyOptional({ description: 'Only ways created at or after this instant, `yyyy-MM-dd HH:mm:ss` in UTC.', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', example: '2025-06-01 00:00:00' })
  @IsOptional() @IsChatTimestamp()
  startCreateTime?: string;

  @ApiPropertyOptional({ description: 'Only ways created at or before this instant, `yyyy-MM-dd HH:mm:ss` in UTC; not before startCreateTime.', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', example: '2025-06-30 23:59:59' })
  @IsOptional() @IsChatTimestamp()
  endCreateTime?: string;

  @ApiPropertyOptional({ description: 'Also list hidden ways. Default false.', default: false })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  includeHidden?: boolean;
}

/** Query of `GET {C}/workChat/contactWay`. */
export class ConsoleContactWayPageQuery extends PageBoundsQueryDto {
  @SortParam(CONTACT_WAY_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only ways of the corp with this name. Sort fields: id, createdAt, updatedAt, name (default createdAt,desc).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  corpName?: string;

  @ApiPropertyOptional({ description: 'Only ways listing a staff user whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  userName?: string;

  @ApiPropertyOptional({ description: 'Only ways listing the staff user with this platform userid.', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  workChatUserId?: string;

  @ApiPropertyOptional({ description: 'Also list hidden ways. Default false.', default: false })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  includeHidden?: boolean;
}

// ---------------------------------------------------------------- responses

/** A staff user listed on a contact way, as the corp knows it (null fields: no such staff user any more). */
export class ContactWayStaffUserDto {
  @ApiProperty({ description: 'Platform userid.', example: 'zhangsan' }) workChatUserId: string;
  @ApiProperty({ description: 'Id of the staff user (WorkChatUserRelateDto.id), or null when the corp no longer has it.', type: String, format: 'uuid', nullable: true }) staffUserId: string | null;
  @ApiProperty({ description: 'Name of the staff user, or null.', type: String, nullable: true, example: 'Zhang San' }) name: string | null;
  @ApiProperty({ description: 'Mobile number of the staff user, or null.', type: String, nullable: true }) mobile: string | null;
}

/** A contact way with its corp, staff users and digital staff resolved (ChatContactWayRichDto). */
export class ChatContactWayRichDto {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Id of the corp.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Name of the corp, or null when it was unlinked.', type: String, nullable: true, example: 'Acme Retail' }) corpName: string | null;
  @ApiProperty({ description: 'Name of the way.', example: 'Spring poster, store 12' }) name: string;
  @ApiProperty({ description: 'Platform type: 1 = one staff user, 2 = several.', enum: [1, 2] }) type: number;
  @ApiProperty({ description: 'Platform scene: 1 = mini-program button, 2 = QR code.', enum: [1, 2] }) scene: number;
  @ApiProperty({ description: 'Scene parameter echoed when a customer adds through the way.', type: String, nullable: true, example: 'spring_store12' }) state: string | null;
  @ApiProperty({ description: 'The platform\'s config id.', example: '9ad7e0b5c2f14a0c8c1d2e3f4a5b6c7d' }) configId: string;
  @ApiProperty({ description: 'URL of the QR code image (the platform\'s), or null for a mini-program button.', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'Note kept on the platform.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'Customers add without the staff user confirming.' }) skipVerify: boolean;
  @ApiProperty({ description: 'Platform userids of the staff users.', type: [String], example: ['zhangsan'] }) workChatUserIds: string[];
  @ApiProperty({ description: 'The staff users with their names and mobiles.', type: [ContactWayStaffUserDto] }) staffUsers: ContactWayStaffUserDto[];
  @ApiProperty({ description: 'Digital staff answering customers of the way, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Name of that digital staff, or null.', type: String, nullable: true }) digitalStaffName: string | null;
  @ApiProperty({ description: 'Channel the way is published on.', type: String, nullable: true }) channelName: string | null;
  @ApiProperty({ description: 'The tenant\'s relevance code.', type: String, nullable: true }) relevanceCode: string | null;
  @ApiProperty({ description: 'Whether the way is the default of its digital staff (or of its single staff user).' }) isDefault: boolean;
  @ApiProperty({ description: 'Whether the way is hidden from lists.' }) hidden: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** A contact way of the `{T}/v1/workChat/contact/way` family (ContactWayDtoV1). */
export class ContactWayDtoV1 {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'Id of the corp.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Name of the corp, or null when it was unlinked.', type: String, nullable: true }) corpName: string | null;
  @ApiProperty({ description: 'Name of the way.' }) name: string;
  @ApiProperty({ description: 'Platform type: 1 = one staff user, 2 = several.', enum: [1, 2] }) type: number;
  @ApiProperty({ description: 'Platform scene: 1 = mini-program button, 2 = QR code.', enum: [1, 2] }) scene: number;
  @ApiProperty({ description: 'Scene parameter.', type: String, nullable: true }) state: string | null;
  @ApiProperty({ description: 'The platform\'s config id.' }) configId: string;
  @ApiProperty({ description: 'URL of the QR code image, or null.', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'Note kept on the platform.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'Customers add without the staff user confirming.' }) skipVerify: boolean;
  @ApiProperty({ description: 'Platform userids of the staff users.', type: [String] }) workChatUserIds: string[];
  @ApiProperty({ description: 'Digital staff of the way, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Channel the way is published on.', type: String, nullable: true }) channelName: string | null;
  @ApiProperty({ description: 'Whether the way is a default scene code.' }) isDefault: boolean;
  @ApiProperty({ description: 'Whether the way is hidden from lists.' }) hidden: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** A contact way as the console shows it, staff-user first (ContactWayDto). */
export class ContactWayDto {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'Id of the corp.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Name of the corp, or null when it was unlinked.', type: String, nullable: true }) corpName: string | null;
  @ApiProperty({ description: 'Platform userid of the (first) staff user of the way.', example: 'zhangsan' }) workChatUserId: string;
  @ApiProperty({ description: 'Name of that staff user, or null.', type: String, nullable: true, example: 'Zhang San' }) userName: string | null;
  @ApiProperty({ description: 'Platform userids of all staff users of the way.', type: [String] }) workChatUserIds: string[];
  @ApiProperty({ description: 'Name of the way.' }) name: string;
  @ApiProperty({ description: 'Platform type: 1 = one staff user, 2 = several.', enum: [1, 2] }) type: number;
  @ApiProperty({ description: 'Platform scene: 1 = mini-program button, 2 = QR code.', enum: [1, 2] }) scene: number;
  @ApiProperty({ description: 'Scene parameter.', type: String, nullable: true }) state: string | null;
  @ApiProperty({ description: 'The platform\'s config id.' }) configId: string;
  @ApiProperty({ description: 'URL of the QR code image, or null.', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'Note kept on the platform.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'Customers add without the staff user confirming.' }) skipVerify: boolean;
  @ApiProperty({ description: 'Digital staff of the way, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Channel the way is published on.', type: String, nullable: true }) channelName: string | null;
  @ApiProperty({ description: 'Whether the way is a default scene code.' }) isDefault: boolean;
  @ApiProperty({ description: 'Whether the way is hidden from lists.' }) hidden: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** One contact way whose default flag setDefault changed or confirmed (SceneCodeDefaultDto). */
export class SceneCodeDefaultDto {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'Name of the way.' }) name: string;
  @ApiProperty({ description: 'Id of the corp.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Digital staff of the way (its default scope when set), or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Platform userids of the staff users (the single one is the default scope when there is no digital staff).', type: [String] }) workChatUserIds: string[];
  @ApiProperty({ description: 'Scene parameter.', type: String, nullable: true }) state: string | null;
  @ApiProperty({ description: 'URL of the QR code image, or null.', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'The way\'s default flag after the operation: true for the new default, false for the previous one(s).' }) isDefault: boolean;
}

/** What refresh did for one contact way (ChatContactWayRefreshDto). */
export class ChatContactWayRefreshDto {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'The platform\'s config id.' }) configId: string;
  @ApiProperty({ description: 'The QR code URL now stored (the platform\'s when refreshed, else the previous one).', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'The QR code URL stored before.', type: String, nullable: true }) previousQrCode: string | null;
  @ApiProperty({ description: 'Whether the platform answered for this way.' }) refreshed: boolean;
  @ApiProperty({ description: 'Whether the QR code URL changed.' }) changed: boolean;
  @ApiProperty({ description: 'Why the platform could not be read for this way, or null.', type: String, nullable: true }) error: string | null;
  @ApiProperty({ description: 'The platform\'s errcode when it refused, or null.', type: Number, nullable: true }) platformErrorCode: number | null;
}

// ---------------------------------------------------------------- mapping

/** A contact way with what its DTOs show besides its own columns (looked up per page by the service). */
export interface ContactWayView {
  row: ContactWayEntity;
  /** Name of the way's corp, or undefined when the corp was unlinked. */
  corpName?: string;
  /** Staff users of the way's corp by platform userid (only those listed on the way are needed). */
  staffUsers: ReadonlyMap<string, Pick<WorkChatUserEntity, 'id' | 'name' | 'mobile'>>;
  /** Name of the way's digital staff, when it has one that still exists. */
  digitalStaffName?: string;
}

/** Maps a way to ChatContactWayRichDto (corp, staff users and digital staff resolved). */
export function toChatContactWayRichDto(view: ContactWayView): ChatContactWayRichDto {
  const { row } = view;
  return {
    id: int64ToNumber(row.id),
    tenantId: row.tenantId,
    corpId: row.corpId,
    corpName: view.corpName ?? null,
    name: row.name,
    type: row.type,
    scene: row.scene,
    state: row.state,
    configId: row.configId,
    qrCode: row.qrCode,
    remark: row.remark,
    skipVerify: row.skipVerify,
    workChatUserIds: row.workChatUserIds,
    staffUsers: row.workChatUserIds.map((workChatUserId) => {
      const staff = view.staffUsers.get(workChatUserId);
      return { workChatUserId, staffUserId: staff?.id ?? null, name: staff?.name ?? null, mobile: staff?.mobile ?? null };
    }),
    digitalStaffId: row.digitalStaffId,
    digitalStaffName: view.digitalStaffName ?? null,
    channelName: row.channelName,
    relevanceCode: row.relevanceCode,
    isDefault: row.isDefault,
    hidden: row.hidden,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Maps a way to ContactWayDtoV1. */
export function toContactWayDtoV1(view: ContactWayView): ContactWayDtoV1 {
  const { row } = view;
  return {
    id: int64ToNumber(row.id),
    corpId: row.corpId,
    corpName: view.corpName ?? null,
    name: row.name,
    type: row.type,
    scene: row.scene,
    state: row.state,
    configId: row.configId,
    qrCode: row.qrCode,
    remark: row.remark,
    skipVerify: row.skipVerify,
    workChatUserIds: row.workChatUserIds,
    digitalStaffId: row.digitalStaffId,
    channelName: row.channelName,
    isDefault: row.isDefault,
    hidden: row.hidden,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Maps a way to the console's ContactWayDto (its first staff user up front). */
export function toContactWayDto(view: ContactWayView): ContactWayDto {
  const { row } = view;
  const first = row.workChatUserIds[0];
  return {
    id: int64ToNumber(row.id),
    corpId: row.corpId,
    corpName: view.corpName ?? null,
    workChatUserId: first,
    userName: view.staffUsers.get(first)?.name ?? null,
    workChatUserIds: row.workChatUserIds,
    name: row.name,
    type: row.type,
    scene: row.scene,
    state: row.state,
    configId: row.configId,
    qrCode: row.qrCode,
    remark: row.remark,
    skipVerify: row.skipVerify,
    digitalStaffId: row.digitalStaffId,
    channelName: row.channelName,
    isDefault: row.isDefault,
    hidden: row.hidden,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Maps a way whose default flag setDefault touched to SceneCodeDefaultDto. */
export function toSceneCodeDefaultDto(row: ContactWayEntity): SceneCodeDefaultDto {
  return {
    id: int64ToNumber(row.id),
    name: row.name,
    corpId: row.corpId,
    digitalStaffId: row.digitalStaffId,
    workChatUserIds: row.workChatUserIds,
    state: row.state,
    qrCode: row.qrCode,
    isDefault: row.isDefault,
  };
}
