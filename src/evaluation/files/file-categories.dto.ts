import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { CategoryTreeNode, MAX_CATEGORY_NAME_LENGTH } from './category-tree';
import { FileCategoryEntity } from './file-category.entity';

/** `true`/`false` query strings (and real booleans) to booleans; anything else is left for @IsBoolean to refuse. */
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** Body of `POST /api/file-categories`. */
export class CreateFileCategoryDto {
  @ApiProperty({ description: `Name, unique among its siblings ignoring case (409 otherwise); whitespace is collapsed, control characters refused. 1..${MAX_CATEGORY_NAME_LENGTH} characters.`, example: 'Quarterly reports', maxLength: MAX_CATEGORY_NAME_LENGTH })
  @IsString() @MinLength(1) @MaxLength(MAX_CATEGORY_NAME_LENGTH * 2)
  name: string;

  @ApiPropertyOptional({ description: 'Parent category; omitted or null = top level. Unknown id → 404.', format: 'uuid', nullable: true, type: String })
  @IsOptional() @IsUUID()
  parent_id?: string | null;
}

/** Body of `PATCH /api/file-categories/{id}`: rename and/or move. */
export class UpdateFileCategoryDto {
  @ApiPropertyOptional({ description: 'New name (same rules as on create).', maxLength: MAX_CATEGORY_NAME_LENGTH })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(MAX_CATEGORY_NAME_LENGTH * 2)
  name?: string;

  @ApiPropertyOptional({
    description: 'Move under this category; null = to the top level; omitted = stay. Moving a category into itself or one of its descendants is refused (409, with the chain in `cycle`). Unknown id → 404.',
    format: 'uuid',
    nullable: true,
    type: String,
  })
  @ValidateIf((body: UpdateFileCategoryDto) => body.parent_id !== null && body.parent_id !== undefined) @IsUUID()
  parent_id?: string | null;
}

/** Sort fields of `GET /api/file-categories`: field → entity property; used by the query's sort and the service's toOrder. */
export const FILE_CATEGORY_SORT_FIELDS = { name: 'nameKey', createdAt: 'createdAt' } as const;

/** Query of `GET /api/file-categories`. */
export class FileCategoryQueryDto extends PageBoundsQueryDto {
  @SortParam(FILE_CATEGORY_SORT_FIELDS, ['name,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only the children of this category; `root` = top-level categories; omitted = all.', example: 'root' })
  @IsOptional() @Matches(/^(root|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/, { message: 'parent_id must be a category id (UUID) or root' })
  parent_id?: string;

  @ApiPropertyOptional({ description: 'Only names containing this text (case-insensitive).', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(200)
  q?: string;
}

/** Query of `DELETE /api/file-categories/{id}`. */
export class DeleteFileCategoryQueryDto {
  @ApiPropertyOptional({ description: 'Also delete every subcategory and every file below (rows and stored contents). Without it a non-empty category is refused with 409.', default: false })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  recursive?: boolean;
}

/** A category. */
export class FileCategoryDto {
  @ApiProperty({ description: 'Id (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
  @ApiProperty({ description: 'Parent category; null = top level.', format: 'uuid', nullable: true, type: String }) parent_id: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last renamed or moved (ISO 8601).' }) updated_at: string;
}

/** One step of a category's path. */
export class FileCategoryRefDto {
  @ApiProperty({ description: 'Id (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
}

/** A category with where it sits and what it holds. */
export class FileCategoryDetailDto extends FileCategoryDto {
  @ApiProperty({ description: 'From the top level down to this category (inclusive).', type: [FileCategoryRefDto] }) path: FileCategoryRefDto[];
  @ApiProperty({ description: 'Files directly in this category.' }) file_count: number;
  @ApiProperty({ description: 'Direct subcategories.' }) subcategory_count: number;
}

/** A node of the category tree. */
export class FileCategoryTreeNodeDto {
  @ApiProperty({ description: 'Id (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
  @ApiProperty({ description: 'Parent category; null = top level.', format: 'uuid', nullable: true, type: String }) parent_id: string | null;
  @ApiProperty({ description: 'Files directly in this category.' }) file_count: number;
  @ApiProperty({ description: 'Subcategories, sorted by name.', type: () => [FileCategoryTreeNodeDto] }) children: FileCategoryTreeNodeDto[];
}

/** The whole category tree. */
export class FileCategoryTreeDto {
  @ApiProperty({ description: 'Top-level categories, sorted by name, each with its subtree.', type: [FileCategoryTreeNodeDto] }) categories: FileCategoryTreeNodeDto[];
  @ApiProperty({ description: 'Files in no category.' }) uncategorized_file_count: number;
}

/** What a category deletion removed. */
export class FileCategoryDeletionDto {
  @ApiProperty({ description: 'Categories deleted (the category and, with recursive=true, its subcategories).' }) deleted_categories: number;
  @ApiProperty({ description: 'Files deleted with them (rows; their stored contents are removed after the commit).' }) deleted_files: number;
}

/** Maps a row to its response. */
export function toFileCategoryDto(row: FileCategoryEntity): FileCategoryDto {
  return { id: row.id, name: row.name, parent_id: row.parentId, created_at: row.createdAt.toISOString(), updated_at: row.updatedAt.toISOString() };
}

/** Maps a tree node (category-tree.ts) to its response. */
export function toFileCategoryTreeNodeDto(node: CategoryTreeNode): FileCategoryTreeNodeDto {
  return { id: node.id, name: node.name, parent_id: node.parentId, file_count: node.fileCount, children: node.children.map(toFileCategoryTreeNodeDto) };
}
