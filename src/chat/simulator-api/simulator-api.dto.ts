import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDateString, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ChatContactsExternalDto } from '../contacts/external-contacts.dto';
import { INBOUND_MESSAGE_TYPES, type InboundMessageEvent, type PlatformGroupChat, type PlatformStaff, type SimulatedMessage } from '../platform';

const PLATFORM_ID = /^\S{1,64}$/;
const ID_MESSAGE = (field: string) => `${field} must be 1..64 characters without spaces`;

// ---------------------------------------------------------------- staff

/** Body of `POST {C}/simulator/corps/{corpId}/staff`: a staff member joins (or changes on) the simulated platform. */
export class InjectSimulatorStaffRequest {
  @ApiProperty({ description: 'The staff member\'s platform userid.', example: 'zhangsan' })
  @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('userId') })
  userId: string;

  @ApiPropertyOptional({ description: 'Name; default the userid.', maxLength: 128, example: 'Zhang San' })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ description: 'Mobile.', example: '13800000000' })
  @IsOptional() @IsString() @Matches(/^\+?[0-9-]{3,32}$/, { message: 'mobile must be a phone number' })
  mobile?: string;

  @ApiPropertyOptional({ description: 'Department ids; default [1].', type: [Number], example: [1] })
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsInt({ each: true }) @Min(1, { each: true })
  departmentIds?: number[];

  @ApiPropertyOptional({ description: '1 active (default), 2 disabled, 4 not activated, 5 left the corp.', enum: [1, 2, 4, 5] })
  @IsOptional() @IsIn([1, 2, 4, 5])
  status?: 1 | 2 | 4 | 5;
}

/** A staff member on the simulated platform. */
export class SimulatorStaffDto {
  @ApiProperty({ example: 'zhangsan' }) userId: string;
  @ApiProperty({ example: 'Zhang San' }) name: string;
  @ApiPropertyOptional({ example: '13800000000' }) mobile?: string;
  @ApiProperty({ type: [Number], example: [1] }) departmentIds: number[];
  @ApiProperty({ description: '1 active, 2 disabled, 4 not activated, 5 left the corp.', enum: [1, 2, 4, 5] }) status: number;
}

/** Maps the simulator's staff member. */
export function toSimulatorStaffDto(staff: PlatformStaff): SimulatorStaffDto {
  return { userId: staff.userId, name: staff.name, ...(staff.mobile ? { mobile: staff.mobile } : {}), departmentIds: staff.departmentIds, status: staff.status };
}

// ---------------------------------------------------------------- customers

/**
 * Body of `POST {C}/simulator/corps/{corpId}/customers`: a customer adds a staff member on the simulated platform,
 * typically by scanning a contact way. Name the way by Atrium's id (`contactWayId`) or the platform's
 * (`contactWayConfigId`), or give `userId` (and optionally `state`) directly.
 */
export class InjectSimulatorCustomerRequest {
  @ApiProperty({ description: 'The customer\'s name.', maxLength: 128, example: 'Lily' })
  @IsString() @IsNotEmpty() @MaxLength(128)
  name: string;

