import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 acceptance 1 (page 0 of every list flat from 10k to 1M rows), for a staff member's group rooms
 * (`GET {C}/workChat/{workChatUserId}/contact/room`): the rooms they own or are a staff member of. "Owns or is a member
 * of" is an OR across two tables, so no index of `chat_group_room` is in the page's order behind it: the list walked the
 * tenant's sort index and tested each room (7.9× growth for `sort=name` at 1M rows), or read every room of the staff
 * member and sorted them.
 *
 * `chat_group_room_access` holds one row per (tenant, staff member, room) the staff member has (owner, or member of
 * type 1), with the room's sort keys copied, and one index per accepted sort behind (tenant, staff member), the room id
 * as tie-breaker. A page reads its rows in order from one of them and the rooms by primary key. Triggers keep it
 * exact in the writer's own transaction, whoever writes:
 * - rooms inserted: their owner's rows (and any members' already stored), statement-level (a bulk load folds in one pass);
 * - rooms updated (owner, tenant or a sort key), members inserted, updated or deleted: the rooms concerned are
 *   refreshed by `chat_group_room_access_refresh(ids)`, which locks them first (in id order), so two transactions
 *   changing one room's members settle on what the later one sees;
 * - rooms deleted or truncated, members truncated: their rows go.
 * The keyword search reads the same rows: a GIN over the copied names' grams scoped by tenant `/` staff member (the
 * pattern of 1795600700000), so a rare term costs its matches among the staff member's rooms, the ones they are a
 * member of included (1795600720000 scoped them by owner and read every member room by id: a staff member is a
 * member of each room they own, so a rare term read all their rooms).
 * The indexes only this list used are dropped: the tenant's sort indexes of the rooms (1795600200000), the rooms'
 * owner-scoped grams and the members' (tenant, member) index (1795600720000).
 */
