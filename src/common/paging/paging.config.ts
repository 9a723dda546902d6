import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const GROUP = 'Lists and search';

/** Variables of every paged list (src/common/paging; issue 23 item 1: totals stay cheap). */
export class PagingVariables {
  @ConfigVariable({
    group: GROUP,
    description:
      'a list counts its `totalElements` exactly up to this many rows (one `LIMIT cap + 1` count); past it the total is the planner\'s estimate, reused for PAGING_TOTAL_CACHE_TTL_MS, and the page says `totalElementsExact: false`',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100_000_000)
  PAGING_TOTAL_EXACT_CAP: number = 10_000;

  @ConfigVariable({
    group: GROUP,
    description:
      'a keyword search (contact `keyword`) counts its `totalElements` exactly up to this many matches; past it the total is the planner\'s estimate and the page says `totalElementsExact: false` (counting every match of a common term reads every candidate row, so searches stop sooner than PAGING_TOTAL_EXACT_CAP)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100_000_000)
  PAGING_SEARCH_TOTAL_EXACT_CAP: number = 1_000;

  @ConfigVariable({
    group: GROUP,
    description: 'how long an estimated total (past PAGING_TOTAL_EXACT_CAP) is reused for the same list and filters; 0 = estimate on every page',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(86_400_000)
  PAGING_TOTAL_CACHE_TTL_MS: number = 60_000;

  @ConfigVariable({
    group: GROUP,
    description:
      'list shapes (a list\'s SQL with its filters and sort, values apart) whose page, count and cursor statements are kept after their first request instead of being built again on every request (issue 14); least recently used dropped first; 0 = build every statement per request',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1_000_000)
  PAGING_PLAN_CACHE_MAX_ENTRIES: number = 1_000;
}

/** The core's `paging` slice: the exact-count caps (rows; lists, keyword searches), the estimate reuse (ms) and the kept list shapes (count). */
export const pagingConfig = declareConfig({
  wing: 'core',
  variables: PagingVariables,
  resolve: (vars) => ({
    paging: { totalExactCap: vars.PAGING_TOTAL_EXACT_CAP, searchTotalExactCap: vars.PAGING_SEARCH_TOTAL_EXACT_CAP, totalCacheTtlMs: vars.PAGING_TOTAL_CACHE_TTL_MS, planCacheMaxEntries: vars.PAGING_PLAN_CACHE_MAX_ENTRIES },
  }),
});

declare module '../../config/app-config' {
  interface AppConfig extends ReturnType<typeof pagingConfig.resolve> {}
}
