import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ListPager } from '../../common/paging/list-pager';

export { DEFERRED_ROWS_MIN_OFFSET } from '../../common/paging/list-pager';

/**
 * The chat wing's {@link ListPager} (issue 5, acceptance 6; issue 23): the common pager (keyset cursor, capped exact
 * totals, far pages by ids first), reusing totals of at least CHAT_LIST_COUNT_CACHE_MIN_ROWS for
 * CHAT_LIST_COUNT_CACHE_TTL_MS per filter (same SQL and parameters) — a total that large is an estimate to its reader
 * anyway; such a reused total is served with `totalElementsExact: false`.
 */
@Injectable()
export class ChatListPager extends ListPager {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const cap = config.paging?.totalExactCap ?? 10_000;
    super(config, {
      exactCap: cap,
      // A keyword search counts exactly only up to PAGING_SEARCH_TOTAL_EXACT_CAP, as on the other wings' lists.
      searchExactCap: config.paging?.searchTotalExactCap ?? 1_000,
      cacheTtlMs: config.chatLists.countCacheTtlMs,
      cacheMinRows: Math.min(config.chatLists.countCacheMinRows, cap + 1),
      planCacheMaxEntries: config.paging?.planCacheMaxEntries,
    });
  }
}
