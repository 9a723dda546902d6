import { applyDecorators, BadRequestException } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, type ValidationArguments } from 'class-validator';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from './cursor';
import type { ListSlice } from './list-pager';

/** Largest page size any list accepts. */
export const MAX_PAGE_SIZE = 200;

/**
 * `page` (from 0) and `size` (1..200) of a list — DESIGN.md, Request pipeline. A list that sorts extends this and
 * declares its own `sort` with {@link SortParam}, so its OpenAPI document names exactly the fields it accepts.
 */
export class PageBoundsQueryDto {
  @ApiPropertyOptional({ description: 'Page number, from 0.', default: 0, minimum: 0 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1_000_000)
  page: number = 0;

  @ApiPropertyOptional({ description: `Page size, 1..${MAX_PAGE_SIZE}.`, default: 20, minimum: 1, maximum: MAX_PAGE_SIZE })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_PAGE_SIZE)
  size: number = 20;

  @ApiPropertyOptional({
    description:
      'Keyset paging (issue 23): the `nextCursor` of the previous page, to read the page after it at the cost of page 0 however deep it is. ' +
      'Opaque and signed; it only opens the list it came from (same tenant, filters and sort; else 400). With a cursor, `page` is ignored ' +
      'and the response\'s `page` is the page number it stands for. Without it, `page`/`size` work as the spec says.',
    maxLength: MAX_CURSOR_LENGTH,
    example: 'eyJxIjoi…',
  })
  @IsOptional() @IsString() @MaxLength(MAX_CURSOR_LENGTH) @Matches(CURSOR_PATTERN, { message: 'cursor must be a nextCursor this list returned' })
  cursor?: string;
}

/** A list's sort allow-list: field name as the client writes it → entity property (or `alias.property`). */
export type SortFields = Readonly<Record<string, string>>;

/**
 * Every `sort` entry a list accepts: each field bare, `,asc` and `,desc` (issue 22, item 2: the document's enum).
 * @param fields the list's allow-list (its keys are the fields)
 */
export function sortEntries(fields: SortFields): string[] {
  return Object.keys(fields).flatMap((field) => [field, `${field},asc`, `${field},desc`]);
}

/**
 * Declares a list query's `sort` property (repeatable `field`, `field,asc` or `field,desc`) from the same allow-list
 * the service passes to {@link toOrder}, so the OpenAPI document and the server cannot differ (issue 22, item 2).
 * - Validation: each entry must be one of {@link sortEntries}; the field is case-sensitive, the direction is not
 *   (`name,DESC` is read as `name,desc`, as before). A single value becomes a one-entry array. A bad entry is a 400
 *   whose message names the allowed fields (`Cannot sort by "x"; allowed: a, b`).
 * - OpenAPI: `type: array`, `items: { type: string, enum: [every entry] }`, example = the list's default order.
 * @param fields the list's allow-list (exported beside its query DTO and used by its service's toOrder call)
 * @param defaultSort the order the list uses when no sort is given, written as entries (e.g. `['createdAt,desc']`)
 */
export function SortParam(fields: SortFields, defaultSort: readonly string[]): PropertyDecorator {
  const entries = sortEntries(fields);
  const names = Object.keys(fields);
  const unknown = defaultSort.filter((entry) => !entries.includes(entry));
  if (unknown.length > 0) throw new Error(`SortParam: default sort ${unknown.join(', ')} is not among ${entries.join(', ')}`);
  const message = (args: ValidationArguments): string => {
    const values: unknown[] = Array.isArray(args.value) ? args.value : [args.value];
    const bad = values.find((value) => typeof value !== 'string' || !entries.includes(value));
    const field = typeof bad === 'string' ? bad.split(',')[0] : String(bad);
    return names.includes(field) ? 'sort must look like field, field,asc or field,desc' : `Cannot sort by "${field}"; allowed: ${names.join(', ')}`;
  };
  return applyDecorators(
    ApiPropertyOptional({
      description: `Sort order: \`field\`, \`field,asc\` or \`field,desc\` (bare = ascending); repeat for several keys. Fields: ${names.join(', ')}. Default: ${defaultSort.join(' then ')}.`,
      type: 'array',
      items: { type: 'string', enum: entries },
      example: [...defaultSort],
    }),
    IsOptional(),
    Transform(({ value }) => (Array.isArray(value) ? value : [value]).map(normaliseDirection)),
    IsIn(entries, { each: true, message }),
  );
}

/** `field,DESC` → `field,desc`: the direction's case never mattered; anything else is left for validation. */
function normaliseDirection(entry: unknown): unknown {
  if (typeof entry !== 'string') return entry;
  const comma = entry.indexOf(',');
  return comma < 0 ? entry : `${entry.slice(0, comma)},${entry.slice(comma + 1).toLowerCase()}`;
}

/**
 * One page of a list: the spec's `{ content, page, size, totalElements, totalPages }`, plus (issue 23) `nextCursor`
 * and `totalElementsExact` when the page was read by the ListPager.
 */
export interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  /** Cursor of the next page (keyset paging), `null` on the last page. */
  nextCursor?: string | null;
  /** false: `totalElements` is an estimate or a reused count (lists past PAGING_TOTAL_EXACT_CAP rows). */
  totalElementsExact?: boolean;
}

/**
 * Builds the page envelope.
 * @param total the exact total, or the {@link ListSlice} the ListPager read (its page number, total, exactness and
 *   next cursor go into the envelope)
 */
export function toPage<T>(content: T[], total: number | Omit<ListSlice<unknown>, 'rows' | 'raws'> | Omit<ListSlice<unknown>, 'rows'>, query: { page: number; size: number }): Page<T> {
  if (typeof total === 'number') return { content, page: query.page, size: query.size, totalElements: total, totalPages: Math.ceil(total / query.size) };
  return {
    content,
    page: total.page,
    size: query.size,
    totalElements: total.total,
    totalPages: Math.ceil(total.total / query.size),
    nextCursor: total.nextCursor,
    totalElementsExact: total.totalExact,
  };
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
    @ApiProperty({ description: 'Number of items in all pages: exact up to PAGING_TOTAL_EXACT_CAP (default 10,000) matching rows; past it an estimate (see totalElementsExact).' })
    totalElements: number;
    @ApiProperty({ description: 'Number of pages (from totalElements).' })
    totalPages: number;
    @ApiPropertyOptional({ description: 'Keyset paging (issue 23): pass it as `cursor` to read the next page at the cost of page 0; null on the last page.', type: String, nullable: true })
    nextCursor?: string | null;
    @ApiPropertyOptional({ description: 'true: totalElements is an exact count. false: the list has more than PAGING_TOTAL_EXACT_CAP (default 10,000) matching rows and totalElements is the planner\'s estimate (or a count reused for a short while).' })
    totalElementsExact?: boolean;
  }
  Object.defineProperty(PageOf, 'name', { value: `PageOf${item.name.replace(/Dto$/, '')}` });
  return PageOf;
}
