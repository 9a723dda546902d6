import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { lockTenantResource } from '../common/db-support';
import { ScriptCategoryEntity } from './script-category.entity';
import { ScriptContentEntity } from './script-content.entity';
import { buildCategoryTree, CategoryTreeNode, checkCategoryPlacement, subtreeIds } from './script-tree.rules';
import { ScriptCategoryDtoV1, ScriptCategoryRequestV1, ScriptCategoryTreeDtoV1, toScriptCategoryDto } from './scripts.dto';

/** Advisory-lock name of the category tree (db-support.ts lockTenantResource). */
export const SCRIPT_TREE_LOCK = 'chat_script_category';

/**
 * Script categories as a tree (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/chat/script-category/{id}`; issue 6, Scripts). Every write holds the tenant's tree lock, so the rules that
 * span rows stay true under concurrency: sibling names are unique, a move never makes a cycle, the tree is at most
 * CHAT_SCRIPT_CATEGORY_MAX_DEPTH levels deep and has at most CHAT_SCRIPT_MAX_CATEGORIES categories (409 otherwise).
 * Deleting a category with subcategories or scripts is refused (409) unless `recursive`, which deletes the whole
 * subtree and its scripts in one transaction.
 */
@Injectable()
export class ScriptCategoriesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The tenant's whole tree: roots, each with its children, siblings by sortOrder then name. */
  async tree(tenantId: string): Promise<ScriptCategoryTreeDtoV1[]> {
    const rows = await this.dataSource.getRepository(ScriptCategoryEntity).findBy({ tenantId });
    const counts = await this.contentCounts(this.dataSource.manager, tenantId, rows.map((row) => row.id));
    const toTree = (node: CategoryTreeNode<ScriptCategoryEntity>): ScriptCategoryTreeDtoV1 => ({
      ...toScriptCategoryDto(node, counts.get(node.id) ?? 0),
      children: node.children.map(toTree),
    });
    return buildCategoryTree(rows).map(toTree);
  }

  /**
   * @throws NotFoundException (404) unknown parent
   * @throws ConflictException (409) a sibling has the name, the tree would be too deep, or the tenant has
   *   CHAT_SCRIPT_MAX_CATEGORIES categories
   */
  async create(tenantId: string, input: ScriptCategoryRequestV1): Promise<ScriptCategoryDtoV1> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantResource(manager, SCRIPT_TREE_LOCK, tenantId);
      const rows = await this.links(manager, tenantId);
      const max = this.config.chatScripts.maxCategories;
      if (rows.length >= max) throw new ConflictException(`The tenant already has ${rows.length} script categories; at most ${max} are allowed (CHAT_SCRIPT_MAX_CATEGORIES).`);
      const parentId = input.parentId ?? null;
      this.checkPlacement(rows, 'new', parentId);
      await this.assertSiblingNameFree(manager, tenantId, parentId, input.name, null);
      const row = manager.getRepository(ScriptCategoryEntity).create({ tenantId, parentId, name: input.name, sortOrder: input.sortOrder ?? 0, description: input.description || null });
      await manager.save(row);
      return toScriptCategoryDto(row, 0);
    });
  }

  /** @throws NotFoundException (404) no such category in the tenant */
  async get(tenantId: string, id: string): Promise<ScriptCategoryDtoV1> {
    const row = await this.find(this.dataSource.manager, tenantId, id);
    return toScriptCategoryDto(row, (await this.contentCounts(this.dataSource.manager, tenantId, [id])).get(id) ?? 0);
  }

  /**
   * Replaces name, parent, sortOrder and description; a new parent moves the category with its subtree.
   * @throws NotFoundException (404) unknown category or parent
   * @throws ConflictException (409) a cycle, too deep a tree, or a sibling with the name
   */
  async update(tenantId: string, id: string, input: ScriptCategoryRequestV1): Promise<ScriptCategoryDtoV1> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantResource(manager, SCRIPT_TREE_LOCK, tenantId);
      const row = await this.find(manager, tenantId, id);
      const parentId = input.parentId ?? null;
      if (parentId !== row.parentId) this.checkPlacement(await this.links(manager, tenantId), id, parentId);
      if (parentId !== row.parentId || input.name !== row.name) await this.assertSiblingNameFree(manager, tenantId, parentId, input.name, id);
      row.parentId = parentId;
      row.name = input.name;
      row.sortOrder = input.sortOrder ?? 0;
      row.description = input.description || null;
      await manager.save(row);
      return toScriptCategoryDto(row, (await this.contentCounts(manager, tenantId, [id])).get(id) ?? 0);
    });
  }

  /**
   * Deletes a category; with `recursive`, every category below it and the scripts of all of them.
   * @throws NotFoundException (404); ConflictException (409) not empty and `recursive` not set
   */
  async remove(tenantId: string, id: string, recursive: boolean): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await lockTenantResource(manager, SCRIPT_TREE_LOCK, tenantId);
      const row = await this.find(manager, tenantId, id);
      const ids = subtreeIds(await this.links(manager, tenantId), id);
      // Row locks first: a script being written into one of these categories (which read-locks it) finishes before we count.
      await manager.getRepository(ScriptCategoryEntity).find({ where: { tenantId, id: In(ids) }, lock: { mode: 'pessimistic_write' } });
      const contents = await manager.getRepository(ScriptContentEntity).countBy({ tenantId, categoryId: In(ids) });
      if (!recursive && (ids.length > 1 || contents > 0)) {
        throw new ConflictException(
          `Category "${row.name}" has ${ids.length - 1} subcategories and ${contents} scripts; empty it first, or delete with ?recursive=true to remove them too.`,
        );
      }
      await manager.getRepository(ScriptContentEntity).delete({ tenantId, categoryId: In(ids) });
      await manager.getRepository(ScriptCategoryEntity).delete({ tenantId, id: In(ids) });
    });
  }

  /**
   * A category of the tenant, read-locked when `lockForShare` (so it cannot be deleted until the transaction ends).
   * @throws NotFoundException (404)
   */
  async find(manager: EntityManager, tenantId: string, id: string, lockForShare = false): Promise<ScriptCategoryEntity> {
    const row = await manager.getRepository(ScriptCategoryEntity).findOne({ where: { tenantId, id }, ...(lockForShare ? { lock: { mode: 'pessimistic_read' as const } } : {}) });
    if (!row) throw new NotFoundException(`No script category ${id} in this tenant.`);
    return row;
  }

  /** @throws NotFoundException (404) unknown parent; ConflictException (409) a cycle or too deep a tree */
  private checkPlacement(rows: { id: string; parentId: string | null }[], id: string, parentId: string | null): void {
    if (parentId !== null && !rows.some((row) => row.id === parentId)) throw new NotFoundException(`No script category ${parentId} in this tenant (parentId).`);
    const problem = checkCategoryPlacement(rows, id, parentId, this.config.chatScripts.maxDepth);
    if (problem) throw new ConflictException(problem.message);
  }

  private async assertSiblingNameFree(manager: EntityManager, tenantId: string, parentId: string | null, name: string, selfId: string | null): Promise<void> {
    const builder = manager
      .getRepository(ScriptCategoryEntity)
      .createQueryBuilder('category')
      .where('category.tenant_id = :tenantId AND category.name = :name', { tenantId, name })
      .andWhere(parentId === null ? 'category.parent_id IS NULL' : 'category.parent_id = :parentId', { parentId });
    if (selfId) builder.andWhere('category.id <> :selfId', { selfId });
    if (await builder.getExists()) {
      throw new ConflictException(parentId === null ? `There already is a root script category named "${name}".` : `Category ${parentId} already has a subcategory named "${name}".`);
    }
  }

  private links(manager: EntityManager, tenantId: string): Promise<{ id: string; parentId: string | null }[]> {
    return manager.getRepository(ScriptCategoryEntity).find({ where: { tenantId }, select: { id: true, parentId: true } });
  }

  private async contentCounts(manager: EntityManager, tenantId: string, ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await manager.query<{ category_id: string; count: string }[]>(
      'SELECT category_id, count(*)::text AS count FROM chat_script_content WHERE tenant_id = $1 AND category_id = ANY($2::uuid[]) GROUP BY category_id',
      [tenantId, ids],
    );
    return new Map(rows.map((row) => [row.category_id, Number(row.count)]));
  }
}
