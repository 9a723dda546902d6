import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { REPORT_CURSOR_PATTERN } from './report-cursor';

/** The statuses a case result can have, as the `status` filter takes them. */
export const REPORT_CASE_STATUSES = ['passed', 'failed', 'errored'] as const;
export type ReportCaseStatus = (typeof REPORT_CASE_STATUSES)[number];

/** `a,b` or a repeated parameter → ['a', 'b']. */
const toList = ({ value }: { value: unknown }) =>
  (Array.isArray(value) ? value : [value]).flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])).map((item) => (typeof item === 'string' ? item.trim() : item));

/**
 * Opt-in filters of a run's report (issue 23 item 3): without them the report holds every case, as the spec and
 * the `atrium-eval` client expect. Filters choose cases; a case in the report is always whole (all its rules), and
 * the header and summary stay the run's.
 */
export class ReportFilterQueryDto {
  @ApiPropertyOptional({
    description: 'Only case results in this status; several with commas or a repeated parameter (`status=failed,errored`).',
    enum: REPORT_CASE_STATUSES,
    isArray: true,
  })
  @IsOptional() @Transform(toList) @IsIn(REPORT_CASE_STATUSES, { each: true })
  status?: ReportCaseStatus[];

  @ApiPropertyOptional({ description: 'Only cases carrying this tag (the case\'s `tags` in the scenario).', example: 'refunds', maxLength: 64 })
  @IsOptional() @IsString() @Matches(/^[\p{L}\p{N}][\p{L}\p{N}_.:/ -]{0,63}$/u, { message: 'tag must be 1–64 letters, digits, spaces or _ . : / -, starting with a letter or digit' })
  tag?: string;

  @ApiPropertyOptional({ description: 'Only cases with at least one rule of this type (e.g. `llm-rubric`).', example: 'llm-rubric', maxLength: 32 })
  @IsOptional() @IsString() @Matches(/^[a-z][a-z0-9-]{0,31}$/, { message: 'rule_type must be a rule type such as contains or llm-rubric' })
  rule_type?: string;
}

/** Query of `GET /api/reports/{id}`: the filters, and opt-in keyset paging of the cases. */
export class ReportQueryDto extends ReportFilterQueryDto {
  @ApiPropertyOptional({
    description: 'Cases per page: the report then holds at most this many cases and ends with `next_cursor` (null on the last page). Without `size` and `cursor` the report is whole. At most EVAL_REPORT_PAGE_MAX (default 1000).',
    minimum: 1,
    maximum: 100_000,
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100_000)
  size?: number;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page: the page continues after it (same filters).', example: 'YzE6NDk5OjA', maxLength: 64 })
  @IsOptional() @IsString() @Matches(REPORT_CURSOR_PATTERN, { message: 'cursor must be a next_cursor value of an earlier page' })
  cursor?: string;
}