  @ApiPropertyOptional({ description: 'Id of the contact way (ContactWayDto id, int64) the customer scans: gives the staff member (its first, unless userId names another of its staff) and the state.', type: 'integer', format: 'int64', example: 1 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  contactWayId?: number;

  @ApiPropertyOptional({ description: 'The platform\'s config id of the contact way the customer scans (instead of contactWayId).', example: '9f2c…' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('contactWayConfigId') })
  contactWayConfigId?: string;

  @ApiPropertyOptional({ description: 'The staff member added (platform userid); required without a contact way.', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('userId') })
  userId?: string;

  @ApiPropertyOptional({ description: 'The relation\'s state when no contact way is given (up to 30 characters).', maxLength: 30, example: 'spring-fair' })
  @IsOptional() @IsString() @MaxLength(30)
  state?: string;

  @ApiPropertyOptional({ description: 'An existing simulated customer adding another staff member; omit to create a new customer.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('externalUserId') })
  externalUserId?: string;

  @ApiPropertyOptional({ description: '1 personal chat-app user (default), 2 user of another enterprise.', enum: [1, 2] })
  @IsOptional() @IsIn([1, 2])
  type?: 1 | 2;

  @ApiPropertyOptional({ description: '0 unknown (default), 1 male, 2 female.', enum: [0, 1, 2] })
  @IsOptional() @IsIn([0, 1, 2])
  gender?: 0 | 1 | 2;

  @ApiPropertyOptional({ description: 'Avatar URL.', example: 'https://example.com/a.png' })
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  avatarUrl?: string;

  @ApiPropertyOptional({ description: 'Union id on the chat app.', example: 'uNiOn123' })
  @IsOptional() @IsString() @Matches(/^\S{1,64}$/, { message: 'unionId must be 1..64 characters without spaces' })
  unionId?: string;

  @ApiPropertyOptional({ description: 'The customer\'s enterprise (type 2).', maxLength: 128 })
  @IsOptional() @IsString() @MaxLength(128)
  corpName?: string;

  @ApiPropertyOptional({ description: 'When the customer added the staff member (ISO 8601); default now.', format: 'date-time' })
  @IsOptional() @IsDateString({ strict: true })
  addedAt?: string;
}

/** The injected customer and the contact Atrium stored from the `external_contact.added` event. */
export class SimulatorCustomerDto {
  @ApiProperty({ description: 'The customer\'s platform id.', example: 'wmXXXXXXXXXXXXXXXX' }) externalUserId: string;
  @ApiProperty({ description: 'The staff member added.', example: 'zhangsan' }) userId: string;
  @ApiProperty({ description: 'The relation\'s state, or null.', type: String, nullable: true, example: 'spring-fair' }) state: string | null;
  @ApiProperty({ description: 'When the customer added the staff member (ISO 8601).', format: 'date-time' }) addedAt: string;
  @ApiProperty({ description: 'The contact as Atrium stored it (use its id as contactId on the console paths).', type: ChatContactsExternalDto, nullable: true }) contact: ChatContactsExternalDto | null;
}

// ---------------------------------------------------------------- group chats

/** Body of `POST {C}/simulator/corps/{corpId}/group-chats`: a customer group chat appears on the simulated platform. */
export class InjectSimulatorGroupChatRequest {
  @ApiPropertyOptional({ description: 'The platform\'s chat id; generated when omitted.', example: 'wrXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('chatId') })
  chatId?: string;

  @ApiProperty({ description: 'Group name.', maxLength: 128, example: 'Spring fair VIPs' })
  @IsString() @IsNotEmpty() @MaxLength(128)
  name: string;

  @ApiProperty({ description: 'The owner (staff member\'s platform userid).', example: 'zhangsan' })
  @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('ownerUserId') })
  ownerUserId: string;

  @ApiPropertyOptional({ description: 'Other staff members in the group.', type: [String], example: ['lisi'] })
  @IsOptional() @IsArray() @ArrayMaxSize(500) @Matches(PLATFORM_ID, { each: true, message: 'each memberUserIds entry must be 1..64 characters without spaces' })
  memberUserIds?: string[];

  @ApiPropertyOptional({ description: 'Customers in the group (they must exist on the simulated platform).', type: [String], example: ['wmXXXXXXXXXXXXXXXX'] })
  @IsOptional() @IsArray() @ArrayMaxSize(500) @Matches(PLATFORM_ID, { each: true, message: 'each memberExternalUserIds entry must be 1..64 characters without spaces' })
  memberExternalUserIds?: string[];

  @ApiPropertyOptional({ description: 'Group notice.', maxLength: 1000 })
  @IsOptional() @IsString() @MaxLength(1000)
  notice?: string;
}

/** A member of a simulated group chat. */
export class SimulatorGroupMemberDto {
  @ApiProperty({ example: 'wmXXXXXXXXXXXXXXXX' }) userId: string;
  @ApiProperty({ description: '1 staff member, 2 customer.', enum: [1, 2] }) type: number;
  @ApiProperty({ format: 'date-time' }) joinedAt: string;
  @ApiProperty({ description: '1 invited directly, 2 invited by link, 3 scanned a join way.' }) joinScene: number;
  @ApiPropertyOptional() name?: string;
}

/** A group chat on the simulated platform (sync it with guide/syncGroup). */
export class SimulatorGroupChatDto {
  @ApiProperty({ example: 'wrXXXXXXXXXXXXXXXX' }) chatId: string;
  @ApiProperty({ example: 'Spring fair VIPs' }) name: string;
  @ApiProperty({ example: 'zhangsan' }) ownerUserId: string;
  @ApiPropertyOptional() notice?: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: [SimulatorGroupMemberDto] }) members: SimulatorGroupMemberDto[];
}

/** Maps the simulator's group chat. */
export function toSimulatorGroupChatDto(chat: PlatformGroupChat): SimulatorGroupChatDto {
  return {
    chatId: chat.chatId,
    name: chat.name,
    ownerUserId: chat.ownerUserId,
    ...(chat.notice ? { notice: chat.notice } : {}),
    createdAt: chat.createdAt.toISOString(),
    members: chat.members.map((member) => ({ userId: member.userId, type: member.type, joinedAt: member.joinedAt.toISOString(), joinScene: member.joinScene, ...(member.name ? { name: member.name } : {}) })),
  };
}

// ---------------------------------------------------------------- messages

/** Attachment description of an injected inbound message (the bytes stay on the platform). */
export class SimulatorInboundMediaRequest {
  @ApiPropertyOptional({ example: 'photo.jpg' }) @IsOptional() @IsString() @MaxLength(255) fileName?: string;
  @ApiPropertyOptional({ example: 'image/jpeg' }) @IsOptional() @IsString() @MaxLength(127) contentType?: string;
  @ApiPropertyOptional({ description: 'Size in bytes.', example: 20480 }) @IsOptional() @IsInt() @Min(0) sizeBytes?: number;
  @ApiPropertyOptional({ description: 'Where the platform serves it.', example: 'https://example.com/photo.jpg' }) @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) url?: string;
}

/** Attachment of a message on the simulated platform. */
export class SimulatorMediaDto {
  @ApiPropertyOptional({ example: 'photo.jpg' }) fileName?: string;
  @ApiPropertyOptional({ example: 'image/jpeg' }) contentType?: string;
  @ApiPropertyOptional({ description: 'Size in bytes.', example: 20480 }) sizeBytes?: number;
  @ApiPropertyOptional({ description: 'Where the platform serves it (inbound).' }) url?: string;
  @ApiPropertyOptional({ description: 'The platform\'s media id (outbound).' }) mediaId?: string;
  @ApiPropertyOptional({ description: 'SHA-256 of the bytes sent (outbound).' }) sha256?: string;
}

/** Body of `POST {C}/simulator/corps/{corpId}/messages`: a customer writes to a staff member or into a group chat. */
export class InjectSimulatorMessageRequest {
  @ApiProperty({ description: 'The customer writing (platform external user id).', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('externalUserId') })
  externalUserId: string;

