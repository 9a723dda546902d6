import { BadRequestException, ConflictException, HttpStatus, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, QueryFailedError, Raw } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { buildCategoryTree, categoryNameKey, findMoveCycle, normalizeCategoryName, pathTo } from './category-tree';
import {
  FILE_CATEGORY_SORT_FIELDS,
  CreateFileCategoryDto,
  FileCategoryDeletionDto,
  FileCategoryDetailDto,
  FileCategoryDto,
  FileCategoryQueryDto,
  FileCategoryTreeDto,
  toFileCategoryDto,
  toFileCategoryTreeNodeDto,
  UpdateFileCategoryDto,
} from './file-categories.dto';
import { FileCategoryEntity } from './file-category.entity';
import { FilesService } from './files.service';
import { StoredFileEntity } from './stored-file.entity';
import { containsMatch } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Serialises changes of the tree's shape (create, rename, move, delete) across instances: a transaction-scoped advisory lock. */
const TREE_LOCK = `SELECT pg_advisory_xact_lock(hashtext('eval_file_category_tree'))`;

/** `id` and every category below it. UNION (not UNION ALL) so even a corrupted loop terminates. */
const SUBTREE = `
  WITH RECURSIVE subtree(id) AS (
    SELECT id FROM eval_file_category WHERE id = $1
    UNION
    SELECT child.id FROM eval_file_category child JOIN subtree ON child.parent_id = subtree.id
  )
  SELECT id FROM subtree`;

/** `id` and every category above it (unordered; pathTo orders them). */
const ANCESTORS = `
  WITH RECURSIVE chain(id, name, parent_id) AS (
    SELECT id, name, parent_id FROM eval_file_category WHERE id = $1
    UNION
    SELECT parent.id, parent.name, parent.parent_id FROM eval_file_category parent JOIN chain ON parent.id = chain.parent_id
  )
  SELECT id, name, parent_id FROM chain`;

/** PostgreSQL unique_violation. */
function isUniqueViolation(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string } | undefined)?.code === '23505';
}

/** `n thing(s)` with the right plural. */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The evaluation file category tree (issue 4: Files): nested categories, rename, move (no cycles), delete only when
 * empty or with `recursive`. Every change of the tree's shape runs in one transaction under {@link TREE_LOCK}, so
 * two concurrent moves cannot together build a loop and a category cannot gain a child while it is being deleted;
 * files put into a category hold a FOR SHARE lock on it (FilesService), which the deletion's FOR UPDATE waits for.
 */
