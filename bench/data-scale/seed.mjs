// One seeder for the data benches (issue 14 note: bench/chat-list and issue 23's bench/data-scale share it): rows
// written with generate_series straight into the app's own tables, after the app migrated them. Tenants (chat),
// namespaces (deploy) come in tens, the measured one holding its equal share (10 % with 10). Names mix Latin and
// Chinese with known frequencies, so searches can be measured on a common and a rare term of 1, 2 and 3+ characters
// (SEARCH_TERMS). Every function takes a connected `pg` client and a `log(line)`.
//
//   import { createChatTenants, seedChat, seedDeploy, seedEvaluation } from './data-scale/seed.mjs';

/**
 * A display name for row `i` (a SQL expression over the integer column/expression `i`): 1 in 1,000 rows `欧阳娜娜 <i>`
 * (the rare Chinese term), 1 in 1,000 `Quinn <i>` (the rare Latin term), else half Chinese — ten common surnames
 * (王 on a tenth of them) with twenty given names (伟明 on a twentieth) — and half `Customer <i>`.
 */
export function nameSql(i) {
  return `CASE WHEN (${i}) % 1000 = 7 THEN '欧阳娜娜 ' || (${i})
               WHEN (${i}) % 1000 = 3 THEN 'Quinn ' || (${i})
               WHEN (${i}) % 2 = 0 THEN (ARRAY['王','李','张','刘','陈','杨','黄','赵','吴','周'])[1 + ((${i}) / 2) % 10]
                                      || (ARRAY['伟明','芳华','秀英','建国','丽娟','志强','海燕','俊杰','晓东','静怡','子涵','浩然','欣怡','宇轩','梓萱','雨桐','嘉怡','一诺','思远','天佑'])[1 + ((${i}) / 20) % 20]
               ELSE 'Customer ' || (${i}) END`;
}

/**
 * Search terms by script, length and frequency, over names made by {@link nameSql}. `common` terms match a large
 * share of the rows (王: 5 %, 王伟: 0.25 %, e/er/Cust: ~50 %), `rare` ones about 0.1 %.
 */
export const SEARCH_TERMS = [
  { script: 'latin', length: 1, frequency: 'common', term: 'e' },
  { script: 'latin', length: 2, frequency: 'common', term: 'er' },
  { script: 'latin', length: 4, frequency: 'common', term: 'Cust' },
  { script: 'latin', length: 1, frequency: 'rare', term: 'q' },
  { script: 'latin', length: 2, frequency: 'rare', term: 'qu' },
  { script: 'latin', length: 5, frequency: 'rare', term: 'Quinn' },
  { script: 'chinese', length: 1, frequency: 'common', term: '王' },
  { script: 'chinese', length: 2, frequency: 'common', term: '王伟' },
  { script: 'chinese', length: 3, frequency: 'common', term: '王伟明' },
  { script: 'chinese', length: 1, frequency: 'rare', term: '欧' },
  { script: 'chinese', length: 2, frequency: 'rare', term: '欧阳' },
  { script: 'chinese', length: 4, frequency: 'rare', term: '欧阳娜娜' },
];

const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * SQL fillers for the NOT NULL columns without a default that `provided` does not name, by type (the owning
 * folders add columns over time; the seed must not break on them). jsonb columns named like a list get `[]`.
 * @returns `{ columns: string[], values: string[] }` to append to an INSERT … SELECT
 */
export async function fillers(sql, table, provided) {
  const { rows } = await sql.query(
    `SELECT column_name, data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 AND is_nullable = 'NO' AND column_default IS NULL AND is_generated = 'NEVER'
        AND is_identity = 'NO' AND column_name <> ALL($2)`,
    [table, provided],
  );
  const byType = (name, type) => {
    if (type === 'jsonb' || type === 'json') return /cases|turns|rules|items|list|tags|ids$/.test(name) ? `'[]'::jsonb` : `'{}'::jsonb`;
    if (/int|numeric|real|double/.test(type)) return '0';
    if (type === 'boolean') return 'false';
    if (type.startsWith('timestamp')) return 'now()';
    if (type === 'date') return 'current_date';
    if (type === 'uuid') return 'gen_random_uuid()';
    if (type === 'ARRAY') return `'{}'`;
    return `'-'`;
  };
  return { columns: rows.map((row) => row.column_name), values: rows.map((row) => byType(row.column_name, row.data_type)) };
}