  @ApiPropertyOptional({ description: 'The staff member written to; may be omitted when the customer has exactly one.', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('userId') })
  userId?: string;

  @ApiPropertyOptional({ description: 'A group chat the customer writes in (the customer must be a member).', example: 'wrXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('chatId') })
  chatId?: string;

  @ApiPropertyOptional({ description: 'Message type; default text.', enum: INBOUND_MESSAGE_TYPES, default: 'text' })
  @IsOptional() @IsIn(INBOUND_MESSAGE_TYPES)
  msgType?: (typeof INBOUND_MESSAGE_TYPES)[number];

  @ApiPropertyOptional({ description: 'Text (required for text messages).', maxLength: 4000, example: 'Hi, is the spring collection in stock?' })
  @IsOptional() @IsString() @MaxLength(4000)
  content?: string;

  @ApiPropertyOptional({ description: 'Attachment description (non-text messages).', type: SimulatorInboundMediaRequest })
  @IsOptional() @ValidateNested() @Type(() => SimulatorInboundMediaRequest)
  media?: SimulatorInboundMediaRequest;

  @ApiPropertyOptional({ description: 'A platform message id; one already injected makes this a redelivery of that message (published again, stored once).', example: 'msg-0001' })
  @IsOptional() @IsString() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'msgId must be 1..64 letters, digits, "_" or "-"' })
  msgId?: string;

