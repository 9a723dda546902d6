import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { chatCompletion } from '../support/peers/local-peers';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 19, acceptance 4, the rows run for real: evaluation targets and model configurations pointed at a real peer on
 * 127.0.0.1 through different address spellings, a name resolving to loopback, addresses refused whatever the switch
 * (metadata, unspecified, this app's own port, its database's), and a redirect to this app's port. The full table
 * (every use × every spelling × each switch position) is src/common/outbound/address-policy.spec.ts.
 */

const API_KEY = 'outbound-policy-api-key-0123456789';

describe('outbound address policy through the running app (issue 19, acceptance 4)', () => {
  let peer: Server;
  let peerPort: number;
  const received: string[] = [];

  beforeAll(async () => {
    peer = createServer((incoming, response) => {
      received.push(incoming.url ?? '/');
      incoming.resume();
      incoming.on('end', () => {
        const path = incoming.url ?? '/';
        if (path.startsWith('/to/')) {
          // Redirects the call elsewhere, keeping the method (307): the rest of the path is host:port.
          response.writeHead(307, { location: `http://${path.slice('/to/'.length).split('/')[0]}/v1/chat/completions` }).end();
        } else if (path.endsWith('/chat/completions')) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chatCompletion('{"pass": true, "score": 1, "reason": "fine"}')));
        } else {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ reply: 'pong' }));
        }
      });
    });
    await new Promise<void>((done) => peer.listen(0, '127.0.0.1', done));
    peerPort = (peer.address() as AddressInfo).port;
  });

  afterAll(() => new Promise((done) => peer.close(() => done(undefined))));

  /** Runs one case against each target; returns each run's single case status and error, in order. */
  async function outcomes(testApp: TestApp, targets: object[], scenario: object = { name: 'Policy', cases: [{ id: 'a', input: 'ping', rules: [{ type: 'contains', value: 'pong' }] }] }) {
    const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
    const createdScenario = await api('post', '/api/scenarios').send(scenario).expect(201);
    const runs: string[] = [];
    for (const [index, target] of targets.entries()) {
      const created = await api('post', '/api/targets').send({ name: `t${index}`, ...target }).expect(201);
      runs.push((await api('post', '/api/runs').send({ scenario_id: createdScenario.body.id, target_id: created.body.id }).expect(201)).body.id);
    }
    const database = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    database.pathname = `/${testApp.database}`;
    const connection = new Client({ connectionString: database.toString() });
    await connection.connect();
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await connection.query('SELECT run_id, status, error FROM eval_case_result WHERE run_id = ANY($1)', [runs]);
        if (rows.length === runs.length) return runs.map((id) => rows.find((row) => row.run_id === id)).map((row) => [row.status, row.error]);
        if (Date.now() > deadline) throw new Error(`only ${rows.length} of ${runs.length} cases finished`);
        await new Promise((done) => setTimeout(done, 200));
      }
    } finally {
      await connection.end();
    }
  }

  const http = (url: string) => ({ kind: 'http', http: { url, body_template: { message: '{{message}}' }, reply_path: '$.reply', timeout_ms: 5000 } });
  const databasePort = Number(new URL(process.env.ATRIUM_TEST_DATABASE_URL ?? 'postgres://x@127.0.0.1:5432/x').port) || 5432;

  it('targets: loopback in every spelling and by name is refused with EVAL_TARGET_ALLOW_PRIVATE_NETWORKS=false, reached with the default (true)', async () => {
    const spellings = [`http://2130706433:${peerPort}/a`, `http://0177.0.0.1:${peerPort}/b`, `http://0x7f.1:${peerPort}/c`, `http://127.1:${peerPort}/d`, `http://[::ffff:127.0.0.1]:${peerPort}/e`, `http://localhost:${peerPort}/f`];
    const strict = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_TARGET_ALLOW_PRIVATE_NETWORKS: 'false' });
    try {
      const before = received.length;
      const refused = await outcomes(strict, spellings.map(http));
      for (const [status, error] of refused) {
        expect(status).toBe('errored');
        expect(error).toMatch(/^target address refused: (127\.0\.0\.1|::1) is a loopback address; evaluation target calls to non-public addresses are refused \(EVAL_TARGET_ALLOW_PRIVATE_NETWORKS=false\)$/);
      }
      expect(received.length).toBe(before); // nothing reached the peer
    } finally {
      await strict.close();
    }
    const open = await startTestApp({ EVAL_API_KEYS: API_KEY });
    try {
      expect(await outcomes(open, spellings.map(http))).toEqual(spellings.map(() => ['passed', null]));
      expect(received.slice(-spellings.length).sort()).toEqual(['/a', '/b', '/c', '/d', '/e', '/f']);
    } finally {
      await open.close();
    }
  }, 120_000);

  it('targets: metadata, unspecified, this app\'s own port, its database\'s port and a redirect to this app are refused with the switch on', async () => {
    const testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_TARGET_ALLOW_PRIVATE_NETWORKS: 'true' });
    const appPort = new URL(testApp.baseUrl).port;
    try {
      const rows = await outcomes(testApp, [
        http('http://169.254.169.254/latest/meta-data/'),
        http('http://[::ffff:169.254.169.254]/latest/meta-data/'),
        http(`http://0.0.0.0:${peerPort}/`),
        http(`http://127.0.0.1:${appPort}/api/health`),
        http(`http://localhost:${appPort}/api/health`),
        http(`http://127.0.0.1:${databasePort}/`),
        // An OpenAI-compatible target follows redirects (the SDK's fetch): each hop is judged again.
        { kind: 'openai', openai: { base_url: `http://127.0.0.1:${peerPort}/to/127.0.0.1:${appPort}`, model: 'm' } },
      ]);
      expect(rows).toEqual([
        ['errored', 'target address refused: 169.254.169.254 is a metadata address; evaluation target calls never go there'],
        ['errored', 'target address refused: 169.254.169.254 is a metadata address; evaluation target calls never go there'],
        ['errored', 'target address refused: 0.0.0.0 is an unspecified address; evaluation target calls never go there'],
        ['errored', `target address refused: 127.0.0.1:${appPort} is a port of this server (the app or its database); evaluation target calls never go there`],
        ['errored', `target address refused: localhost:${appPort} is a port of this server (the app or its database); evaluation target calls never go there`],
        ['errored', expect.stringMatching(new RegExp(`^target address refused: 127\\.0\\.0\\.1:${databasePort} is (a port of this server \\(the app or its database\\)|the database's address); evaluation target calls never go there$`))],
        ['errored', `target address refused: 127.0.0.1:${appPort} is a port of this server (the app or its database); evaluation target calls never go there`],
      ]);
      // The redirect's first hop reached the peer; its second was refused before connecting.
      expect(received).toContain(`/to/127.0.0.1:${appPort}/chat/completions`);
    } finally {
      await testApp.close();
    }
  }, 120_000);

  it('model configurations: the default (EVAL_MODEL_ALLOW_PRIVATE_NETWORKS=false) refuses a judge on loopback; the switch allows it', async () => {
    const scenarioWith = (judge: string) => ({ name: 'Judged', model_bindings: { judge }, cases: [{ id: 'a', input: 'ping', rules: [{ type: 'llm-rubric', value: 'Answers.' }] }] });
    for (const [setting, expected] of [
      ['', 'judge failed: The model m call failed: refused: 127.0.0.1 is a loopback address; model calls to non-public addresses are refused (EVAL_MODEL_ALLOW_PRIVATE_NETWORKS=false)'],
      ['true', 'fine'],
    ] as const) {
      // '' is unset: the test app's own loopback allowance gives way to the default.
      const testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_MODEL_ALLOW_PRIVATE_NETWORKS: setting });
      try {
        const judge = await request(testApp.baseUrl).post('/api/model-configs').set('X-API-Key', API_KEY).send({ name: 'judge', base_url: `http://127.0.0.1:${peerPort}/v1`, model: 'm', purpose: 'judge' }).expect(201);
        const before = received.filter((path) => path === '/v1/chat/completions').length;
        const [[status]] = await outcomes(testApp, [http(`http://127.0.0.1:${peerPort}/echo`)], scenarioWith(judge.body.id));
        const database = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
        database.pathname = `/${testApp.database}`;
        const connection = new Client({ connectionString: database.toString() });
        await connection.connect();
        const { rows } = await connection.query('SELECT reason FROM eval_rule_result');
        await connection.end();
        expect(rows).toEqual([{ reason: expected }]);
        expect(status).toBe(setting === 'true' ? 'passed' : 'failed');
        expect(received.filter((path) => path === '/v1/chat/completions').length - before).toBe(setting === 'true' ? 1 : 0);
      } finally {
        await testApp.close();
      }
    }
  }, 120_000);
});
