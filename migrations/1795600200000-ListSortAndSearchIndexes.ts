import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 items 1 and 2: every sort a list accepts has an index in that order behind the list's tenant/owner filter,
 * the id as tie-breaker; every contains-search has a GIN index.
 *
 * Sort indexes. The ListPager (src/common/paging/list-pager.ts) breaks ties by the id in the first key's direction,
 * so one ascending index `(filter…, key, id)` serves `key,asc` forwards and `key,desc` backwards. The chat contact
 * lists sort `DESC NULLS LAST` / `ASC NULLS FIRST` with the id the other way (their established order), and the
 * intention records `DESC NULLS LAST` with the id alike: their indexes are written in that exact order.
 *
 * Search. `pg_trgm` (trusted since PostgreSQL 13: the database owner may create it) gives each searched column a
 * `gin_trgm_ops` index, which serves `ILIKE '%term%'` for terms of 3+ characters. Trigrams need 3 characters, and
 * Chinese names are 2–3 with surname searches of 1–2: `atrium_grams(text)` (the lower-cased value's distinct
 * characters and bigrams) gets a GIN index per column too, and `atrium_term_grams(term)` (the term's bigrams, or its
 * one character) selects candidates by containment; the ILIKE stays as the final check (src/database/like-contains.ts),
 * so results are identical to a scan's. Where `pg_trgm` cannot be created, the migration goes on without it and every
 * term takes the grams path (the app learns which at start-up).
 */
export class ListSortAndSearchIndexes1795600200000 implements MigrationInterface {
  name = 'ListSortAndSearchIndexes1795600200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $trgm$ BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
      EXCEPTION WHEN others THEN
        RAISE WARNING 'pg_trgm is not available (%): contains-searches use the character/bigram indexes only', SQLERRM;
      END $trgm$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_grams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT gram), '{}') FROM (
          SELECT substr(l, i, n) AS gram
            FROM (SELECT lower(value) AS l) AS lowered, generate_series(1, length(l)) AS i, (VALUES (1), (2)) AS size(n)
           WHERE i + n - 1 <= length(l)
        ) AS grams
      $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_term_grams(term text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT CASE WHEN length(l) <= 1 THEN ARRAY[l]
                    ELSE ARRAY(SELECT DISTINCT substr(l, i, 2) FROM generate_series(1, length(l) - 1) AS i) END
          FROM (SELECT lower(term) AS l) AS lowered
      $$`);
    const trigrams = ((await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)) as unknown[]).length > 0;
    for (const [table, column] of SEARCHED_COLUMNS) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ${indexName('gr', table, column)} ON ${table} USING gin (atrium_grams(${column}))`);
      if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ${indexName('tg', table, column)} ON ${table} USING gin (${column} gin_trgm_ops)`);
    }
    for (const [table, filter, keys, include] of SORT_INDEXES) {
      const name = indexName('ls', table, [...filter, ...keys.map((key) => key.split(' ')[0])].join('_'));
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ${name} ON ${table} (${[...filter, ...keys].join(', ')})${include ? ` INCLUDE (${include})` : ''}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, filter, keys] of SORT_INDEXES) {
      await queryRunner.query(`DROP INDEX IF EXISTS ${indexName('ls', table, [...filter, ...keys.map((key) => key.split(' ')[0])].join('_'))}`);
    }
    for (const [table, column] of SEARCHED_COLUMNS) {
      await queryRunner.query(`DROP INDEX IF EXISTS ${indexName('tg', table, column)}`);
      await queryRunner.query(`DROP INDEX IF EXISTS ${indexName('gr', table, column)}`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS atrium_term_grams(text)`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS atrium_grams(text)`);
  }
}

/** `ix_<kind>_<table>_<columns>`, shortened with a hash past PostgreSQL's 63 characters. */
function indexName(kind: string, table: string, columns: string): string {
  const name = `ix_${kind}_${table}_${columns}`;
  if (name.length <= 63) return name;
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 54)}_${hash.toString(36).padStart(7, '0').slice(0, 8)}`;
}

/** Columns searched with a contains filter (`containsMatch`): [table, column]. */
const SEARCHED_COLUMNS: ReadonlyArray<[string, string]> = [
  ['chat_external_contact', 'name'],
  ['chat_external_contact', 'remark'],
  ['chat_group_room', 'name'],
  ['chat_contact_way', 'name'],
  ['chat_group_way', 'name'],
  ['chat_digital_staff', 'name'],
  ['chat_conversation_group', 'name'],
  ['chat_intervention_rule', 'name'],
  ['chat_work_corp', 'corp_name'],
  ['chat_chat_group', 'name'],
  ['chat_channel', 'name'],
  ['chat_tool_provider', 'name'],
  ['chat_tag_rule', 'name'],
  ['chat_work_user', 'name'],
  ['chat_work_user', 'mobile'],
  ['chat_work_user', 'user_id'],
  ['chat_work_user', 'work_chat_user_id'],
  ['chat_ent_robot_group', 'name'],
  ['eval_file', 'name'],
  ['eval_file_category', 'name'],
  ['eval_scenario', 'name'],
];

