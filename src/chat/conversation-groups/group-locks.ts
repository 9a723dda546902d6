import { type EntityManager, In } from 'typeorm';
import { ConversationGroupEntity } from './conversation-group.entity';

/**
 * Locks conversation group rows of a tenant inside the caller's transaction, in id order (so two writers locking
 * overlapping sets cannot deadlock), and returns the rows found.
 * - `update` (`FOR UPDATE`): writers that count or replace a group's children (trigger and event definition
 *   creation, group deletion) — they serialise per group.
 * - `share` (`FOR SHARE`): writers that only need the group to exist until they commit (a conversation or channel
 *   pointing at it); a concurrent deletion waits for them, then sees their rows.
 * @param ids group ids (duplicates allowed)
 * @returns the locked rows by id; ids not found in the tenant are absent
 */
export async function lockConversationGroups(manager: EntityManager, tenantId: string, ids: readonly string[], mode: 'update' | 'share'): Promise<Map<string, ConversationGroupEntity>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await manager.getRepository(ConversationGroupEntity).find({
    where: { tenantId, id: In(unique) },
    order: { id: 'ASC' },
    lock: { mode: mode === 'update' ? 'pessimistic_write' : 'pessimistic_read' },
  });
  return new Map(rows.map((row) => [row.id, row]));
}
