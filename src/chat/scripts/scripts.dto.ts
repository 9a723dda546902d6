import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { ScriptCategoryEntity } from './script-category.entity';
import { SCRIPT_ATTACHMENT_TYPES, ScriptAttachment, ScriptAttachmentType, ScriptContentEntity } from './script-content.entity';

/** `true`/`false` query strings (and real booleans) to booleans; anything else is left for @IsBoolean to refuse. */
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

const TRIMMED = /^\S(.*\S)?$/s;

// ---------------------------------------------------------------- categories

/**
 * Body of `POST {C}/chat/script-category` and `PUT {C}/chat/script-category/{id}` (chat-management-api.md:
 * ScriptCategoryRequestV1). PUT replaces every field; changing `parentId` moves the category with its subtree.
 */
export class ScriptCategoryRequestV1 {
  @ApiProperty({ description: 'Name; unique among its siblings (409).', maxLength: 100, example: 'After-sales' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(TRIMMED, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({
    description: 'Parent category; omitted or null = a root. A parent inside the category itself (a cycle) or a tree deeper than CHAT_SCRIPT_CATEGORY_MAX_DEPTH is refused (409); an unknown parent → 404.',
    type: String,
    format: 'uuid',
    nullable: true,
  })
  @IsOptional() @IsUUID()
  parentId?: string | null;

  @ApiPropertyOptional({ description: 'Position among siblings, ascending (then by name).', default: 0, minimum: -1_000_000, maximum: 1_000_000 })
  @IsOptional() @IsInt() @Min(-1_000_000) @Max(1_000_000)
  sortOrder?: number;

  @ApiPropertyOptional({ description: 'Operator\'s description; omitted or "" = none.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;
}

/** Query of `DELETE {C}/chat/script-category/{id}`. */
export class ScriptCategoryDeleteQuery {
  @ApiPropertyOptional({
    description: 'Also delete every category below it and every script in them, in one transaction. Without it, a category with subcategories or scripts is refused (409).',
    type: Boolean,
    default: false,
  })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  recursive?: boolean;
}

/** A script category as returned (chat-management-api.md: ScriptCategoryDtoV1). */
export class ScriptCategoryDtoV1 {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Parent category, or null for a root.', type: String, nullable: true }) parentId: string | null;
  @ApiProperty({ description: 'Name.', example: 'After-sales' }) name: string;
  @ApiProperty({ description: 'Position among siblings.', example: 0 }) sortOrder: number;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Scripts directly in this category.', example: 4 }) contentCount: number;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** A node of the category tree (`GET {C}/chat/script-category`). */
export class ScriptCategoryTreeDtoV1 extends ScriptCategoryDtoV1 {
  @ApiProperty({ description: 'Subcategories, by sortOrder then name.', type: () => [ScriptCategoryTreeDtoV1] }) children: ScriptCategoryTreeDtoV1[];
}

/** Maps a category row (and its direct script count) to its response. */
export function toScriptCategoryDto(row: ScriptCategoryEntity, contentCount: number): ScriptCategoryDtoV1 {
  return {
    id: row.id,
    tenantId: row.tenantId,
    parentId: row.parentId,
    name: row.name,
    sortOrder: row.sortOrder,
    description: row.description,
    contentCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------- contents

/** Metadata of one attachment of a script (the file is linked by `url` or stored as `mediaId`). */
export class ScriptAttachmentDto {
  @ApiProperty({ description: 'Kind of attachment.', enum: SCRIPT_ATTACHMENT_TYPES, example: 'image' })
  @IsIn(SCRIPT_ATTACHMENT_TYPES, { message: `type must be one of ${SCRIPT_ATTACHMENT_TYPES.join(', ')}` })
  type: ScriptAttachmentType;

  @ApiProperty({ description: 'Name shown to operators (and the file name sent).', maxLength: 200, example: 'return-form.png' })
  @IsString() @IsNotEmpty() @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'http(s) URL of the file or link. Give url or mediaId (or both).', maxLength: 2000, example: 'https://cdn.example.com/return-form.png' })
  @ValidateIf((attachment: ScriptAttachmentDto) => attachment.url !== undefined || attachment.mediaId === undefined)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'url must be an http(s) URL (give url or mediaId)' })
  @MaxLength(2000)
  url?: string;

  @ApiPropertyOptional({ description: 'Id of the stored file or platform media.', maxLength: 128 })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128)
  mediaId?: string;

  @ApiPropertyOptional({ description: 'MIME type.', maxLength: 100, example: 'image/png' })
  @IsOptional() @IsString() @Matches(/^[\w.+-]+\/[\w.+-]+$/, { message: 'mimeType must look like type/subtype' }) @MaxLength(100)
  mimeType?: string;

  @ApiPropertyOptional({ description: 'Size, bytes.', minimum: 0, example: 48213 })
  @IsOptional() @IsInt() @Min(0)
  sizeBytes?: number;
}

/**
 * Body of `POST {C}/chat/script-content` and `PUT {C}/chat/script-content/{id}` (chat-management-api.md:
 * ScriptContentRequestV1). PUT replaces every field; changing `categoryId` moves the script.
 */
export class ScriptContentRequestV1 {
  @ApiProperty({ description: 'Category of the script (404 when unknown).', format: 'uuid' })
  @IsUUID()
  categoryId: string;

  @ApiProperty({ description: 'Title (what operators see in lists; also matched by the search).', maxLength: 200, example: 'How to return an item' })
  @IsString() @IsNotEmpty() @MaxLength(200)
  title: string;

  @ApiProperty({
    description: 'The script\'s text; may use `{{variable}}` placeholders, filled in per contact by the reply pipeline. At most CHAT_SCRIPT_CONTENT_MAX_CHARS characters (413).',
    example: 'Hi {{customerName}}, you can return any item within 30 days: fill in the form and we pick it up.',
  })
  @IsString() @IsNotEmpty()
  content: string;

  @ApiPropertyOptional({ description: 'Attachment metadata, at most CHAT_SCRIPT_MAX_ITEMS (400).', type: [ScriptAttachmentDto] })
  @IsOptional() @IsArray() @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ScriptAttachmentDto)
  attachments?: ScriptAttachmentDto[];

  @ApiPropertyOptional({
    description: 'Phrases the script answers: the reply pipeline retrieves the script when a customer message contains one (case-insensitive). 1..100 characters each, at most CHAT_SCRIPT_MAX_ITEMS (400); repeated ones are kept once.',
    type: [String],
    example: ['return', 'refund', '退货'],
  })
  @IsOptional() @IsArray() @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(100, { each: true })
  keywords?: string[];

  @ApiPropertyOptional({ description: 'Labels for operators (also weigh a little in the search). 1..64 characters each, at most CHAT_SCRIPT_MAX_ITEMS (400).', type: [String], example: ['after-sales'] })
  @IsOptional() @IsArray() @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(64, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ description: 'A disabled script is kept but never retrieved by the search.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of the script list (`sort=field,asc|desc`). */
export const SCRIPT_CONTENT_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', title: 'title' } as const;

/** Query of `GET {C}/chat/script-content`. */
export class ScriptContentPageQuery extends PageBoundsQueryDto {
  @SortParam(SCRIPT_CONTENT_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only scripts in this category.', format: 'uuid' })
  @IsOptional() @IsUUID()
  categoryId?: string;

  @ApiPropertyOptional({ description: 'With categoryId: also scripts in every category below it.', type: Boolean, default: false })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  includeSubcategories?: boolean;

  @ApiPropertyOptional({ description: 'Only scripts whose title, text or a keyword contains this text (case-insensitive, wildcards taken literally).', maxLength: 100, example: 'refund' })
  @IsOptional() @IsString() @MaxLength(100)
  keyword?: string;

  @ApiPropertyOptional({ description: 'Only scripts with this tag (exact).', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  tag?: string;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) scripts.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;
}

/** Query of `GET {C}/chat/script-content/search`. */
export class ScriptSearchQuery {
  @ApiProperty({ description: 'Text to find scripts for, typically a customer message.', maxLength: 2000, example: 'Hi, how do I return my order?' })
  @IsString() @IsNotEmpty() @MaxLength(2000)
  text: string;

  @ApiPropertyOptional({ description: 'Most results, 1..CHAT_SCRIPT_SEARCH_MAX_RESULTS (above → 400); default 10 (or that maximum when lower).', default: 10, minimum: 1 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  limit?: number;
}

/** A script as returned (chat-management-api.md: ScriptContentDtoV1). */
export class ScriptContentDtoV1 {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Category.' }) categoryId: string;
  @ApiProperty({ description: 'Title.', example: 'How to return an item' }) title: string;
  @ApiProperty({ description: 'Text (may contain `{{variable}}` placeholders).' }) content: string;
  @ApiProperty({ description: 'Attachment metadata.', type: [ScriptAttachmentDto] }) attachments: ScriptAttachment[];
  @ApiProperty({ description: 'Retrieval keywords.', type: [String] }) keywords: string[];
  @ApiProperty({ description: 'Labels.', type: [String] }) tags: string[];
  @ApiProperty({ description: 'Whether the search may retrieve it.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a script row to its response. */
export function toScriptContentDto(row: ScriptContentEntity): ScriptContentDtoV1 {
  return {
    id: row.id,
    tenantId: row.tenantId,
    categoryId: row.categoryId,
    title: row.title,
    content: row.content,
    attachments: row.attachments,
    keywords: row.keywords,
    tags: row.tags,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** One search result. */
export class ScriptSearchHitDto {
  @ApiProperty({ description: 'The script.', type: ScriptContentDtoV1 }) script: ScriptContentDtoV1;
  @ApiProperty({ description: 'Score (10 per keyword contained in the text, 5 for the whole title, 3/2/1 per search term in title/tags/text).', example: 13 }) score: number;
  @ApiProperty({ description: 'Keywords of the script contained in the text.', type: [String] }) matchedKeywords: string[];
  @ApiProperty({ description: 'Search terms of the text found in the script (lower-cased).', type: [String] }) matchedTerms: string[];
}
