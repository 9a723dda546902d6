import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, Matches } from 'class-validator';

/** Names the staff member whose data a guide sync pulls (SyncGroupRequest, SyncCustomerRequest). */
class GuideSyncTarget {
  @ApiProperty({ description: 'Id of the corp link (WorkChatCorpRelateDto.id).', format: 'uuid' })
  @IsUUID()
  corpId: string;

  @ApiProperty({ description: 'The staff user (platform userid); must be a staff user of the corp in Atrium (POST {C}/workChat/user).', example: 'zhangsan' })
  @IsString() @Matches(/^\S{1,64}$/, { message: 'workChatUserId must be 1..64 characters without spaces' })
  workChatUserId: string;
}

/** Body of `POST {C}/workChat/user/guide/syncGroup`: pull the customer group chats the staff user owns. */
export class SyncGroupRequest extends GuideSyncTarget {}

/** Body of `POST {C}/workChat/user/guide/syncCustomer`: pull the staff user's customers (external contacts). */
export class SyncCustomerRequest extends GuideSyncTarget {}

/** What a customer sync did. Counts of contacts (one per staff member and customer). */
export class SyncCustomerResultDto {
  @ApiProperty({ description: 'Customers the platform listed for the staff user (up to CHAT_SYNC_MAX_ITEMS).', example: 12 }) fetched: number;
  @ApiProperty({ description: 'Contacts stored for the first time.', example: 2 }) created: number;
  @ApiProperty({ description: 'Contacts whose platform fields changed.', example: 1 }) updated: number;
  @ApiProperty({ description: 'Contacts already up to date (a repeated sync reports all here).', example: 9 }) unchanged: number;
  @ApiProperty({ description: 'true when the platform listed more than CHAT_SYNC_MAX_ITEMS and the rest was not pulled.', example: false }) truncated: boolean;
}

/** What a group sync did. */
export class SyncGroupResultDto {
  @ApiProperty({ description: 'Group chats the platform listed for the owner (up to CHAT_SYNC_MAX_ITEMS).', example: 3 }) fetched: number;
  @ApiProperty({ description: 'Group rooms stored for the first time.', example: 1 }) created: number;
  @ApiProperty({ description: 'Group rooms whose name, owner, notice, status or members changed.', example: 1 }) updated: number;
  @ApiProperty({ description: 'Group rooms already up to date (a repeated sync reports all here).', example: 1 }) unchanged: number;
  @ApiProperty({ description: 'Member rows added.', example: 5 }) membersAdded: number;
  @ApiProperty({ description: 'Member rows changed.', example: 0 }) membersUpdated: number;
  @ApiProperty({ description: 'Member rows removed (members who left).', example: 1 }) membersRemoved: number;
  @ApiProperty({ description: 'true when the platform listed more than CHAT_SYNC_MAX_ITEMS and the rest was not pulled.', example: false }) truncated: boolean;
}
