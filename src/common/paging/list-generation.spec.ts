import { generationCovers, generationSql, LIST_GENERATION_TABLES } from './list-generation';

describe('list generations (issue 14 acceptance 1: exact totals counted once per change)', () => {
  it('reads the tenant\'s row and the all-tenants row of a table with triggers, and refuses any other table', () => {
    expect(generationSql('chat_external_contact', 'tenant')).toBe(
      "(SELECT coalesce(sum(generation), 0)::text FROM list_generation WHERE table_name = 'chat_external_contact' AND tenant_id IN (:tenant, '*'))",
    );
    expect(() => generationSql('chat_work_user', 'tenant')).toThrow('chat_work_user has no generation triggers');
    expect(() => generationSql("x' OR true --", 'tenant')).toThrow('no generation triggers');
    expect(() => generationSql('constructor', 'tenant')).toThrow('no generation triggers');
  });

  it('covers filters of the table\'s own watched columns only', () => {
    const contacts = 'SELECT 1 FROM "chat_external_contact" "contact" WHERE "contact"."tenant_id" = :tenantId AND "contact"."state" IN (:...states)';
    expect(generationCovers('chat_external_contact', contacts)).toBe(true);
    // An unwatched column (a message's last_message_at bumps nothing) in the filter: not covered.
    expect(LIST_GENERATION_TABLES.chat_external_contact).toContain('last_message_at');
    expect(generationCovers('chat_external_contact', `${contacts} AND "contact"."last_message_at" >= :since`)).toBe(false);
    // Another table read by the filter (its changes bump nothing here): not covered, quoted or not.
    const ways = 'SELECT 1 FROM "chat_contact_way" "way" WHERE "way"."tenant_id" = :tenantId';
    expect(generationCovers('chat_contact_way', ways)).toBe(true);
    expect(generationCovers('chat_contact_way', `${ways} AND EXISTS (SELECT 1 FROM chat_work_user staff WHERE staff.mobile = :mobile)`)).toBe(false);
    expect(generationCovers('chat_contact_way', `${ways} AND EXISTS (SELECT 1 FROM "chat_work_user" "staff" WHERE "staff"."mobile" = :mobile)`)).toBe(false);
    expect(generationCovers('chat_contact_way', 'SELECT 1 FROM "chat_contact_way" "way" INNER JOIN "chat_work_corp" "corp" ON "corp"."id" = "way"."corp_id"')).toBe(false);
    // A table without triggers.
    expect(generationCovers('chat_work_user', 'SELECT 1 FROM "chat_work_user" "user"')).toBe(false);
  });
});