/** [table, filter columns (equalities), sort keys in index order (the id last), INCLUDE columns]. */
type SortIndex = [string, string[], string[], string?];

/** One plain index per sort field: `(filter…, field, id)`, read forwards or backwards. */
const plain = (table: string, filter: string[], fields: string[], id = 'id'): SortIndex[] => fields.map((field) => [table, filter, field === id ? [id] : [field, id]]);

const CONTACT_STAFF_INCLUDE = 'corp_id, ai_enabled, state, sandbox';
const CONTACT_CORP_INCLUDE = 'state, work_chat_user_id, sandbox';

const SORT_INDEXES: readonly SortIndex[] = [
  // Chat: a staff member's contacts (created_at is ix_chat_external_contact_staff_created) and byLastStates per corp.
  ...['updated_at', 'added_at', 'state_at', 'name', 'last_message_at'].map(
    (field): SortIndex => ['chat_external_contact', ['tenant_id', 'work_chat_user_id'], [`${field} DESC NULLS LAST`, 'id'], CONTACT_STAFF_INCLUDE],
  ),
  ...['created_at', 'added_at', 'name'].map((field): SortIndex => ['chat_external_contact', ['tenant_id', 'corp_id'], [`${field} DESC NULLS LAST`, 'id'], CONTACT_CORP_INCLUDE]),
  ...['created_at', 'updated_at', 'intent_name', 'confidence'].map((field): SortIndex => ['chat_intention_record', ['tenant_id'], [`${field} DESC NULLS LAST`, 'id DESC']]),
  ...plain('chat_contact_way', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_contact_way', ['tenant_id', 'corp_id'], ['updated_at', 'name']),
  ...plain('chat_group_way', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_group_room', ['tenant_id'], ['created_at', 'updated_at', 'name', 'member_count']),
  ...plain('chat_digital_staff', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_customer_todo', ['tenant_id'], ['created_at', 'updated_at', 'processed_at']),
  ...plain('chat_conversation_trigger', ['tenant_id', 'conversation_group_id'], ['priority', 'name', 'created_at', 'updated_at']),
  ['chat_conversation_trigger', ['tenant_id', 'conversation_group_id'], ['priority', 'name', 'id']],
  ...plain('chat_conversation_group', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_conversation_event_definition', ['tenant_id', 'conversation_group_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_oauth_client', [], ['created_at'], 'client_id'),
  ...plain('chat_oauth_client', ['tenant_id'], ['created_at', 'client_id'], 'client_id'),
  ...plain('chat_contact_view', ['tenant_id'], ['name', 'created_at', 'updated_at']),
  ...plain('chat_intervention_rule', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_work_corp', ['tenant_id'], ['created_at', 'updated_at', 'corp_name']),
  ...plain('chat_chat_group', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_user_conversation', ['tenant_id'], ['created_at', 'updated_at', 'activated_at', 'terminated_at']),
  ...plain('chat_channel', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_tool_provider', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_tag_rule', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_script_content', ['tenant_id'], ['created_at', 'updated_at', 'title']),
  ...plain('chat_work_user', ['tenant_id'], ['created_at', 'updated_at', 'name', 'work_chat_user_id']),
  ...plain('chat_tenant', [], ['created_at', 'name']),
  ...plain('chat_ent_robot_group', ['tenant_id'], ['created_at', 'updated_at', 'name']),
  ...plain('chat_ent_robot_message_log', ['tenant_id', 'group_id'], ['created_at']),
  // Deploy.
  ...plain('deploy_deployment', ['namespace'], ['created_at', 'project_name', 'bytes']),
  ...plain('deploy_agent_token', [], ['created_at', 'last_used_at', 'agent_id', 'namespace']),
  ...plain('deploy_namespace', [], ['created_at'], 'name'),
  ...plain('deploy_join_grant', ['namespace'], ['created_at', 'expires_at']),
  ...plain('deploy_audit_entry', [], ['occurred_at']),
  // Evaluation.
  ...plain('eval_intelligent_evaluation', [], ['created_at', 'updated_at', 'name']),
  ...plain('eval_intelligent_session', ['evaluation_id'], ['created_at']),
  ...plain('eval_intelligent_message', ['session_id'], ['created_at']),
  ...plain('eval_api_key', [], ['name', 'created_at', 'last_used_at']),
  ...plain('eval_target', [], ['created_at', 'name']),
  ...plain('eval_file', [], ['created_at', 'name', 'size_bytes']),
  ...plain('eval_file_category', [], ['name_key', 'created_at']),
  ...plain('eval_scenario', [], ['created_at', 'name', 'version']),
  ...plain('eval_model_config', [], ['created_at', 'name']),
  ...plain('eval_exploration_session', ['campaign_id'], ['started_at', 'closed_at']),
  ...plain('eval_run', [], ['created_at']),
  ...plain('eval_run', ['status'], ['created_at']),
  ...plain('eval_campaign', [], ['created_at', 'window_start', 'name']),
];
