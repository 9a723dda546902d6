import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';

const PLATFORM_ID = /^\S{1,64}$/;

/** Query of `GET {T}/v1/customers/profiles/{name}`: exactly one of customerId, chatContactId. */
export class CustomerProfileQuery {
  @ApiPropertyOptional({ description: 'The customer: the platform\'s external user id (the profile is the customer\'s, shared by all staff members who have them).', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(PLATFORM_ID, { message: 'customerId must be 1..64 characters without spaces' })
  customerId?: string;

  @ApiPropertyOptional({ description: 'The customer, through one of their contacts (contact id).', format: 'uuid' })
  @IsOptional() @IsUUID()
  chatContactId?: string;
}

/** Body of `POST {T}/v1/customers/profiles/{name}` (CustomerProfileUpdateRequest): exactly one of customerId, chatContactId. */
export class CustomerProfileUpdateRequest extends CustomerProfileQuery {
  @ApiProperty({
    description: 'Profile attributes (a JSON object). Merged into the stored profile: keys given are set, keys given as null are removed. Size at most CHAT_CUSTOMER_PROFILE_MAX_BYTES (default 64 KiB) of JSON, else 413.',
    type: 'object',
    additionalProperties: true,
    example: { city: 'Hangzhou', budget: 5000, interests: ['tea', 'ceramics'] },
  })
  @IsObject()
  attributes: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'true: the profile becomes `attributes` instead of merging.', default: false })
  @IsOptional() @IsBoolean()
  replace?: boolean;
}

/** A named profile of a customer with the customer's basic fields (BasicCustomerProfile). */
export class BasicCustomerProfile {
  @ApiProperty({ description: 'Profile name.', example: 'basic' }) profileName: string;
  @ApiProperty({ description: 'The customer (platform external user id).', example: 'wmXXXXXXXXXXXXXXXX' }) customerId: string;
  @ApiProperty({ description: 'Name of the corp the customer belongs to.', example: 'Acme Retail' }) corpName: string;
  @ApiProperty({ description: 'The customer\'s contacts (one per staff member who has them).', type: [String], example: ['0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42'] }) chatContactIds: string[];
  @ApiProperty({ description: 'The customer\'s name on the platform.', example: 'Lily' }) name: string;
  @ApiProperty({ description: '0 unknown, 1 male, 2 female.', enum: [0, 1, 2] }) gender: number;
  @ApiProperty({ description: 'A remarked mobile of the customer, or null.', type: String, nullable: true }) mobile: string | null;
  @ApiProperty({ description: 'Open id, or null.', type: String, nullable: true }) openId: string | null;
  @ApiProperty({ description: 'Union id, or null.', type: String, nullable: true }) unionId: string | null;
  @ApiProperty({ description: 'The profile\'s attributes.', type: 'object', additionalProperties: true, example: { city: 'Hangzhou' } }) attributes: Record<string, unknown>;
  @ApiProperty({ description: 'Every profile name the customer has.', type: [String], example: ['basic', 'partner'] }) profileNames: string[];
}

/** Partner fields shared by the two partner requests. */
class PartnerInfoFields {
  @ApiPropertyOptional({ description: 'The customer\'s name as the partner knows it.', maxLength: 128 })
  @IsOptional() @IsString() @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ description: 'Mobile as the partner knows it.', example: '13800000000' })
  @IsOptional() @IsString() @Matches(/^\+?[0-9-]{3,32}$/, { message: 'mobile must be a phone number (digits, "-", optional leading +)' })
  mobile?: string;

  @ApiPropertyOptional({ description: '0 unknown, 1 male, 2 female.', enum: [0, 1, 2] })
  @IsOptional() @IsIn([0, 1, 2])
  gender?: number;

  @ApiPropertyOptional({ description: 'Further attributes (JSON object), merged into the `partner` profile; null removes a key.', type: 'object', additionalProperties: true, example: { memberLevel: 'gold' } })
  @IsOptional() @IsObject()
  attributes?: Record<string, unknown>;
}

/**
 * Body of `POST {T}/v1/external/partner/customer/improveUserInfo` (ImproveUserInfoRequestV1): a partner (the tenant's
 * app, mini program or CRM) tells what it knows about one of its users; the customer is found by open id or union id.
 */
export class ImproveUserInfoRequestV1 extends PartnerInfoFields {
  @ApiPropertyOptional({ description: 'The user\'s open id (give openId or unionId). When the customer is found by union id, a missing open id is filled in.', example: 'oAbC123xyz' })
  @IsOptional() @IsString() @Matches(/^\S{1,128}$/, { message: 'openId must be 1..128 characters without spaces' })
  openId?: string;

  @ApiPropertyOptional({ description: 'The user\'s union id on the platform\'s chat app.', example: 'uNiOn123' })
  @IsOptional() @IsString() @Matches(/^\S{1,128}$/, { message: 'unionId must be 1..128 characters without spaces' })
  unionId?: string;

  @ApiPropertyOptional({ description: 'Only in this corp (needed when the id matches customers of several corps).', example: 'Acme Retail' })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100)
  corpName?: string;

  @ApiPropertyOptional({ description: 'Nickname in the partner\'s app.', maxLength: 128 })
  @IsOptional() @IsString() @MaxLength(128)
  nickname?: string;
}

/** Body of `POST {T}/v1/external/partner/customer/improveCustomerInfo` (ImproveCustomerInfoRequestV1): the customer by platform id. */
export class ImproveCustomerInfoRequestV1 extends PartnerInfoFields {
  @ApiProperty({ description: 'Name of the corp.', example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'The customer\'s platform id (external user id).', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsString() @Matches(PLATFORM_ID, { message: 'externalUserId must be 1..64 characters without spaces' })
  externalUserId: string;

  @ApiPropertyOptional({ description: 'The customer\'s company as the partner knows it.', maxLength: 128 })
  @IsOptional() @IsString() @MaxLength(128)
  company?: string;
}
