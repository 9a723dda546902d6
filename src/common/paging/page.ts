import { BadRequestException } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** Largest page size any list accepts. */
export const MAX_PAGE_SIZE = 200;

/** `page` (from 0), `size` (1..200), `sort` (`field,asc|desc`, repeatable) — DESIGN.md, Request pipeline. */
export class PageQueryDto {
  @ApiPropertyOptional({ description: 'Page number, from 0.', default: 0, minimum: 0 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1_000_000)
  page: number = 0;

  @ApiPropertyOptional({ description: `Page size, 1..${MAX_PAGE_SIZE}.`, default: 20, minimum: 1, maximum: MAX_PAGE_SIZE })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_PAGE_SIZE)
  size: number = 20;

  @ApiPropertyOptional({
    description: 'Sort order `field,asc|desc`; repeat for several keys. Allowed fields are listed per endpoint.',
    type: [String],
    example: ['createdAt,desc'],
  })
  @IsOptional()
  @Transform(({ value }) => (Array.isArray(value) ? value : [value]))
  @Matches(/^[A-Za-z]+(,(asc|desc))?$/i, { each: true, message: 'sort must look like field,asc or field,desc' })
  sort?: string[];
}

/** One page of a list. */
export interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

/** Builds the page envelope. */
export function toPage<T>(content: T[], totalElements: number, query: { page: number; size: number }): Page<T> {
  return { content, page: query.page, size: query.size, totalElements, totalPages: Math.ceil(totalElements / query.size) };
}

/**
 * Turns `sort` parameters into a TypeORM order, accepting only allow-listed fields.
 * @param allowed field name → entity property
 * @param fallback order when no sort is given
 * @throws BadRequestException (400) for a field not in the allow-list
 */
export function toOrder(
  sort: string[] | undefined,
  allowed: Record<string, string>,
  fallback: Record<string, 'ASC' | 'DESC'>,
): Record<string, 'ASC' | 'DESC'> {
  if (!sort?.length) return fallback;
  const order: Record<string, 'ASC' | 'DESC'> = {};
  for (const entry of sort) {
    const [field, direction = 'asc'] = entry.split(',');
    const property = allowed[field];
    if (!property) throw new BadRequestException(`Cannot sort by "${field}"; allowed: ${Object.keys(allowed).join(', ')}`);
    order[property] = direction.toLowerCase() === 'desc' ? 'DESC' : 'ASC';
  }
  return order;
}

/** Swagger schema of a page of `item`s. */
export function pageSchema(item: new () => unknown, description: string) {
  class PageOf {
    @ApiProperty({ type: [item], description })
    content: unknown[];
    @ApiProperty({ description: 'Page number, from 0.' })
    page: number;
    @ApiProperty({ description: 'Requested page size.' })
    size: number;
    @ApiProperty({ description: 'Number of items in all pages.' })
    totalElements: number;
    @ApiProperty({ description: 'Number of pages.' })
    totalPages: number;
  }
  Object.defineProperty(PageOf, 'name', { value: `PageOf${item.name.replace(/Dto$/, '')}` });
  return PageOf;
}
