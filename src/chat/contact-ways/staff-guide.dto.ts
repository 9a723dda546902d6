import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength, Min, ValidateIf } from 'class-validator';
import { ContactWayDto, SceneCodeDefaultDto } from './contact-way.dto';
import { MAX_CONTACT_WAY_USERS, WAY_STATE_PATTERN, WORK_CHAT_USER_ID_PATTERN } from './contact-way.rules';

/**
 * DTOs of the staff-user guide operations on scene codes (chat-management-api.md, Console endpoints:
 * `{C}/workChat/user/guide/setDefaultScene|addStaffScene|addStaffAdvanced`).
 */

const STATE_MESSAGE = 'state must be 1..30 letters, digits, "_" or "-"';

/** Body of `POST {C}/workChat/user/guide/setDefaultScene` (SetDefaultSceneRequest). */
export class SetDefaultSceneRequest {
  @ApiProperty({ description: 'Name of the staff user\'s corp.', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Platform userid of the staff user.', maxLength: 64, example: 'zhangsan' })
  @IsString() @Matches(WORK_CHAT_USER_ID_PATTERN, { message: 'workChatUserId must be 1..64 characters without spaces' })
  workChatUserId: string;

  @ApiProperty({ description: 'Id (int64) of a contact way of the corp listing that staff user; it becomes the default of its scope (its digital staff, else the staff user).', type: 'integer', format: 'int64', example: 1 })
  @IsInt() @Min(1)
  contactWayId: number;
}

/** Body of `POST {C}/workChat/user/guide/addStaffScene` (AddStaffSceneConsoleRequest): a QR code for one staff user. */
export class AddStaffSceneConsoleRequest {
  @ApiProperty({ description: 'Name of the staff user\'s corp.', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Platform userid of the staff user customers add.', maxLength: 64, example: 'zhangsan' })
  @IsString() @Matches(WORK_CHAT_USER_ID_PATTERN, { message: 'workChatUserId must be 1..64 characters without spaces' })
  workChatUserId: string;

  @ApiPropertyOptional({ description: 'Name of the way. Default: "<staff user name> QR code".', maxLength: 100 })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Scene parameter (1..30 letters, digits, "_" or "-"), unique within the corp; generated when omitted.', maxLength: 30, pattern: WAY_STATE_PATTERN.source })
  @ValidateIf((body: AddStaffSceneConsoleRequest) => body.state !== undefined) @IsString() @Matches(WAY_STATE_PATTERN, { message: STATE_MESSAGE })
  state?: string;

  @ApiPropertyOptional({ description: 'Note kept on the platform (up to 30 characters).', maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  remark?: string;

  @ApiPropertyOptional({ description: 'Customers add without the staff user confirming. Default true.', default: true })
  @IsOptional() @IsBoolean()
  skipVerify?: boolean;

  @ApiPropertyOptional({ description: 'Also make the new way the default of its scope (the staff user\'s digital staff, else the staff user). Default false.', default: false })
  @IsOptional() @IsBoolean()
  setDefault?: boolean;
}

/**
 * Body of `POST {C}/workChat/user/guide/addStaffAdvanced` (AddStaffAdvancedConsoleRequest): a contact way with every
 * option — several staff users, scene, digital staff, channel and relevance code.
 */
export class AddStaffAdvancedConsoleRequest {
  @ApiProperty({ description: 'Name of the staff users\' corp.', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: `Platform userids of the staff users (1..${MAX_CONTACT_WAY_USERS}, no repeats).`, type: [String], minItems: 1, maxItems: MAX_CONTACT_WAY_USERS, example: ['zhangsan', 'lisi'] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_CONTACT_WAY_USERS) @ArrayUnique() @IsString({ each: true }) @Matches(WORK_CHAT_USER_ID_PATTERN, { each: true, message: 'each workChatUserId must be 1..64 characters without spaces' })
  workChatUserIds: string[];

  @ApiProperty({ description: 'Name of the way.', maxLength: 100, example: 'Store 12 team' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ description: 'Platform type: 1 = one staff user, 2 = several. Default: 1 for one staff user, else 2.', enum: [1, 2] })
  @IsOptional() @IsIn([1, 2])
  type?: 1 | 2;

  @ApiPropertyOptional({ description: 'Platform scene: 1 = mini-program button, 2 = QR code. Default 2.', enum: [1, 2], default: 2 })
  @IsOptional() @IsIn([1, 2])
  scene?: 1 | 2;

  @ApiPropertyOptional({ description: 'Scene parameter (1..30 letters, digits, "_" or "-"), unique within the corp; generated when omitted.', maxLength: 30, pattern: WAY_STATE_PATTERN.source })
  @ValidateIf((body: AddStaffAdvancedConsoleRequest) => body.state !== undefined) @IsString() @Matches(WAY_STATE_PATTERN, { message: STATE_MESSAGE })
  state?: string;

  @ApiPropertyOptional({ description: 'Note kept on the platform (up to 30 characters).', maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  remark?: string;

  @ApiPropertyOptional({ description: 'Customers add without the staff user confirming. Default true.', default: true })
  @IsOptional() @IsBoolean()
  skipVerify?: boolean;

  @ApiPropertyOptional({ description: 'Digital staff (id) answering customers of the way. Default: the digital staff bound to the single staff user, if any.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'Channel the way is published on.', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  channelName?: string;

  @ApiPropertyOptional({ description: 'The tenant\'s relevance code.', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  relevanceCode?: string;

  @ApiPropertyOptional({ description: 'Also make the new way the default of its scope. Default false.', default: false })
  @IsOptional() @IsBoolean()
  setDefault?: boolean;
}

/** Result envelope of the guide operations (ResponseObject). */
export class ResponseObject {
  @ApiProperty({ description: 'Whether the operation succeeded (errors answer problem+json instead, so always true here).', example: true }) success: boolean;
  @ApiProperty({ description: 'Result code: `CREATED` (way created) or `CREATED_DEFAULT` (created and made the default).', example: 'CREATED' }) code: string;
  @ApiProperty({ description: 'What was done, for people.', example: 'Contact way 12 created for zhangsan.' }) message: string;
  @ApiProperty({ description: 'The contact way created.', type: ContactWayDto }) data: ContactWayDto;
  @ApiProperty({ description: 'Ways whose default flag changed (empty unless setDefault was asked).', type: [SceneCodeDefaultDto] }) defaults: SceneCodeDefaultDto[];
}
