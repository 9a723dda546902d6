import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { MAX_FILE_NAME_LENGTH } from '../../common/storage/file-name';
import { StoredFileEntity } from './stored-file.entity';

/** Longest file description, characters. */
export const MAX_FILE_DESCRIPTION_LENGTH = 10_000;

/** An empty form field (`category_id=`) counts as not sent. */
const emptyAsAbsent = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** Text fields of the multipart `POST /api/files` (the content is the file field `file`). */
export class UploadFileFieldsDto {
  @ApiPropertyOptional({ description: 'Category to file it in; omitted = no category. Unknown id → 404.', format: 'uuid' })
  @Transform(emptyAsAbsent) @IsOptional() @IsUUID()
  category_id?: string;

  @ApiPropertyOptional({ description: 'Free-text description.', maxLength: MAX_FILE_DESCRIPTION_LENGTH })
  @Transform(emptyAsAbsent) @IsOptional() @IsString() @MaxLength(MAX_FILE_DESCRIPTION_LENGTH)
  description?: string;
}

/** Multipart schema of `POST /api/files` for the OpenAPI document. */
export const FILE_UPLOAD_SCHEMA = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The content; at most EVAL_FILE_MAX_BYTES (default 50 MiB, 413 above). Its file name is kept for display only.' },
    category_id: { type: 'string', format: 'uuid', description: 'Category to file it in (optional).' },
    description: { type: 'string', maxLength: MAX_FILE_DESCRIPTION_LENGTH, description: 'Free-text description (optional).' },
  },
};

/** Sort fields of `GET /api/files`: field → entity property; used by the query's sort and the service's toOrder. */
export const FILE_SORT_FIELDS = { createdAt: 'createdAt', name: 'name', size: 'sizeBytes' } as const;

/** Query of `GET /api/files`. */
export class FileQueryDto extends PageBoundsQueryDto {
  @SortParam(FILE_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only files directly in this category; `root` = files in no category.', example: 'root' })
  @IsOptional() @Matches(/^(root|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/, { message: 'category_id must be a category id (UUID) or root' })
  category_id?: string;

  @ApiPropertyOptional({ description: 'Only names containing this text (case-insensitive).', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(200)
  q?: string;
}

/** Body of `PATCH /api/files/{id}`: move, rename, describe. */
export class UpdateFileDto {
  @ApiPropertyOptional({ description: 'Move into this category; null = into no category; omitted = stay. Unknown id → 404.', format: 'uuid', nullable: true, type: String })
  @ValidateIf((body: UpdateFileDto) => body.category_id !== null && body.category_id !== undefined) @IsUUID()
  category_id?: string | null;

  @ApiPropertyOptional({ description: 'New display name (cleaned like an uploaded name: no folders, no control characters).', maxLength: MAX_FILE_NAME_LENGTH })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(MAX_FILE_NAME_LENGTH * 2)
  name?: string;

  @ApiPropertyOptional({ description: 'New description; null clears it.', nullable: true, type: String, maxLength: MAX_FILE_DESCRIPTION_LENGTH })
  @ValidateIf((body: UpdateFileDto) => body.description !== null && body.description !== undefined) @IsString() @MaxLength(MAX_FILE_DESCRIPTION_LENGTH)
  description?: string | null;
}

/** A stored file's metadata. */
export class FileDto {
  @ApiProperty({ description: 'Id (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Display name: the uploaded file name without folders or control characters. Never used as a path.', example: '報告 ✓.pdf' }) name: string;
  @ApiProperty({ description: 'Description.', nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'Size in bytes.' }) size_bytes: number;
  @ApiProperty({ description: 'SHA-256 of the content, lowercase hex.', example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }) sha256: string;
  @ApiProperty({
    description: 'Type decided from the bytes at upload: the type their magic bytes show; else the client\'s type when it is a plain text/JSON/CSV/Markdown/YAML type and the bytes are UTF-8 text; else application/octet-stream.',
    example: 'image/png',
  })
  content_type: string;
  @ApiProperty({ description: 'Category; null = none.', format: 'uuid', nullable: true, type: String }) category_id: string | null;
  @ApiProperty({ description: 'Where to download the content.', example: '/api/files/7d0e8a51-6a43-4c8e-9a56-0f3f0b9ad1f2/download' }) download_url: string;
  @ApiProperty({ description: 'Uploaded (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last moved, renamed or described (ISO 8601).' }) updated_at: string;
}

/** Maps a row to its response; the storage key stays inside. */
export function toFileDto(row: StoredFileEntity): FileDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    size_bytes: row.sizeBytes,
    sha256: row.sha256,
    content_type: row.contentType,
    category_id: row.categoryId,
    download_url: `/api/files/${row.id}/download`,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