@Injectable()
export class FileCategoriesService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly files: FilesService,
  ) {}

  /**
   * @throws BadRequestException (400) invalid name; NotFoundException (404) unknown parent;
   *   ConflictException (409) a sibling has the same name (ignoring case)
   */
  async create(input: CreateFileCategoryDto): Promise<FileCategoryDto> {
    const name = this.validName(input.name);
    const parentId = input.parent_id ?? null;
    const row = await this.inTreeTransaction(async (manager) => {
      if (parentId) await this.findIn(manager, parentId, 'parent');
      await this.assertNameFree(manager, parentId, name);
      return manager.save(manager.create(FileCategoryEntity, { name, nameKey: categoryNameKey(name), parentId }));
    });
    return toFileCategoryDto(row);
  }

  /** The whole tree with direct file counts, and the number of files in no category. */
  async tree(): Promise<FileCategoryTreeDto> {
    const rows = await this.dataSource.getRepository(FileCategoryEntity).find({ select: { id: true, name: true, parentId: true } });
    const counts: { category_id: string | null; files: number }[] = await this.dataSource.query(
      `SELECT category_id, count(*)::int AS files FROM eval_file GROUP BY category_id`,
    );
    const fileCounts = new Map(counts.filter((entry) => entry.category_id !== null).map((entry) => [entry.category_id as string, entry.files]));
    return {
      categories: buildCategoryTree(rows, fileCounts).map(toFileCategoryTreeNodeDto),
      uncategorized_file_count: counts.find((entry) => entry.category_id === null)?.files ?? 0,
    };
  }

  /** Flat, paged: by name; filter by parent (`root` = top level) and name. Sortable by name, createdAt. */
  async list(query: FileCategoryQueryDto): Promise<Page<FileCategoryDto>> {
    const order = toOrder(query.sort, FILE_CATEGORY_SORT_FIELDS, { nameKey: 'ASC' });
    const where = {
      ...(query.parent_id ? { parentId: query.parent_id === 'root' ? IsNull() : query.parent_id.toLowerCase() } : {}),
      ...(query.q ? { name: Raw((column) => containsMatch(column, 'q', query.q!)[0], containsMatch('', 'q', query.q)[1]) } : {}),
    };
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(FileCategoryEntity), {
      where,
      order,
      // A name search counts exactly only up to PAGING_SEARCH_TOTAL_EXACT_CAP (docs/lists-and-search.md).
    }, query, { search: Boolean(query.q) });
    return toPage(rows.map(toFileCategoryDto), slice, query);
  }

  /** A category with its path from the top level and its counts. @throws NotFoundException (404) */
  async get(id: string): Promise<FileCategoryDetailDto> {
    const manager = this.dataSource.manager;
    const row = await this.findIn(manager, id);
    const chain = await this.ancestors(manager, id);
    const [fileCount, subcategoryCount] = await Promise.all([
      manager.countBy(StoredFileEntity, { categoryId: id }),
      manager.countBy(FileCategoryEntity, { parentId: id }),
    ]);
    const names = new Map(chain.map((entry) => [entry.id, entry.name]));
    const path = pathTo(id, (key) => chain.find((entry) => entry.id === key)?.parent_id).map((key) => ({ id: key, name: names.get(key) ?? '' }));
    return { ...toFileCategoryDto(row), path, file_count: fileCount, subcategory_count: subcategoryCount };
  }

  /**
   * Renames and/or moves a category (`parent_id`: a category, null = top level, omitted = stay).
   * @throws BadRequestException (400) invalid name; NotFoundException (404) unknown category or new parent;
   *   ProblemException (409) the move would put the category inside itself (`cycle`: the chain of ids);
   *   ConflictException (409) a sibling at the destination has the same name
   */
  async update(id: string, input: UpdateFileCategoryDto): Promise<FileCategoryDto> {
    const name = input.name === undefined ? undefined : this.validName(input.name);
    const row = await this.inTreeTransaction(async (manager) => {
      const category = await this.findIn(manager, id);
      const parentId = input.parent_id === undefined ? category.parentId : input.parent_id === null ? null : input.parent_id.toLowerCase();
      if (parentId !== null && parentId !== category.parentId) {
        const chain = await this.ancestors(manager, parentId);
        if (chain.length === 0) throw new NotFoundException(`No file category ${parentId} (parent_id).`);
        const cycle = findMoveCycle(id, parentId, (key) => chain.find((entry) => entry.id === key)?.parent_id);
        if (cycle) {
          const names = cycle.map((key) => chain.find((entry) => entry.id === key)?.name ?? key);
          const target = names[names.length - 1];
          throw new ProblemException(
            HttpStatus.CONFLICT,
            cycle.length === 1
              ? `Cannot move category "${category.name}" into itself.`
              : `Cannot move category "${category.name}" into "${target}": "${target}" is inside "${category.name}" (${names.join(' › ')}), so the move would make a loop.`,
            { cycle },
          );
        }
      }
      const newName = name ?? category.name;
      if (parentId !== category.parentId || categoryNameKey(newName) !== category.nameKey) await this.assertNameFree(manager, parentId, newName, id);
      category.name = newName;
      category.nameKey = categoryNameKey(newName);
      category.parentId = parentId;
      return manager.save(category);
    });
    return toFileCategoryDto(row);
  }

  /**
   * Deletes a category. Without `recursive`, only an empty one (no files, no subcategories), else 409 with the
   * counts. With `recursive`, the category, every subcategory and every file below go in one transaction; the files'
   * stored contents are removed after the commit (FilesService.discardBlobs: a failed removal is logged and leaves
   * an orphaned blob, never a row without content).
   * @throws NotFoundException (404); ProblemException (409) not empty (`file_count`, `subcategory_count`)
   */
  async remove(id: string, recursive: boolean): Promise<FileCategoryDeletionDto> {
    const { keys, categories } = await this.inTreeTransaction(async (manager) => {
      const category = await this.findIn(manager, id);
      const subtree = ((await manager.query(SUBTREE, [id])) as { id: string }[]).map((entry) => entry.id);
      // Waits for uploads and moves into these categories that hold FOR SHARE, and blocks new ones until the commit.
      await manager.query(`SELECT id FROM eval_file_category WHERE id = ANY($1::uuid[]) FOR UPDATE`, [subtree]);
      if (!recursive) {
        const fileCount = await manager.countBy(StoredFileEntity, { categoryId: id });
        const subcategoryCount = await manager.countBy(FileCategoryEntity, { parentId: id });
        if (fileCount > 0 || subcategoryCount > 0) {
          throw new ProblemException(
            HttpStatus.CONFLICT,
            `Category "${category.name}" is not empty: it holds ${count(fileCount, 'file', 'files')} and ${count(subcategoryCount, 'subcategory', 'subcategories')}. ` +
              'Move or delete them first, or delete with recursive=true to remove the category, everything below it and the files\' contents.',
            { file_count: fileCount, subcategory_count: subcategoryCount },
          );
        }
      }
      const deleted = await manager
        .createQueryBuilder()
        .delete()
        .from(StoredFileEntity)
        .where('category_id IN (:...subtree)', { subtree })
        .returning('storage_key')
        .execute();
      await manager.query(`DELETE FROM eval_file_category WHERE id = ANY($1::uuid[])`, [subtree]);
      return { keys: (deleted.raw as { storage_key: string }[]).map((entry) => entry.storage_key), categories: subtree.length };
    });
    await this.files.discardBlobs(keys);
    return { deleted_categories: categories, deleted_files: keys.length };
  }

  /** A valid stored name. @throws BadRequestException (400) with the reason */
  private validName(raw: string): string {
    const result = normalizeCategoryName(raw);
    if ('error' in result) throw new BadRequestException(result.error);
    return result.name;
  }

  /** Runs `work` in a transaction holding the tree lock; a unique violation (a concurrent same-name sibling) becomes 409. */
  private async inTreeTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        await manager.query(TREE_LOCK);
        return work(manager);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException('A category with this name already exists at this place of the tree.');
      throw error;
    }
  }

  /** @throws NotFoundException (404), naming the role of the id (`parent`) when it is not the path's */
  private async findIn(manager: EntityManager, id: string, role?: 'parent'): Promise<FileCategoryEntity> {
    const row = await manager.findOneBy(FileCategoryEntity, { id });
    if (!row) throw new NotFoundException(role ? `No file category ${id} (parent_id).` : `No file category ${id}.`);
    return row;
  }

  /** `id` and its ancestors; empty when `id` is unknown. */
  private ancestors(manager: EntityManager, id: string): Promise<{ id: string; name: string; parent_id: string | null }[]> {
    return manager.query(ANCESTORS, [id]);
  }

  /** @throws ProblemException (409) a category under `parentId` other than `exceptId` has this name (ignoring case) */
  private async assertNameFree(manager: EntityManager, parentId: string | null, name: string, exceptId?: string): Promise<void> {
    const existing = await manager.findOneBy(FileCategoryEntity, { parentId: parentId ?? IsNull(), nameKey: categoryNameKey(name) });
    if (existing && existing.id !== exceptId) {
      throw new ProblemException(
        HttpStatus.CONFLICT,
        `A category named "${existing.name}" already exists ${parentId ? 'in that category' : 'at the top level'}; sibling names must differ (ignoring case).`,
        { conflicting_category_id: existing.id },
      );
    }
  }
}
