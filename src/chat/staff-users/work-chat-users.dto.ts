import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsEmail, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { toBoolean, WORK_CHAT_USER_ID_PATTERN } from '../digital-staff/digital-staff.dto';
import { WorkChatUserEntity } from './work-chat-user.entity';

const WORK_CHAT_USER_ID_MESSAGE = 'must be 1..64 letters, digits, "_", "-", "." or "@"';

/** Body of `POST {C}/workChat/user` (chat-management-api.md: CreateWorkChatUserRelateRequest). */
export class CreateWorkChatUserRelateRequest {
  @ApiProperty({ description: 'The platform corp id of the tenant\'s corp the staff member belongs to (WorkChatCorpRelateDto.workChatCorpId).', maxLength: 64, example: 'ww3f9c2a7d1e0b4c5a' })
  @IsString() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'workChatCorpId must be 1..64 letters, digits, "_" or "-"' })
  workChatCorpId: string;

  @ApiProperty({ description: 'The staff member\'s platform userid; unique within the corp.', maxLength: 64, example: 'zhangsan' })
  @IsString() @Matches(WORK_CHAT_USER_ID_PATTERN, { message: `workChatUserId ${WORK_CHAT_USER_ID_MESSAGE}` })
  workChatUserId: string;

  @ApiProperty({ description: 'Display name.', maxLength: 100, example: 'Zhang San' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({ description: 'The tenant\'s own id of the person (console account, employee number); "" clears it on update.', maxLength: 64, example: 'E-10023' })
  @IsOptional() @IsString() @MaxLength(64) @Matches(/^(\S(.*\S)?)?$/, { message: 'userId must not start or end with spaces' })
  userId?: string;

  @ApiPropertyOptional({ description: 'Mobile number: digits with an optional leading "+", 3..20 digits; "" clears it on update.', maxLength: 21, example: '+8613800138000' })
  @IsOptional() @IsString() @Matches(/^(\+?[0-9]{3,20})?$/, { message: 'mobile must be 3..20 digits with an optional leading "+"' })
  mobile?: string;

  @ApiPropertyOptional({ description: 'Email address; "" clears it on update.', maxLength: 254, example: 'zhangsan@acme.example' })
  @IsOptional() @IsString() @MaxLength(254) @ValidateIf((o: { email?: string }) => o.email !== '') @IsEmail({}, { message: 'email must be an email address' })
  email?: string;

  @ApiPropertyOptional({ description: 'Whether the staff member is online (taking chats).', default: false })
  @IsOptional() @IsBoolean()
  online?: boolean;

  @ApiPropertyOptional({ description: 'Digital staff to bind the staff user to (ChatStaffDto.id); null or omitted for none. On update, null unbinds.', format: 'uuid', type: String, nullable: true })
  @IsOptional() @IsUUID()
  digitalStaffId?: string | null;
}

/** Body of `PUT {C}/workChat/user/{id}`: the fields to change; omitted fields keep their value. The corp cannot change. */
export class UpdateWorkChatUserRelateRequest extends PartialType(OmitType(CreateWorkChatUserRelateRequest, ['workChatCorpId'] as const)) {}

/** `a,b` and repeated `?x=a&x=b` query values to one trimmed, de-duplicated list without empty entries. */
const toIdList = ({ value }: { value: unknown }) => {
  const list = (Array.isArray(value) ? value : [value]).flatMap((entry) => (typeof entry === 'string' ? entry.split(',') : [entry]));
  return [...new Set(list.map((entry) => (typeof entry === 'string' ? entry.trim() : entry)).filter((entry) => entry !== ''))];
};

/** Sort fields of the staff-user list (`sort=field,asc|desc`). */
export const WORK_CHAT_USER_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name', workChatUserId: 'workChatUserId' } as const;

/** Query of `GET {C}/workChat/user`. */
export class WorkChatUserPageQuery extends PageBoundsQueryDto {
  @SortParam(WORK_CHAT_USER_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only staff users of the corp with this platform corp id.', maxLength: 64, example: 'ww3f9c2a7d1e0b4c5a' })
  @IsOptional() @IsString() @MaxLength(64)
  workChatCorpId?: string;

  @ApiPropertyOptional({ description: 'Only staff users whose name contains this text (case-insensitive).', maxLength: 100, example: 'Zhang' })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only staff users with exactly this mobile number.', maxLength: 21, example: '+8613800138000' })
  @IsOptional() @IsString() @MaxLength(21)
  mobile?: string;

  @ApiPropertyOptional({ description: 'Only staff users with exactly this tenant user id.', maxLength: 64, example: 'E-10023' })
  @IsOptional() @IsString() @MaxLength(64)
  userId?: string;

  @ApiPropertyOptional({ description: 'Only online (true) or offline (false) staff users.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  online?: boolean;

  @ApiPropertyOptional({ description: 'Only staff users whose name, mobile, userId or workChatUserId contains this text (case-insensitive).', maxLength: 100, example: 'zhang' })
  @IsOptional() @IsString() @MaxLength(100)
  keyword?: string;

  @ApiPropertyOptional({
    description: 'Only staff users with one of these platform userids: repeat the parameter (`workChatUserId=a&workChatUserId=b`) or give a comma list (`workChatUserId=a,b`); at most CHAT_STAFF_MAX_IDS (default 200).',
    type: [String],
    example: ['zhangsan', 'lisi'],
  })
  @IsOptional() @Transform(toIdList) @IsArray() @Matches(WORK_CHAT_USER_ID_PATTERN, { each: true, message: `each workChatUserId ${WORK_CHAT_USER_ID_MESSAGE}` })
  workChatUserId?: string[];

  @ApiPropertyOptional({ description: 'Only staff users bound to this digital staff.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;
}

/** Body of `POST {C}/workChat/user/guide/bindDigitalStaff` (chat-management-api.md: BindDigitalStaffRequest). */
export class BindDigitalStaffRequest {
  @ApiProperty({ description: 'Id of the digital staff to bind (ChatStaffDto.id).', format: 'uuid', example: '6a1f1c9e-2b7d-4e0a-9c55-0d7f3b8e1a24' })
  @IsUUID()
  digitalStaffId: string;

  @ApiProperty({
    description: 'Ids of the staff users to bind (WorkChatUserRelateDto.id), at least one, at most CHAT_STAFF_MAX_IDS (default 200); duplicates count once. A staff user bound to another digital staff is moved to this one.',
    type: [String],
    format: 'uuid',
    example: ['0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42'],
  })
  @IsArray() @ArrayMinSize(1) @IsUUID(undefined, { each: true })
  staffUserIds: string[];
}

/** A staff user as returned (chat-management-api.md: WorkChatUserRelateDto). */
export class WorkChatUserRelateDto {
  @ApiProperty({ description: 'Id of the staff user (UUID).', format: 'uuid', example: '0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Id of the corp link (WorkChatCorpRelateDto.id).', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail Ltd' }) corpName: string;
  @ApiProperty({ description: 'The platform corp id.', example: 'ww3f9c2a7d1e0b4c5a' }) workChatCorpId: string;
  @ApiProperty({ description: 'The staff member\'s platform userid.', example: 'zhangsan' }) workChatUserId: string;
  @ApiProperty({ description: 'The tenant\'s own id of the person, or null.', type: String, nullable: true, example: 'E-10023' }) userId: string | null;
  @ApiProperty({ description: 'Display name.', example: 'Zhang San' }) name: string;
  @ApiProperty({ description: 'Mobile number, or null.', type: String, nullable: true, example: '+8613800138000' }) mobile: string | null;
  @ApiProperty({ description: 'Email address, or null.', type: String, nullable: true }) email: string | null;
  @ApiProperty({ description: 'Whether the staff member is online.' }) online: boolean;
  @ApiProperty({ description: 'Id of the bound digital staff, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Name of the bound digital staff, or null.', type: String, nullable: true, example: 'Ava (after-sales)' }) digitalStaffName: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** The corp and digital staff names a staff-user response shows next to the ids. */
export interface WorkChatUserLinks {
  corps: Map<string, { corpName: string; workChatCorpId: string }>;
  digitalStaff: Map<string, string>;
}

/**
 * Maps a row to its response.
 * @param links corp (by corp id) and digital staff names (by id) of the rows being returned
 */
export function toWorkChatUserRelateDto(row: WorkChatUserEntity, links: WorkChatUserLinks): WorkChatUserRelateDto {
  const corp = links.corps.get(row.corpId);
  return {
    id: row.id,
    tenantId: row.tenantId,
    corpId: row.corpId,
    corpName: corp?.corpName ?? '',
    workChatCorpId: corp?.workChatCorpId ?? '',
    workChatUserId: row.workChatUserId,
    userId: row.userId,
    name: row.name,
    mobile: row.mobile,
    email: row.email,
    online: row.online,
    digitalStaffId: row.digitalStaffId,
    digitalStaffName: row.digitalStaffId ? (links.digitalStaff.get(row.digitalStaffId) ?? null) : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Result of the guide's bindDigitalStaff (chat-management-api.md: BindDigitalStaffDto). */
export class BindDigitalStaffDto {
  @ApiProperty({ description: 'Id of the digital staff.', format: 'uuid' }) digitalStaffId: string;
  @ApiProperty({ description: 'Name of the digital staff.', example: 'Ava (after-sales)' }) digitalStaffName: string;
  @ApiProperty({ description: 'The staff users named in the request, now bound to it.', type: [WorkChatUserRelateDto] }) staffUsers: WorkChatUserRelateDto[];
  @ApiProperty({ description: 'How many were bound to no digital staff before.', example: 1 }) newlyBound: number;
  @ApiProperty({ description: 'How many were bound to another digital staff before (moved).', example: 0 }) moved: number;
  @ApiProperty({ description: 'How many were already bound to it.', example: 0 }) unchanged: number;
}
