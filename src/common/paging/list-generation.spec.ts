import { generationKeyOf, generationSql, generationTablesOf, LIST_GENERATION_TABLES } from './list-generation';

describe('list generations (issue 14 acceptance 1: exact totals counted once per change)', () => {
  it('reads the tenant\'s row and the all-tenants row of a table with triggers, and refuses any other table', () => {
    expect(generationSql(['chat_external_contact'], 'tenant')).toBe(
      "(SELECT coalesce(sum(generation), 0)::text FROM list_generation WHERE table_name IN ('chat_external_contact') AND tenant_id IN (:tenant, '*'))",
    );
    expect(generationSql(['chat_contact_way', 'chat_external_contact'], 't')).toContain("table_name IN ('chat_contact_way', 'chat_external_contact') AND tenant_id IN (:t, '*')");
    expect(() => generationSql(['chat_work_user'], 'tenant')).toThrow('chat_work_user has no generation triggers');
    expect(() => generationSql(['chat_contact_way', "x' OR true --"], 'tenant')).toThrow('no generation triggers');
    expect(() => generationSql(['constructor'], 'tenant')).toThrow('no generation triggers');
    expect(() => generationSql([], 'tenant')).toThrow('no table');
  });

  it('covers filters of watched columns of tables with triggers only', () => {
    const contacts = 'SELECT 1 FROM "chat_external_contact" "contact" WHERE "contact"."tenant_id" = :tenantId AND "contact"."state" IN (:...states)';
    expect(generationTablesOf(contacts)).toEqual(['chat_external_contact']);
    // An unwatched column (a message's last_message_at bumps nothing) in the filter: not covered.
    expect(LIST_GENERATION_TABLES.chat_external_contact).toContain('last_message_at');
    expect(generationTablesOf(`${contacts} AND "contact"."last_message_at" >= :since`)).toBeUndefined();
    // Another table read by the filter (its changes bump nothing here): not covered, quoted or not.
    const ways = 'SELECT 1 FROM "chat_contact_way" "way" WHERE "way"."tenant_id" = :tenantId';
    expect(generationTablesOf(ways)).toEqual(['chat_contact_way']);
    expect(generationTablesOf(`${ways} AND EXISTS (SELECT 1 FROM chat_work_user staff WHERE staff.mobile = :mobile)`)).toBeUndefined();
    expect(generationTablesOf(`${ways} AND EXISTS (SELECT 1 FROM "chat_work_user" "staff" WHERE "staff"."mobile" = :mobile)`)).toBeUndefined();
    expect(generationTablesOf('SELECT 1 FROM "chat_contact_way" "way" INNER JOIN "chat_work_corp" "corp" ON "corp"."id" = "way"."corp_id"')).toBeUndefined();
    // A table without triggers.
    expect(generationTablesOf('SELECT 1 FROM "chat_work_user" "user"')).toBeUndefined();
  });

  it('reads the rooms and their access rows from one shared row (one lock per writer of a tenant), unless the filter names an unwatched column', () => {
    const rooms =
      'SELECT 1 FROM "chat_group_room" "room" INNER JOIN "chat_group_room_access" "access" ON "access"."group_room_id" = "room"."id" WHERE "access"."tenant_id" = :tenantId AND "room"."ai_enabled" = :aiEnabled';
    expect(generationKeyOf('chat_group_room_access')).toBe('chat_group_room');
    expect(generationKeyOf('chat_contact_way')).toBe('chat_contact_way');
    expect(generationTablesOf(rooms)).toEqual(['chat_group_room']);
    expect(generationTablesOf(`${rooms} AND "access"."member_count" > 3`)).toBeUndefined();
    expect(generationTablesOf('SELECT 1 FROM "chat_group_room" "room" INNER JOIN "chat_external_contact" "c" ON "c"."tenant_id" = "room"."tenant_id"')).toEqual(['chat_external_contact', 'chat_group_room']);
    expect(generationTablesOf('SELECT 1')).toBeUndefined();
  });
});