/**
 * INSERT INTO `table` SELECT `select` (its columns named `columns`, in that order). Columns the table no longer has
 * are left out, and NOT NULL columns `columns` does not name get {@link fillers}: the owning folders change their
 * tables, the seed keeps working.
 */
async function insertSelect(sql, table, columns, select) {
  const existing = new Set((await sql.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, [table])).rows.map((row) => row.column_name));
  const kept = columns.filter((name) => existing.has(name));
  const extra = await fillers(sql, table, columns);
  const names = [...kept, ...extra.columns];
  const values = [...kept.map((name) => `s.${name}`), ...extra.values];
  await sql.query(`INSERT INTO ${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM (${select}) AS s(${columns.join(', ')})`);
}

/**
 * Runs `load()` with the secondary indexes of `tables` dropped, then builds them again from their own definitions
 * (pg_get_indexdef): building a GIN or B-tree index once over a million rows is many times faster than maintaining it
 * row by row. Primary keys and constraint-backed indexes stay. The schema after is the schema before.
 */
export async function withIndexesRebuilt(sql, tables, load, log = () => undefined) {
  const { rows: indexes } = await sql.query(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.relname = ANY($1) AND t.relnamespace = current_schema()::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [tables],
  );
  for (const index of indexes) await sql.query(`DROP INDEX ${index.name}`);
  try {
    await load();
  } finally {
    const started = now();
    await sql.query(`SET maintenance_work_mem = '256MB'`);
    for (const index of indexes) await sql.query(index.definition);
    await sql.query('RESET maintenance_work_mem');
    log(`rebuilt ${indexes.length} indexes of ${tables.join(', ')} in ${((now() - started) / 1000).toFixed(1)} s`);
  }
}

/**
 * Chat tenants through the API, as an operator makes them: a platform-admin client from the `atrium-chat` CLI, then
 * per tenant `bench<i>` a tenant, an OAuth2 client (its token) and a corp named `corpName`.
 * @param http `{ send(method, path, { token, json, form, basic }), expectOk(promise, what, status) }`
 * @param atriumChat runs the CLI with its arguments and resolves with its stdout
 * @returns `[{ id, token, corpId }]`
 */
export async function createChatTenants({ http, atriumChat, count, corpName }) {
  const { send, expectOk } = http;
  const admin = JSON.parse(await atriumChat(['client', 'create', '--platform-admin', '--json']));
  const tokenOf = async (client) => (await expectOk(send('POST', '/oauth/token', { basic: { id: client.clientId, secret: client.clientSecret }, form: { grant_type: 'client_credentials' } }), 'POST /oauth/token')).access_token;
  const adminToken = await tokenOf(admin);
  const tenants = [];
  for (let index = 0; index < count; index++) {
    const id = `bench${index}`;
    await expectOk(send('POST', '/api/platform/tenants', { token: adminToken, json: { id, name: `Bench tenant ${index}` } }), 'POST /api/platform/tenants', 201);
    const client = await expectOk(send('POST', '/api/platform/clients', { token: adminToken, json: { tenantId: id, scopes: ['chat:read', 'chat:write'] } }), 'POST /api/platform/clients', 201);
    const token = await tokenOf(client);
    const corp = await expectOk(send('POST', `/api/${id}/console/workChat/corps`, { token, json: { corpName, workChatCorpId: `wwbench${index}`, secret: `bench-secret-${index}` } }), 'POST corps');
    tenants.push({ id, token, corpId: corp.id, adminToken });
  }
  return tenants;
}

/**
 * Chat rows of every tenant: `staff` staff users (staff00 holds a quarter of the tenant's contacts, the others share
 * the rest), `ways` contact ways per tenant (the first 50 carry the campaign states; one in ten of the rest has no
 * state; 1 % hidden; staff users' default ways) and `contacts / tenants` contacts per tenant (a `bigStateShare` of
 * them in state `bigState`, the rest over 49 smaller states; times spread over a year), `rooms / tenants` group rooms
 * per tenant (customer group chats, named like the contacts; staff00 owns a quarter; members: the owner, a colleague
 * — staff00 in one room of 20 — and a customer), then VACUUM ANALYZE.
 */