  @ApiPropertyOptional({ description: 'When it was sent (ISO 8601); default now.', format: 'date-time' })
  @IsOptional() @IsDateString({ strict: true })
  sentAt?: string;
}

/** The published `message.received` event. */
export class SimulatorInboundMessageDto {
  @ApiProperty({ example: 'msg-0001' }) msgId: string;
  @ApiProperty({ enum: ['single', 'group'] }) chatType: string;
  @ApiProperty({ description: 'The staff member written to (the owner, in a group chat).', example: 'zhangsan' }) userId: string;
  @ApiProperty({ example: 'wmXXXXXXXXXXXXXXXX' }) externalUserId: string;
  @ApiPropertyOptional({ example: 'wrXXXXXXXXXXXXXXXX' }) chatId?: string;
  @ApiProperty({ enum: INBOUND_MESSAGE_TYPES }) msgType: string;
  @ApiPropertyOptional() content?: string;
  @ApiPropertyOptional({ type: SimulatorMediaDto }) media?: SimulatorMediaDto;
  @ApiProperty({ format: 'date-time' }) occurredAt: string;
}

/** Maps the published event. */
export function toSimulatorInboundMessageDto(event: InboundMessageEvent): SimulatorInboundMessageDto {
  return {
    msgId: event.msgId,
    chatType: event.chatType,
    userId: event.userId,
    externalUserId: event.externalUserId,
    ...(event.chatId ? { chatId: event.chatId } : {}),
    msgType: event.msgType,
    ...(event.content !== undefined ? { content: event.content } : {}),
    ...(event.media ? { media: { ...event.media } } : {}),
    occurredAt: event.occurredAt.toISOString(),
  };
}

/** Query of `GET {C}/simulator/corps/{corpId}/messages`. */
export class ListSimulatorMessagesQuery {
  @ApiPropertyOptional({ description: 'Only messages with this customer.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('externalUserId') })
  externalUserId?: string;

  @ApiPropertyOptional({ description: 'Only messages in this group chat.', example: 'wrXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: ID_MESSAGE('chatId') })
  chatId?: string;

  @ApiPropertyOptional({ description: 'outbound: what the wing sent; inbound: what customers wrote.', enum: ['inbound', 'outbound'] })
  @IsOptional() @IsIn(['inbound', 'outbound'])
  direction?: 'inbound' | 'outbound';

  @ApiPropertyOptional({ description: 'The latest this many messages (1..500).', default: 50, minimum: 1, maximum: 500 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500)
  limit?: number;
}

/** A message on the simulated platform. */
export class SimulatedMessageDto {
  @ApiProperty({ example: 'msg-0001' }) msgId: string;
  @ApiProperty({ enum: ['inbound', 'outbound'] }) direction: string;
  @ApiProperty({ enum: ['single', 'group', 'robot'] }) chatType: string;
  @ApiPropertyOptional({ example: 'zhangsan' }) userId?: string;
  @ApiPropertyOptional({ example: 'wmXXXXXXXXXXXXXXXX' }) externalUserId?: string;
  @ApiPropertyOptional({ example: 'wrXXXXXXXXXXXXXXXX' }) chatId?: string;
  @ApiProperty({ example: 'text' }) msgType: string;
  @ApiPropertyOptional() content?: string;
  @ApiPropertyOptional({ type: SimulatorMediaDto }) media?: SimulatorMediaDto;
  @ApiProperty({ format: 'date-time' }) sentAt: string;
}

/** Maps a simulated message (robot mentions are not shown: this list is per corp). */
export function toSimulatedMessageDto(message: SimulatedMessage): SimulatedMessageDto {
  return {
    msgId: message.msgId,
    direction: message.direction,
    chatType: message.chatType,
    ...(message.userId ? { userId: message.userId } : {}),
    ...(message.externalUserId ? { externalUserId: message.externalUserId } : {}),
    ...(message.chatId ? { chatId: message.chatId } : {}),
    msgType: message.msgType,
    ...(message.content !== undefined ? { content: message.content } : {}),
    ...(message.media ? { media: { ...message.media } } : {}),
    sentAt: message.sentAt.toISOString(),
  };
}
