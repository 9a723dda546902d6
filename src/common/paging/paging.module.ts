import { Global, Module } from '@nestjs/common';
import { ListPager } from './list-pager';

/** Provides the one {@link ListPager} every wing's lists read their pages with (issue 23 item 1). */
@Global()
@Module({ providers: [ListPager], exports: [ListPager] })
export class PagingModule {}