export class GroupRoomAccess1795600760000 implements MigrationInterface {
  name = 'GroupRoomAccess1795600760000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_group_room_access (
        tenant_id varchar(63) NOT NULL,
        work_chat_user_id varchar(64) NOT NULL,
        group_room_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        name varchar(128) NOT NULL,
        member_count integer NOT NULL,
        PRIMARY KEY (tenant_id, work_chat_user_id, group_room_id)
      )`);
    for (const key of SORT_KEYS) {
      await queryRunner.query(`CREATE INDEX ix_ls_chat_group_room_access_${key} ON chat_group_room_access (tenant_id, work_chat_user_id, ${key}, group_room_id)`);
    }
    await queryRunner.query(`CREATE INDEX ix_chat_group_room_access_room ON chat_group_room_access (group_room_id)`);
    await queryRunner.query(`CREATE INDEX ix_gr_chat_group_room_access_name_scoped ON chat_group_room_access USING gin (atrium_scoped_grams(tenant_id || '/' || work_chat_user_id, name))`);
    // Who has a room, written once: its owner and its staff members (type 1). A single-SELECT SQL function, which the
    // planner inlines into each statement below.
    await queryRunner.query(`
      CREATE FUNCTION chat_group_room_staff(room_tenant_id text, room_id uuid, room_owner text) RETURNS SETOF text LANGUAGE sql STABLE AS $$
        SELECT room_owner
        UNION
        SELECT m.member_user_id FROM chat_group_member m WHERE m.tenant_id = room_tenant_id AND m.group_room_id = room_id AND m.member_type = 1
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION chat_group_room_access_refresh(room_ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF room_ids IS NULL OR cardinality(room_ids) = 0 THEN
          RETURN;
        END IF;
        -- The ids are joined (unnest), never compared with = ANY: a bulk write passes 100,000 of them.
        -- Two writers of one room's members take turns here; each later statement sees what the other committed.
        PERFORM 1 FROM chat_group_room r JOIN (SELECT DISTINCT unnest(room_ids) AS id) AS ids ON ids.id = r.id ORDER BY r.id FOR UPDATE OF r;
        DELETE FROM chat_group_room_access a
         USING (SELECT DISTINCT unnest(room_ids) AS id) AS ids
         WHERE a.group_room_id = ids.id
           AND NOT EXISTS (
             SELECT 1 FROM chat_group_room r
              CROSS JOIN LATERAL chat_group_room_staff(r.tenant_id, r.id, r.owner_work_chat_user_id) AS staff(user_id)
              WHERE r.id = a.group_room_id AND r.tenant_id = a.tenant_id AND staff.user_id = a.work_chat_user_id);
        INSERT INTO chat_group_room_access AS a (tenant_id, work_chat_user_id, group_room_id, created_at, updated_at, name, member_count)
        SELECT r.tenant_id, staff.user_id, r.id, r.created_at, r.updated_at, r.name, r.member_count
          FROM chat_group_room r
          JOIN (SELECT DISTINCT unnest(room_ids) AS id) AS ids ON ids.id = r.id
         CROSS JOIN LATERAL chat_group_room_staff(r.tenant_id, r.id, r.owner_work_chat_user_id) AS staff(user_id)
        ON CONFLICT (tenant_id, work_chat_user_id, group_room_id) DO UPDATE
          SET created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, name = EXCLUDED.name, member_count = EXCLUDED.member_count
          WHERE (a.created_at, a.updated_at, a.name, a.member_count) IS DISTINCT FROM (EXCLUDED.created_at, EXCLUDED.updated_at, EXCLUDED.name, EXCLUDED.member_count);
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION chat_group_room_access_rooms() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          TRUNCATE chat_group_room_access;
        ELSIF TG_OP = 'INSERT' THEN
          -- New rooms are this transaction's own: no other writer can reach them yet.
          INSERT INTO chat_group_room_access (tenant_id, work_chat_user_id, group_room_id, created_at, updated_at, name, member_count)
          SELECT r.tenant_id, staff.user_id, r.id, r.created_at, r.updated_at, r.name, r.member_count
            FROM new_rooms r
           CROSS JOIN LATERAL chat_group_room_staff(r.tenant_id, r.id, r.owner_work_chat_user_id) AS staff(user_id)
          ON CONFLICT DO NOTHING;
        ELSIF TG_OP = 'UPDATE' THEN
          PERFORM chat_group_room_access_refresh(ARRAY(
            SELECT n.id FROM new_rooms n JOIN old_rooms o ON o.id = n.id
             WHERE (o.tenant_id, o.owner_work_chat_user_id, o.created_at, o.updated_at, o.name, o.member_count)
                   IS DISTINCT FROM (n.tenant_id, n.owner_work_chat_user_id, n.created_at, n.updated_at, n.name, n.member_count)));
        ELSE
          DELETE FROM chat_group_room_access WHERE group_room_id IN (SELECT id FROM old_rooms);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION chat_group_room_access_members() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM chat_group_room_access a
           WHERE NOT EXISTS (SELECT 1 FROM chat_group_room r WHERE r.id = a.group_room_id AND r.tenant_id = a.tenant_id AND r.owner_work_chat_user_id = a.work_chat_user_id);
        ELSIF TG_OP = 'INSERT' THEN
          PERFORM chat_group_room_access_refresh(ARRAY(SELECT DISTINCT group_room_id FROM new_members WHERE member_type = 1));
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM chat_group_room_access_refresh(ARRAY(SELECT DISTINCT group_room_id FROM old_members WHERE member_type = 1));
        ELSE
          PERFORM chat_group_room_access_refresh(ARRAY(
            SELECT DISTINCT touched.id FROM (
              SELECT o.group_room_id AS old_room_id, n.group_room_id AS new_room_id FROM new_members n JOIN old_members o ON o.id = n.id
               WHERE (o.member_type = 1 OR n.member_type = 1)
                 AND (o.tenant_id, o.group_room_id, o.member_user_id, o.member_type) IS DISTINCT FROM (n.tenant_id, n.group_room_id, n.member_user_id, n.member_type)
            ) AS changed CROSS JOIN LATERAL (VALUES (changed.old_room_id), (changed.new_room_id)) AS touched(id)));
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER chat_group_room_access_insert AFTER INSERT ON chat_group_room REFERENCING NEW TABLE AS new_rooms FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_rooms()`);
    await queryRunner.query(
      `CREATE TRIGGER chat_group_room_access_update AFTER UPDATE ON chat_group_room REFERENCING OLD TABLE AS old_rooms NEW TABLE AS new_rooms FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_rooms()`,
    );
    await queryRunner.query(`CREATE TRIGGER chat_group_room_access_delete AFTER DELETE ON chat_group_room REFERENCING OLD TABLE AS old_rooms FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_rooms()`);
    await queryRunner.query(`CREATE TRIGGER chat_group_room_access_truncate AFTER TRUNCATE ON chat_group_room FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_rooms()`);
    await queryRunner.query(`CREATE TRIGGER chat_group_member_access_insert AFTER INSERT ON chat_group_member REFERENCING NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_members()`);
    await queryRunner.query(
      `CREATE TRIGGER chat_group_member_access_update AFTER UPDATE ON chat_group_member REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_members()`,
    );
    await queryRunner.query(`CREATE TRIGGER chat_group_member_access_delete AFTER DELETE ON chat_group_member REFERENCING OLD TABLE AS old_members FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_members()`);
    await queryRunner.query(`CREATE TRIGGER chat_group_member_access_truncate AFTER TRUNCATE ON chat_group_member FOR EACH STATEMENT EXECUTE FUNCTION chat_group_room_access_members()`);
    // Backfill: every room's owner and staff members.
    await queryRunner.query(`
      INSERT INTO chat_group_room_access (tenant_id, work_chat_user_id, group_room_id, created_at, updated_at, name, member_count)
      SELECT r.tenant_id, staff.user_id, r.id, r.created_at, r.updated_at, r.name, r.member_count
        FROM chat_group_room r
       CROSS JOIN LATERAL chat_group_room_staff(r.tenant_id, r.id, r.owner_work_chat_user_id) AS staff(user_id)`);
    for (const key of SORT_KEYS) await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_group_room_tenant_id_${key}_id`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_group_room_name_scoped`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_group_member_tenant_member`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_group_member_tenant_member ON chat_group_member (tenant_id, member_user_id, group_room_id)`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_group_room_name_scoped ON chat_group_room USING gin (atrium_scoped_grams(tenant_id || '/' || owner_work_chat_user_id, name))`);
    for (const key of SORT_KEYS) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_group_room_tenant_id_${key}_id ON chat_group_room (tenant_id, ${key}, id)`);
    for (const trigger of ['insert', 'update', 'delete', 'truncate']) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS chat_group_room_access_${trigger} ON chat_group_room`);
      await queryRunner.query(`DROP TRIGGER IF EXISTS chat_group_member_access_${trigger} ON chat_group_member`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS chat_group_room_access_members()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS chat_group_room_access_rooms()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS chat_group_room_access_refresh(uuid[])`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS chat_group_room_staff(text, uuid, text)`);
    await queryRunner.query(`DROP TABLE IF EXISTS chat_group_room_access`);
  }
}

/** The accepted sorts of the list (GROUP_ROOM_SORT_FIELDS), as columns. */
const SORT_KEYS = ['created_at', 'updated_at', 'name', 'member_count'];
