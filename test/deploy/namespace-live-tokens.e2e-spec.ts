import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { newAgent } from '../support/deploy-factories';
import { captureStatements, nodesOf, planOf, type CapturedStatement } from '../support/query-plans';
import { startTestApp, TEST_OWNER_TOKEN, TestApp } from '../support/test-app';

let unique = 0;
/** A fresh namespace name. */
const fresh = (kind: string) => `${kind}-${++unique}-${Math.random().toString(36).slice(2, 8)}`;

/**
 * Issue 23 acceptance 1 and 3 for `GET /api/admin/namespaces`: each row's `liveTokens` is the namespace row's own
 * count, kept exact by triggers on `deploy_agent_token` (migration 1795600740000), so a page of namespaces reads no
 * tokens and costs the same with a million of them. The count must follow every way a token is born, revoked, moved
 * or removed, through the API and in bulk; the plan check shows the list served by its sort index alone, and the
 * last test shows the count going stale without the triggers (the check can fail).
 */
describe('namespace live token counts (issue 23)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let captured: CapturedStatement[] = [];
  const base = () => testApp.baseUrl;
  const owner = (test: request.Test) => test.set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`);
  /** `liveTokens` of `namespace` as the list shows it. */
  const listed = async (namespace: string): Promise<number | undefined> => {
    const page = await owner(request(base()).get('/api/admin/namespaces').query({ size: 200, sort: 'createdAt,desc' })).expect(200);
    return (page.body.content as { name: string; liveTokens: number }[]).find((row) => row.name === namespace)?.liveTokens;
  };
  /** What the count must be: the live tokens of `namespace`, counted. */
  const counted = async (namespace: string): Promise<number> =>
    Number((await dataSource.query(`SELECT count(*)::int AS n FROM deploy_agent_token WHERE namespace = $1 AND revoked_at IS NULL`, [namespace]))[0].n);
  const expectExact = async (namespace: string, expected: number) => {
    expect(await counted(namespace)).toBe(expected);
    expect(await listed(namespace)).toBe(expected);
  };
  /** Inserts `count` live tokens of `namespace` straight into the table, as a bulk load or a restore would. */
  const bulkTokens = (namespace: string, count: number, revokedEvery = 0) =>
    dataSource.query(
      `INSERT INTO deploy_agent_token (prefix, secret_hash, agent_id, namespace, permissions, revoked_at)
       SELECT 'b' || substr(md5(random()::text), 1, 12), repeat('0', 64), 'bulk-' || i, $1, ARRAY['list'], CASE WHEN $3 > 0 AND i % $3 = 0 THEN now() END
         FROM generate_series(1, $2::int) AS i`,
      [namespace, count, revokedEvery],
    );

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    captured = captureStatements();
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await testApp?.close();
  });

  it('follows registration, rotation, a move by the owner and revocation', async () => {
    const home = fresh('home');
    const away = fresh('away');
    const alice = await newAgent(base(), { contactId: home });
    await expectExact(home, 1);
    const bob = await newAgent(base(), { contactId: home, authorization: TEST_OWNER_TOKEN });
    await expectExact(home, 2);
    // Rotation: the old token is revoked and a new one issued, in one transaction.
    const rotated = await newAgent(base(), { agentId: alice.agentId, contactId: home, authorization: alice.token });
    await expectExact(home, 2);
    // The owner re-registers bob into another namespace: one less here, one more there.
    await newAgent(base(), { agentId: bob.agentId, contactId: away, authorization: TEST_OWNER_TOKEN });
    await expectExact(home, 1);
    await expectExact(away, 1);
    await owner(request(base()).delete(`/api/admin/tokens/${rotated.tokenPrefix}`)).expect(204);
    await expectExact(home, 0);
    // Revoking again changes nothing.
    await owner(request(base()).delete(`/api/admin/tokens/${rotated.tokenPrefix}`)).expect(204);
    await expectExact(home, 0);
  });

  it('follows bulk inserts, updates, deletes and a namespace claimed after its tokens', async () => {
    const namespace = fresh('bulk');
    await newAgent(base(), { contactId: namespace });
    await bulkTokens(namespace, 300, 3); // 200 live, 100 revoked
    await expectExact(namespace, 201);
    await dataSource.query(`UPDATE deploy_agent_token SET revoked_at = now() WHERE namespace = $1 AND revoked_at IS NULL AND CASE WHEN agent_id LIKE 'bulk-%' THEN substr(agent_id, 6)::int % 2 = 0 ELSE false END`, [namespace]);
    await expectExact(namespace, 101);
    await dataSource.query(`UPDATE deploy_agent_token SET revoked_at = NULL WHERE namespace = $1 AND agent_id IN ('bulk-3', 'bulk-6')`, [namespace]);
    await expectExact(namespace, 103);
    // last_used_at writes leave the count alone (and fire no trigger: the row trigger's WHEN is false).
    await dataSource.query(`UPDATE deploy_agent_token SET last_used_at = now() WHERE namespace = $1`, [namespace]);
    await expectExact(namespace, 103);
    await dataSource.query(`DELETE FROM deploy_agent_token WHERE namespace = $1 AND CASE WHEN agent_id LIKE 'bulk-%' THEN substr(agent_id, 6)::int <= 150 ELSE false END`, [namespace]);
    await expectExact(namespace, await counted(namespace));
    expect(await counted(namespace)).toBeGreaterThan(1);

    // Tokens loaded before their namespace row (a restore): the claim starts from their count.
    const late = fresh('late');
    await bulkTokens(late, 7);
    await dataSource.query(`INSERT INTO deploy_namespace (name, claimed_by_agent_id) VALUES ($1, 'bulk-1')`, [late]);
    await expectExact(late, 7);
    // An INSERT … ON CONFLICT of an existing name (every registration into it) keeps the count.
    await dataSource.query(`INSERT INTO deploy_namespace (name, claimed_by_agent_id) VALUES ($1, 'someone') ON CONFLICT DO NOTHING`, [late]);
    await expectExact(late, 7);
  });

  it('resets every count when the tokens are truncated (rolled back)', async () => {
    const namespace = fresh('trunc');
    await newAgent(base(), { contactId: namespace });
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query('TRUNCATE deploy_agent_token');
      const [row] = await runner.query(`SELECT count(*)::int AS n FROM deploy_namespace WHERE live_tokens <> 0`);
      expect(row.n).toBe(0);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await expectExact(namespace, 1);
  });

  it('plan check: a page of namespaces is read from its sort index and reads no tokens', async () => {
    const namespace = fresh('plan');
    await newAgent(base(), { contactId: namespace });
    await bulkTokens(namespace, 50);
    await dataSource.query('ANALYZE deploy_agent_token');
    await dataSource.query('ANALYZE deploy_namespace');
    for (const sort of ['createdAt,desc', 'createdAt,asc', 'name,asc', 'name,desc']) {
      captured.length = 0;
      await owner(request(base()).get('/api/admin/namespaces').query({ size: 20, sort })).expect(200);
      expect(captured.filter(([sql]) => /deploy_agent_token/.test(sql))).toEqual([]);
      const list = captured.find(([sql]) => /"deploy_namespace"/.test(sql) && /ORDER BY/.test(sql) && /LIMIT/.test(sql));
      expect(list).toBeDefined();
      const nodes = nodesOf(await planOf(dataSource, list![0], list![1]));
      expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan' || /Sort/.test(node['Node Type']))).toEqual([]);
      expect(nodes.filter((node) => node['Relation Name'] === 'deploy_agent_token')).toEqual([]);
    }
  });

  it('fails without the migration: with its triggers dropped (rolled back) the count goes stale', async () => {
    const namespace = fresh('stale');
    await newAgent(base(), { contactId: namespace });
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      for (const trigger of ['insert', 'delete', 'truncate', 'update']) await runner.query(`DROP TRIGGER deploy_agent_token_live_${trigger} ON deploy_agent_token`);
      await runner.query(
        `INSERT INTO deploy_agent_token (prefix, secret_hash, agent_id, namespace, permissions) VALUES ('stale' || substr(md5(random()::text), 1, 8), repeat('0', 64), 'stale-agent', $1, ARRAY['list'])`,
        [namespace],
      );
      const [row] = await runner.query(`SELECT live_tokens FROM deploy_namespace WHERE name = $1`, [namespace]);
      const [truth] = await runner.query(`SELECT count(*)::int AS n FROM deploy_agent_token WHERE namespace = $1 AND revoked_at IS NULL`, [namespace]);
      expect(truth.n).toBe(2);
      expect(row.live_tokens).not.toBe(truth.n);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await expectExact(namespace, 1);
  });
});
