import { ApiProperty } from '@nestjs/swagger';

/**
 * OpenAPI schema of a chat wing page, named as chat-management-api.md names the paged wrappers:
 * `PageResultDto<X>` becomes `PageResultDto` + the item schema name (`PageResultDtoWorkChatCorpRelateDto`). The
 * body is `{ content, page, size, totalElements, totalPages }` (src/common/paging/page.ts).
 * @param item the item's DTO class
 * @param description what the items are
 */
export function pageResultSchema(item: new () => unknown, description: string) {
  class PageResult {
    @ApiProperty({ type: [item], description })
    content: unknown[];
    @ApiProperty({ description: 'Page number, from 0.', example: 0 })
    page: number;
    @ApiProperty({ description: 'Requested page size.', example: 20 })
    size: number;
    @ApiProperty({ description: 'Number of items in all pages.', example: 1 })
    totalElements: number;
    @ApiProperty({ description: 'Number of pages.', example: 1 })
    totalPages: number;
  }
  Object.defineProperty(PageResult, 'name', { value: `PageResultDto${item.name}` });
  return PageResult;
}