export async function seedChat(sql, tenants, { contacts, ways, rooms = 0, staff = 20, bigState = 'spring-fair', bigStateShare = 0.3, log = () => undefined }) {
  const perTenant = Math.floor(contacts / tenants.length);
  const roomsPerTenant = Math.floor(rooms / tenants.length);
  const tables = ['chat_work_user', 'chat_contact_way', 'chat_external_contact', ...(roomsPerTenant > 0 ? ['chat_group_room'] : [])];
  // The members and the rooms' access rows keep their indexes while seeded: their triggers read them.
  await withIndexesRebuilt(sql, tables, () => seedChatRows(sql, tenants, { perTenant, ways, roomsPerTenant, staff, bigState, bigStateShare, log }), log);
  for (const table of [...tables, ...(roomsPerTenant > 0 ? ['chat_group_member', 'chat_group_room_access'] : [])]) await sql.query(`VACUUM ANALYZE ${table}`);
}

/** The rows of {@link seedChat}, tenant by tenant, one transaction each. */
async function seedChatRows(sql, tenants, { perTenant, ways, roomsPerTenant, staff, bigState, bigStateShare, log }) {
  for (const [index, tenant] of tenants.entries()) {
    const started = now();
    const params = [tenant.id, tenant.corpId];
    await sql.query('BEGIN');
    await sql.query(
      `INSERT INTO chat_work_user (tenant_id, corp_id, work_chat_user_id, name, mobile, online, created_at, updated_at)
       SELECT $1, $2::uuid, 'staff' || lpad(i::text, 2, '0'), 'Staff ' || i, '1380000' || lpad(i::text, 4, '0'), i % 3 <> 0, now() - i * interval '1 day', now()
       FROM generate_series(0, ${staff - 1}) AS i`,
      params,
    );
    await sql.query(
      `INSERT INTO chat_contact_way (tenant_id, corp_id, name, type, scene, state, work_chat_user_ids, config_id, qr_code, remark, skip_verify,
                                     channel_name, relevance_code, is_default, default_scope, hidden, created_at, updated_at)
       SELECT $1, $2::uuid, ${nameSql('i')} || ' poster ' || i || CASE WHEN i % 7 = 0 THEN ' store' ELSE ' campaign' END, 1, 2,
              CASE WHEN i = 0 THEN '${bigState}' WHEN i < 50 OR i % 10 <> 0 THEN 'st-' || i END,
              jsonb_build_array('staff' || lpad((i % ${staff})::text, 2, '0')), 'cfg' || i, 'https://qr.bench.test/' || i, NULL, true,
              'channel-' || (i % 10), 'store-' || (i % 500), i < ${staff}, CASE WHEN i < ${staff} THEN 'user:' || $2::text || ':staff' || lpad(i::text, 2, '0') END,
              i % 100 = 99, now() - (i * interval '20 minutes'), now()
       FROM generate_series(0, ${ways - 1}) AS i`,
      params,
    );
    await sql.query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, open_id, work_chat_user_id, name, remark, mobile, tags, state, state_at,
                                          add_way, added_at, ai_enabled, profile, created_at, updated_at)
       SELECT $1, $2::uuid, 'wm' || ${index} || 'x' || i, 'oid' || ${index} || 'x' || i,
              CASE WHEN i % 4 = 0 THEN 'staff00' ELSE 'staff' || lpad((1 + i % ${staff - 1})::text, 2, '0') END, ${nameSql('i')},
              CASE WHEN i % 4 = 0 THEN 'VIP ' || i END, CASE WHEN i % 3 = 0 THEN '139' || lpad(i::text, 8, '0') END, '[]'::jsonb,
              CASE WHEN (i::bigint * 7919) % 1000 < ${Math.round(bigStateShare * 1000)} THEN '${bigState}' ELSE 'st-' || (1 + i % 49) END,
              now() - ((i::bigint * 7919) % 525600) * interval '1 minute', 1, now() - ((i::bigint * 7919) % 525600) * interval '1 minute',
              i % 40 <> 0, '{}'::jsonb, now() - ((i::bigint * 7919) % 525600) * interval '1 minute', now()
       FROM generate_series(0, ${perTenant - 1}) AS i`,
      params,
    );
    if (roomsPerTenant > 0) {
      await sql.query(
        `INSERT INTO chat_group_room (tenant_id, corp_id, chat_id, name, owner_work_chat_user_id, member_count, created_at, updated_at)
         SELECT $1, $2::uuid, 'wr' || ${index} || 'x' || i, ${nameSql('i')},
                CASE WHEN i % 4 = 0 THEN 'staff00' ELSE 'staff' || lpad((1 + i % ${staff - 1})::text, 2, '0') END, 3 + i % 200,
                now() - ((i::bigint * 7919) % 525600) * interval '1 minute', now()
         FROM generate_series(0, ${roomsPerTenant - 1}) AS i`,
        params,
      );
      // Members as a sync writes them: the owner, a colleague (staff users in turn, so staff00 is a staff member of one
      // room in 20) and a customer. The members' statement trigger gives each colleague access (migration 1795600760000).
      await sql.query(
        `INSERT INTO chat_group_member (tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type, join_scene)
         SELECT room.tenant_id, room.corp_id, room.id, room.chat_id, member.user_id, member.type, 1
           FROM chat_group_room room
          CROSS JOIN LATERAL (VALUES (room.owner_work_chat_user_id, 1, 'owner'),
                                     ('staff' || lpad(((substr(room.chat_id, length('wr${index}x') + 1)::int / 4) % ${staff})::text, 2, '0'), 1, 'colleague'),
                                     ('wm${index}x' || substr(room.chat_id, length('wr${index}x') + 1), 2, 'customer')) AS member(user_id, type, role)
          WHERE room.tenant_id = $1 AND NOT (member.role = 'colleague' AND member.user_id = room.owner_work_chat_user_id)`,
        [tenant.id],
      );
    }
    await sql.query('COMMIT');
    log(`seeded tenant ${tenant.id} (${index + 1}/${tenants.length}): ${staff} staff users, ${ways} contact ways, ${perTenant} contacts, ${roomsPerTenant} group rooms in ${((now() - started) / 1000).toFixed(1)} s`);
  }
}

/**
 * Deploy rows: `rows` deployments and `rows` audit entries over `namespaces` (the first — the measured agent's —
 * holding its equal share), and `rows / 10` agent tokens, times spread over a year; then VACUUM ANALYZE.
 */
export async function seedDeploy(sql, { rows, namespaces, log = () => undefined }) {
  const started = now();
  const list = `ARRAY[${namespaces.map((name) => `'${name}'`).join(',')}]`;
  const n = namespaces.length;
  await sql.query(
    `INSERT INTO deploy_namespace (name, claimed_by_agent_id, created_at) SELECT name, 'bench-agent', now() FROM unnest(${list}::text[]) AS name ON CONFLICT DO NOTHING`,
  );
  const tokens = Math.max(10, Math.floor(rows / 10));
  await withIndexesRebuilt(sql, ['deploy_deployment', 'deploy_audit_entry', 'deploy_agent_token'], async () => {
    await insertSelect(
      sql,
      'deploy_deployment',
      ['namespace', 'project_name', 'directory_name', 'file_count', 'bytes', 'token_prefix', 'agent_id', 'created_at'],
      `SELECT (${list})[1 + i % ${n}], 'project-' || (i % 5000), 'bench-' || i, 1 + i % 50, (i::bigint * 7919) % 50000000, 'benchtok', 'bench-agent',
              now() - ((i::bigint * 7919) % 525600) * interval '1 minute'
         FROM generate_series(0, ${rows - 1}) AS i`,
    );
    await insertSelect(
      sql,
      'deploy_audit_entry',
      ['occurred_at', 'token_prefix', 'agent_id', 'namespace', 'action', 'target', 'outcome', 'status'],
      `SELECT now() - ((i::bigint * 7919) % 525600) * interval '1 minute', 'benchtok', 'bench-agent', (${list})[1 + i % ${n}],
              (ARRAY['deploy','exec','upload','delete'])[1 + i % 4], 'bench-' || i, CASE WHEN i % 20 = 0 THEN 'refused' ELSE 'ok' END, CASE WHEN i % 20 = 0 THEN 403 ELSE 200 END
         FROM generate_series(0, ${rows - 1}) AS i`,
    );
    await insertSelect(
      sql,
      'deploy_agent_token',
      ['prefix', 'secret_hash', 'agent_id', 'namespace', 'permissions', 'created_at', 'last_used_at'],
      `SELECT 'bt' || i, repeat('0', 64), 'bench-agent-' || (i % 1000), (${list})[1 + i % ${n}], ARRAY['deploy','list'], now() - i * interval '1 minute',
              CASE WHEN i % 3 = 0 THEN now() - i * interval '30 seconds' END
         FROM generate_series(0, ${tokens - 1}) AS i`,
    );
  }, log);
  for (const table of ['deploy_deployment', 'deploy_audit_entry', 'deploy_agent_token', 'deploy_namespace']) await sql.query(`VACUUM ANALYZE ${table}`);
  log(`seeded deploy: ${rows} deployments, ${rows} audit entries, ${tokens} agent tokens over ${n} namespaces in ${((now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Evaluation rows: `rows` scenarios, `rows / 10` targets and `rows` runs (60 % completed with a pass rate and a p95
 * latency, the rest failed, cancelled, running or queued; finished over a year), then VACUUM ANALYZE. The runs go in
 * with one INSERT, which the dashboard rollups' statement trigger folds in one pass. The `running` runs hold a lease
 * of another instance for a day: without one, the app's run sweeper takes them over as orphans and executes them
 * while the bench measures (100k at 1M rows), loading the app at the largest size only.
 */
export async function seedEvaluation(sql, { rows, log = () => undefined }) {
  const started = now();
  const targets = Math.max(10, Math.floor(rows / 10));
  await withIndexesRebuilt(sql, ['eval_scenario', 'eval_target', 'eval_run'], async () => {
    await insertSelect(
      sql,
      'eval_scenario',
      ['name', 'metadata', 'cases', 'model_bindings', 'llm_config', 'version', 'created_at', 'updated_at'],
      `SELECT ${nameSql('i')} || ' scenario', '{}'::jsonb, '[{"id":"a","input":"hi","rules":[{"type":"contains","value":"hi"}]}]'::jsonb, '{}'::jsonb, '{}'::jsonb, 1 + i % 5,
              now() - ((i::bigint * 7919) % 525600) * interval '1 minute', now()
         FROM generate_series(0, ${rows - 1}) AS i`,
    );
    await insertSelect(
      sql,
      'eval_target',
      ['name', 'kind', 'channel', 'secrets', 'max_concurrency', 'created_at', 'updated_at'],
      `SELECT ${nameSql('i')} || ' agent', 'http', '{"url":"http://127.0.0.1:9/bench","body_template":{"m":"{{message}}"},"reply_path":"$.reply"}'::jsonb, '{}'::jsonb, 4,
              now() - ((i::bigint * 7919) % 525600) * interval '1 minute', now()
         FROM generate_series(0, ${targets - 1}) AS i`,
    );
    await insertSelect(
      sql,
      'eval_run',
      ['scenario_id', 'scenario_name', 'scenario_version', 'target_id', 'target_name', 'status', 'triggered_by', 'concurrency', 'repeat_count', 'case_count', 'model_bindings', 'llm_config', 'summary', 'created_at', 'started_at', 'finished_at', 'lease_owner', 'lease_until'],
      `WITH s AS (SELECT array_agg(id ORDER BY id) AS ids FROM (SELECT id FROM eval_scenario LIMIT 1000) x),
            t AS (SELECT array_agg(id ORDER BY id) AS ids, array_agg(name ORDER BY id) AS names FROM (SELECT id, name FROM eval_target LIMIT 200) y)
       SELECT s.ids[1 + i % array_length(s.ids, 1)], 'Bench scenario', 1, t.ids[1 + i % array_length(t.ids, 1)], t.names[1 + i % array_length(t.ids, 1)],
              CASE WHEN i % 10 < 6 THEN 'completed' WHEN i % 10 = 6 THEN 'failed' WHEN i % 10 = 7 THEN 'cancelled' WHEN i % 10 = 8 THEN 'running' ELSE 'queued' END,
              'api', 4, 1, 0, '{}'::jsonb, '{}'::jsonb,
              CASE WHEN i % 10 < 6 THEN jsonb_build_object('total_cases', 10, 'passed_cases', i % 11, 'pass_rate', round((i % 11) / 10.0, 4), 'latency_p95_ms', 100 + (i::bigint * 104729) % 5000) END,
              now() - ((i::bigint * 7919) % 525600) * interval '1 minute' - interval '5 minutes', CASE WHEN i % 10 < 9 THEN now() - ((i::bigint * 7919) % 525600) * interval '1 minute' - interval '4 minutes' END,
              CASE WHEN i % 10 < 8 THEN now() - ((i::bigint * 7919) % 525600) * interval '1 minute' END,
              CASE WHEN i % 10 = 8 THEN 'bench-seed:another-instance' END, CASE WHEN i % 10 = 8 THEN now() + interval '1 day' END
         FROM generate_series(0, ${rows - 1}) AS i, s, t`,
    );
  }, log);
  for (const table of ['eval_scenario', 'eval_target', 'eval_run']) await sql.query(`VACUUM ANALYZE ${table}`);
  log(`seeded evaluation: ${rows} scenarios, ${targets} targets, ${rows} runs in ${((now() - started) / 1000).toFixed(1)} s`);
}
