import { BadRequestException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

import { ScriptCategoriesService } from './script-categories.service';
import { ScriptAttachment, ScriptContentEntity } from './script-content.entity';
import { rankScripts, searchTerms } from './script-search.rules';
import {
  SCRIPT_CONTENT_SORT_FIELDS,
  ScriptContentDtoV1,
  ScriptContentPageQuery,
  ScriptContentRequestV1,
  toScriptContentDto,
} from './scripts.dto';
import { containsMatch, gramsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Results of a search when the caller gives no limit. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** A script found by {@link ScriptsService.search}, for the reply pipeline. */
export interface ScriptSearchHit {
  script: ScriptContentDtoV1;
  score: number;
  matchedKeywords: string[];
  matchedTerms: string[];
}

/**
 * Script contents (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/chat/script-content/{id}`; issue 6,
 * Scripts) and their retrieval for the reply pipeline ({@link search}). Every query filters by the tenant. A script
 * write read-locks its category, so a concurrent delete of the category cannot leave it orphaned.
 */
@Injectable()
export class ScriptsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly categories: ScriptCategoriesService,
  ) {}

  /**
   * @throws NotFoundException (404) unknown category; BadRequestException (400) too many items or an attachment
   *   without url or mediaId; ProblemException (413) text longer than CHAT_SCRIPT_CONTENT_MAX_CHARS
   */
  async create(tenantId: string, input: ScriptContentRequestV1): Promise<ScriptContentDtoV1> {
    const fields = this.checked(input);
    return this.dataSource.transaction(async (manager) => {
      await this.categories.find(manager, tenantId, input.categoryId, true);
      const row = manager.getRepository(ScriptContentEntity).create({ tenantId, ...fields });
      await manager.save(row);
      return toScriptContentDto(row);
    });
  }

  /**
   * One page of scripts, newest first by default. Filters: category (optionally with its subcategories), keyword
   * (title, text or a keyword contains it, case-insensitive), tag (exact), enabled. Sort: createdAt, updatedAt, title.
   * @throws NotFoundException (404) unknown categoryId; BadRequestException (400) bad sort field
   */
  async list(tenantId: string, query: ScriptContentPageQuery): Promise<Page<ScriptContentDtoV1>> {
    const order = toOrder(query.sort, SCRIPT_CONTENT_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(ScriptContentEntity).createQueryBuilder('script').where('script.tenant_id = :tenantId', { tenantId });
    if (query.categoryId) {
      await this.categories.find(this.dataSource.manager, tenantId, query.categoryId);
      if (query.includeSubcategories) {
        builder.andWhere(
          `script.category_id IN (WITH RECURSIVE sub(id) AS (
             SELECT id FROM chat_script_category WHERE tenant_id = :tenantId AND id = :categoryId
             UNION SELECT child.id FROM chat_script_category child JOIN sub ON child.parent_id = sub.id WHERE child.tenant_id = :tenantId
           ) SELECT id FROM sub)`,
          { categoryId: query.categoryId },
        );
      } else {
        builder.andWhere('script.category_id = :categoryId', { categoryId: query.categoryId });
      }
    }
    if (query.keyword) {
      const keyword = query.keyword;
      const pattern = likeContains(keyword);
      // Each arm is served by its search index (migration 1795600210000); the keywords' grams are their elements'.
      const keywordsGrams = gramsMatch('atrium_jsonb_grams(script.keywords)', 'keywordsTerm', keyword, { evenWithTrigrams: true });
      builder.andWhere(
        new Brackets((where) => {
          where
            .where(...containsMatch('script.title', 'titlePattern', keyword))
            .orWhere(...containsMatch('script.content', 'contentPattern', keyword))
            .orWhere(
              `(EXISTS (SELECT 1 FROM jsonb_array_elements_text(script.keywords) keyword WHERE keyword ILIKE :pattern ESCAPE '\\')${keywordsGrams ? ` AND ${keywordsGrams[0]}` : ''})`,
              { pattern, ...keywordsGrams?.[1] },
            );
        }),
      );
    }
    if (query.tag) builder.andWhere('script.tags @> CAST(:tag AS jsonb)', { tag: JSON.stringify([query.tag]) });
    if (query.enabled !== undefined) builder.andWhere('script.enabled = :enabled', { enabled: query.enabled });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`script.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.keyword) });
    return toPage(rows.map(toScriptContentDto), slice, query);
  }

  /** @throws NotFoundException (404) no such script in the tenant */
  async get(tenantId: string, id: string): Promise<ScriptContentDtoV1> {
    const row = await this.dataSource.getRepository(ScriptContentEntity).findOneBy({ tenantId, id });
    if (!row) throw notFound(id);
    return toScriptContentDto(row);
  }

  /**
   * Replaces every field; a new categoryId moves the script.
   * @throws NotFoundException (404) unknown script or category; BadRequestException (400); ProblemException (413)
   */
  async update(tenantId: string, id: string, input: ScriptContentRequestV1): Promise<ScriptContentDtoV1> {
    const fields = this.checked(input);
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(ScriptContentEntity).findOne({ where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw notFound(id);
      await this.categories.find(manager, tenantId, input.categoryId, true);
      Object.assign(row, fields);
      await manager.save(row);
      return toScriptContentDto(row);
    });
  }

  /** @throws NotFoundException (404) no such script in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ScriptContentEntity).delete({ tenantId, id });
    if (!result.affected) throw notFound(id);
  }

  /**
   * Scripts for a text (a customer message), best first — the reply pipeline's retrieval. Only enabled scripts. A
   * cheap SQL prefilter reads at most CHAT_SCRIPT_SEARCH_CANDIDATES candidates (most recently updated first): scripts
   * with a keyword contained in the text, or whose title, text or a tag contains one of the text's search terms;
   * script-search.rules.ts then ranks them (keywords 10 points each, whole title 5, terms 3/2/1 in
   * title/tags/text). Patterns use LIKE's default escape character `\`. A linear scan of the tenant's enabled scripts: meant for thousands of scripts per tenant.
   * @param requested most results, 1..CHAT_SCRIPT_SEARCH_MAX_RESULTS (default 10, or the maximum when lower)
   * @throws BadRequestException (400) limit out of range
   */
  async search(tenantId: string, text: string, requested?: number): Promise<ScriptSearchHit[]> {
    const max = this.config.chatScripts.searchMaxResults;
    const limit = requested ?? Math.min(DEFAULT_SEARCH_LIMIT, max);
    if (!Number.isInteger(limit) || limit < 1 || limit > max) {
      throw new BadRequestException({ message: `limit must be 1..${max} (CHAT_SCRIPT_SEARCH_MAX_RESULTS), got ${limit}.`, errors: [{ field: 'limit', messages: [`1..${max}`] }] });
    }
    const terms = searchTerms(text);
    const patterns = terms.map(likeContains);
    const rows = await this.dataSource
      .getRepository(ScriptContentEntity)
      .createQueryBuilder('script')
      .where('script.tenant_id = :tenantId AND script.enabled = true', { tenantId })
      .andWhere(
        new Brackets((where) => {
          where.where("EXISTS (SELECT 1 FROM jsonb_array_elements_text(script.keywords) keyword WHERE length(btrim(keyword)) > 0 AND strpos(lower(:message), lower(btrim(keyword))) > 0)", { message: text });
          if (patterns.length) {
            where
              .orWhere('script.title ILIKE ANY (CAST(:patterns AS text[]))')
              .orWhere('script.content ILIKE ANY (CAST(:patterns AS text[]))')
              .orWhere('EXISTS (SELECT 1 FROM jsonb_array_elements_text(script.tags) tag WHERE tag ILIKE ANY (CAST(:patterns AS text[])))', { patterns });
          }
        }),
      )
      .orderBy('script.updated_at', 'DESC')
      .addOrderBy('script.id', 'ASC')
      .take(this.config.chatScripts.searchCandidates)
      .getMany();
    const candidates = rows.map((row) => ({ id: row.id, title: row.title, content: row.content, keywords: row.keywords, tags: row.tags, updatedAt: row.updatedAt.getTime(), row }));
    const ranked = rankScripts(candidates, text, limit);
    return ranked.map((match) => ({ script: toScriptContentDto(match.script.row), score: match.score, matchedKeywords: match.matchedKeywords, matchedTerms: match.matchedTerms }));
  }

  /**
   * The stored fields of a request: keywords and tags trimmed and kept once (case-insensitively), within the limits.
   * @throws BadRequestException (400) more than CHAT_SCRIPT_MAX_ITEMS attachments, keywords or tags
   * @throws ProblemException (413) text longer than CHAT_SCRIPT_CONTENT_MAX_CHARS
   */
  private checked(input: ScriptContentRequestV1): Pick<ScriptContentEntity, 'categoryId' | 'title' | 'content' | 'attachments' | 'keywords' | 'tags' | 'enabled'> {
    const { contentMaxChars, maxItems } = this.config.chatScripts;
    const length = [...input.content].length;
    if (length > contentMaxChars) throw new ProblemException(HttpStatus.PAYLOAD_TOO_LARGE, `The script text is ${length} characters; at most ${contentMaxChars} are allowed (CHAT_SCRIPT_CONTENT_MAX_CHARS).`);
    const attachments: ScriptAttachment[] = (input.attachments ?? []).map((attachment) =>
      Object.fromEntries(Object.entries({ ...attachment }).filter(([, value]) => value !== undefined)) as unknown as ScriptAttachment,
    );
    const keywords = distinct(input.keywords ?? []);
    const tags = distinct(input.tags ?? []);
    const problems = Object.entries({ attachments: attachments.length, keywords: keywords.length, tags: tags.length })
      .filter(([, count]) => count > maxItems)
      .map(([field, count]) => ({ field, messages: [`${field} has ${count} entries; at most ${maxItems} are allowed (CHAT_SCRIPT_MAX_ITEMS).`] }));
    if (problems.length) throw new BadRequestException({ message: problems.map((problem) => problem.messages[0]).join(' '), errors: problems });
    return { categoryId: input.categoryId, title: input.title, content: input.content, attachments, keywords, tags, enabled: input.enabled ?? true };
  }
}

/** Trimmed, non-empty, each kept once (case-insensitively; the first spelling wins). */
function distinct(items: string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const item of items.map((text) => text.trim()).filter(Boolean)) {
    const key = item.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(item);
  }
  return result;
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No script ${id} in this tenant.`);
}
