import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { WorkChatCorpEntity } from './work-chat-corp.entity';

/** Body of `POST {C}/workChat/corps` (chat-management-api.md: CreateWorkChatCorpRelateRequest). */
export class CreateWorkChatCorpRelateRequest {
  @ApiProperty({ description: 'Name of the corp as operators use it; unique within the tenant (other paths take it as `corpName`).', maxLength: 100, example: 'Acme Retail Ltd' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(/^\S(.*\S)?$/, { message: 'corpName must not start or end with spaces' })
  corpName: string;

  @ApiProperty({ description: 'The platform\'s corp id (`corpid`); unique within the tenant.', maxLength: 64, example: 'ww3f9c2a7d1e0b4c5a' })
  @IsString() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'workChatCorpId must be 1..64 letters, digits, "_" or "-"' })
  workChatCorpId: string;

  @ApiPropertyOptional({ description: 'Agent id of the corp\'s self-built application on the platform.', maxLength: 32, example: '1000002' })
  @IsOptional() @IsString() @Matches(/^[0-9]{1,32}$/, { message: 'agentId must be 1..32 digits' })
  agentId?: string;

  @ApiPropertyOptional({ description: 'The application\'s secret (`corpsecret`), used to get the platform access token. Write-only: never returned. On update, omit to keep it, send "" to clear it.', writeOnly: true, maxLength: 256 })
  @IsOptional() @IsString() @MaxLength(256)
  secret?: string;

  @ApiPropertyOptional({ description: 'Token of the platform\'s event callbacks (letters and digits, up to 32). Write-only. Give it together with callbackAesKey; "" clears both on update.', writeOnly: true, maxLength: 32 })
  @IsOptional() @IsString() @Matches(/^([A-Za-z0-9]{1,32})?$/, { message: 'callbackToken must be up to 32 letters or digits' })
  callbackToken?: string;

  @ApiPropertyOptional({ description: 'EncodingAESKey of the platform\'s event callbacks (43 letters and digits). Write-only. Give it together with callbackToken.', writeOnly: true, minLength: 43, maxLength: 43 })
  @IsOptional() @IsString() @Matches(/^([A-Za-z0-9]{43})?$/, { message: 'callbackAesKey must be 43 letters or digits' })
  callbackAesKey?: string;

  @ApiPropertyOptional({ description: 'Operator\'s note.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  remark?: string;

  @ApiPropertyOptional({ description: 'A disabled corp is kept but not used to reach the platform.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Body of `PUT {C}/workChat/corps/{id}`: the fields to change; omitted fields keep their value. */
export class UpdateWorkChatCorpRelateRequest extends PartialType(CreateWorkChatCorpRelateRequest) {}

/** Sort fields of the corp list (`sort=field,asc|desc`). */
export const WORK_CHAT_CORP_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', corpName: 'corpName' } as const;

/** Query of `GET {C}/workChat/corps`. */
export class WorkChatCorpPageQuery extends PageBoundsQueryDto {
  @SortParam(WORK_CHAT_CORP_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only corps whose name contains this text (case-insensitive).', maxLength: 100, example: 'Acme' })
  @IsOptional() @IsString() @MaxLength(100)
  likeCorpName?: string;
}

/** A corp link as returned (chat-management-api.md: WorkChatCorpRelateDto); secrets only as presence flags. */
export class WorkChatCorpRelateDto {
  @ApiProperty({ description: 'Id of the corp link (UUID).', example: '0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name of the corp (unique in the tenant).', example: 'Acme Retail Ltd' }) corpName: string;
  @ApiProperty({ description: 'The platform\'s corp id.', example: 'ww3f9c2a7d1e0b4c5a' }) workChatCorpId: string;
  @ApiProperty({ description: 'Agent id of the self-built application, or null.', type: String, nullable: true, example: '1000002' }) agentId: string | null;
  @ApiProperty({ description: 'Whether the application secret is stored (the secret itself is never returned).' }) hasSecret: boolean;
  @ApiProperty({ description: 'Whether the callback token and EncodingAESKey are stored.' }) hasCallbackConfig: boolean;
  @ApiProperty({ description: 'Operator\'s note, or null.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'Whether the corp is used to reach the platform.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to its response; no secret leaves. */
export function toWorkChatCorpRelateDto(row: WorkChatCorpEntity): WorkChatCorpRelateDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    corpName: row.corpName,
    workChatCorpId: row.workChatCorpId,
    agentId: row.agentId,
    hasSecret: Boolean(row.secret),
    hasCallbackConfig: Boolean(row.callbackToken && row.callbackAesKey),
    remark: row.remark,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
