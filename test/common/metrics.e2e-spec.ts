import request from 'supertest';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { newCorp, newDigitalStaff, newStaffUser } from '../chat/support/way-factories';
import { eventually } from '../support/async';
import { deployArchive, newAgent, type TestAgent } from '../support/deploy-factories';
import { waitForRun } from '../support/evaluation-runs';
import { execSandboxEnv } from '../support/exec-sandbox';
import { freePort } from '../support/free-port';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { rawTarGz } from '../support/raw-tar';
import { startTestApp, type TestApp } from '../support/test-app';

/** A metric family as parse-prometheus-text-format returns it. */
interface Family {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[];
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const parsePrometheusText = require('parse-prometheus-text-format') as (text: string) => Family[];

/**
 * Parses an exposition with parse-prometheus-text-format (a syntax error throws). That parser folds every series of
 * a labelled histogram into one, dropping their labels; so histogram families are also read a second time with their
 * `# HELP`/`# TYPE` lines left out, which makes each `_bucket`, `_sum` and `_count` series an untyped family of its
 * own, labels intact.
 * @returns families by name (histograms' `<name>_count` etc. included)
 */
function parseExposition(text: string): Map<string, Family> {
  const families = parsePrometheusText(text);
  const histograms = new Set(families.filter((family) => family.type === 'HISTOGRAM').map((family) => family.name));
  const untyped = text
    .split('\n')
    .filter((line) => !(line.startsWith('# ') && histograms.has(line.split(' ')[2])))
    .join('\n');
  const series = parsePrometheusText(untyped).filter((family) => [...histograms].some((name) => family.name.startsWith(`${name}_`)));
  // Without its TYPE line a histogram's `_bucket`/`_sum`/`_count` lines come as one family per run of lines: merged.
  const byName = new Map<string, Family>();
  for (const family of [...families, ...series]) {
    const seen = byName.get(family.name);
    if (seen) seen.metrics.push(...family.metrics);
    else byName.set(family.name, { ...family, metrics: [...family.metrics] });
  }
  return byName;
}

/** Every sample's labels of `name`. @throws when the family is missing */
function samplesOf(families: Map<string, Family>, name: string): { labels: Record<string, string>; value: number }[] {
  const family = families.get(name);
  if (!family) throw new Error(`no metric family ${name} in the scrape`);
  return family.metrics.map((metric) => ({ labels: metric.labels ?? {}, value: Number(metric.value) }));
}

/** The value of the sample of `name` whose labels include `labels` (0 when there is none). */
function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const sample = samplesOf(families, name).find((candidate) => Object.entries(labels).every(([key, value]) => candidate.labels[key] === value));
  return sample?.value ?? 0;
}

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** A path-like segment that is a number or a long random token: an id, not a template. */
const ID_LIKE_SEGMENT = /^(\d+|[0-9a-z]{20,})$/i;
/** Labels whose values are numbers by nature (a status code, a bucket bound, Node's version). */
const NUMERIC_LABELS = new Set(['status', 'le', 'quantile', 'version', 'major', 'minor', 'patch']);

const API_KEY = 'eval-api-key-0123456789abcdef';

/**
 * Prometheus metrics at `/metrics` (issue 15 item 1, acceptance 1): after a deploy, exec calls, an evaluation run
 * against a digital staff (which makes AI replies through the chat wing's pipeline) and requests naming ids, one
 * scrape is parsed with a Prometheus text-format parser; each family has its labels, and no label value holds an id.
 */
describe('metrics (issue 15 item 1)', () => {
  let testApp: TestApp;
  let models: LocalPeer;
  let agent: TestAgent;
  const ids: string[] = [];
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  beforeAll(async () => {
    models = await startLocalPeer(({ body }) => {
      const { model } = body as { model: string };
      return { body: chatCompletion('Ava answers: we open at nine.', model) };
    });
    testApp = await startTestApp({ ...execSandboxEnv('metrics e2e'), EVAL_API_KEYS: API_KEY, CHAT_LLM_BASE_URL: `${models.url}/v1`, CHAT_LLM_MODEL: 'staff-model', CHAT_LLM_API_KEY: 'staff-model-key' });
    agent = await newAgent(testApp.baseUrl, { permissions: ['deploy', 'exec', 'list', 'delete'] });
    ids.push(agent.contactId, agent.agentId);
  }, 60_000);
  afterAll(async () => {
    await testApp?.close();
    await models?.close();
  });

  it('counts deploys, exec calls, evaluation cases, AI replies, jobs, requests by route template and the database pool; no label holds an id', async () => {
    // A deploy, and two refused ones (another namespace: forbidden; a corrupt archive: bad_archive).
    const site = rawTarGz([{ name: 'index.html', content: '<h1>hi</h1>' }, { name: 'about.html', content: 'about us' }]);
    const deployed = await deployArchive(testApp.baseUrl, agent.token, site, { projectName: 'metrics-site', contactId: agent.contactId }).expect(201);
    ids.push(deployed.body.id, deployed.body.directoryName);
    await deployArchive(testApp.baseUrl, agent.token, site, { projectName: 'elsewhere', contactId: 'someone-else' }).expect(403);
    await deployArchive(testApp.baseUrl, agent.token, Buffer.from('not a tar.gz at all'), { projectName: 'broken', contactId: agent.contactId }).expect(400);
    // Exec: one that runs, one the blocklist refuses.
    const exec = (command: string) => request(testApp.baseUrl).post('/api/exec').set('Authorization', `Bearer ${agent.token}`).send({ command });
    await exec('echo metrics').expect(200);
    await exec('rm -rf /').expect(403);

    // An evaluation run against a chat digital staff: its cases are AI replies composed by the chat wing.
    await newTenant(testApp, 'acme');
    const chatToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    const corp = await newCorp(testApp, chatToken, 'acme', 'Acme Retail');
    const staff = await newDigitalStaff(testApp, 'acme', 'Ava');
    await newStaffUser(testApp, corp, 'zhangsan', { digitalStaffId: staff.id });
    const target = await api('post', '/api/targets').send({ name: 'Ava', kind: 'digital_staff', digital_staff: { tenant_id: 'acme', digital_staff_id: staff.id, timeout_ms: 60_000 } }).expect(201);
    const scenario = await api('post', '/api/scenarios')
      .send({ name: 'hours', cases: [{ id: 'open', input: 'When do you open?', rules: [{ type: 'contains', value: 'nine' }] }, { id: 'open-again', input: 'Open today?', rules: [{ type: 'contains', value: 'never-said' }] }] })
      .expect(201);
    const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201);
    const run = await waitForRun(testApp.baseUrl, API_KEY, created.body.id, { timeoutMs: 90_000 });
    expect(run).toMatchObject({ status: 'completed', summary: { total_cases: 2, passed_cases: 1, errored_cases: 0 } });
    ids.push(staff.id, target.body.id, scenario.body.id, run.id, corp.id);
    // Requests naming ids, found and not: their route label must be the template.
    await api('get', `/api/runs/${run.id}`).expect(200);
    await api('get', '/api/runs/00000000-0000-4000-8000-000000000000').expect(404);
    await request(testApp.baseUrl).get('/no/such/path/12345').expect(404);
    await request(testApp.baseUrl).get(`/${agent.contactId}/${deployed.body.directoryName}/`).expect(200);

    // The AI replies are counted when their state is final (just after the run saw them).
    const families = await eventually('two composed AI replies in the scrape', async () => {
      const scrape = await request(testApp.baseUrl).get('/metrics').expect(200);
      expect(scrape.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const parsed = parseExposition(scrape.text);
      return valueOf(parsed, 'atrium_ai_replies_total', { outcome: 'composed' }) >= 2 ? parsed : undefined;
    });

    // HTTP: per method, route template and status; ids never in the route.
    const http = samplesOf(families, 'atrium_http_requests_total');
    expect(http.every((sample) => Object.keys(sample.labels).sort().join() === 'method,route,status')).toBe(true);
    expect(valueOf(families, 'atrium_http_requests_total', { method: 'GET', route: '/api/runs/:id', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(valueOf(families, 'atrium_http_requests_total', { method: 'GET', route: '/api/runs/:id', status: '404' })).toBe(1);
    expect(valueOf(families, 'atrium_http_requests_total', { method: 'POST', route: '/api/deploy', status: '201' })).toBe(1);
    expect(valueOf(families, 'atrium_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(families, 'atrium_http_request_duration_seconds_count', { method: 'POST', route: '/api/runs', status: '201' })).toBe(1);
    expect(families.get('atrium_http_request_duration_seconds')?.type).toBe('HISTOGRAM');

    // Deploys and exec.
    expect(valueOf(families, 'atrium_deploys_total')).toBe(1);
    expect(valueOf(families, 'atrium_deploy_files_total')).toBe(2);
    expect(valueOf(families, 'atrium_deploy_bytes_total')).toBe(deployed.body.bytes);
    expect(valueOf(families, 'atrium_deploy_refusals_total', { reason: 'forbidden' })).toBe(1);
    expect(valueOf(families, 'atrium_deploy_refusals_total', { reason: 'bad_archive' })).toBe(1);
    expect(valueOf(families, 'atrium_exec_calls_total', { outcome: 'exit_zero' })).toBe(1);
    expect(valueOf(families, 'atrium_exec_calls_total', { outcome: 'refused' })).toBe(1);

    // Evaluation: cases by status, retries, runs in flight (none now).
    expect(valueOf(families, 'atrium_evaluation_cases_total', { status: 'passed' })).toBe(1);
    expect(valueOf(families, 'atrium_evaluation_cases_total', { status: 'failed' })).toBe(1);
    expect(samplesOf(families, 'atrium_evaluation_case_retries_total')).toHaveLength(1);
    expect(valueOf(families, 'atrium_evaluation_runs_in_flight')).toBe(0);

    // AI replies and their inbound-to-reply latency.
    expect(valueOf(families, 'atrium_ai_reply_latency_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(valueOf(families, 'atrium_ai_reply_latency_seconds_sum')).toBeGreaterThan(0);

    // Jobs: waiting and active per queue (every queue of the app listed), attempt latency per queue and outcome.
    const queues = samplesOf(families, 'atrium_jobs');
    expect(queues.every((sample) => ['waiting', 'active'].includes(sample.labels.state) && sample.labels.queue)).toBe(true);
    expect(queues.filter((sample) => sample.labels.queue === 'evaluation.run').map((sample) => sample.labels.state).sort()).toEqual(['active', 'waiting']);
    expect(valueOf(families, 'atrium_job_duration_seconds_count', { queue: 'evaluation.run', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(families, 'atrium_job_wait_seconds_count', { queue: 'evaluation.run' })).toBeGreaterThanOrEqual(1);

    // Database pool and the default Node process metrics.
    expect(valueOf(families, 'atrium_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(samplesOf(families, 'atrium_db_pool_connections').map((sample) => sample.labels.state).sort()).toEqual(['idle', 'total', 'waiting']);
    expect(valueOf(families, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(families, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);

    // No label value holds an id: no UUID, no number-like or random path segment, none of this test's ids or names.
    const offending: string[] = [];
    for (const family of families.values()) {
      for (const metric of family.metrics) {
        for (const [label, value] of Object.entries(metric.labels ?? {})) {
          if (NUMERIC_LABELS.has(label)) continue;
          const segments = value.split(/[/:]/).filter(Boolean);
          if (UUID_ANYWHERE.test(value) || segments.some((segment) => ID_LIKE_SEGMENT.test(segment) && segment !== 'id') || ids.some((id) => value.includes(id)) || value.includes('acme')) {
            offending.push(`${family.name}{${label}="${value}"}`);
          }
        }
      }
    }
    expect(offending).toEqual([]);
  }, 150_000);

  it('METRICS_PORT moves /metrics to a port of its own, behind METRICS_TOKEN when set (the attack: no token, wrong token)', async () => {
    const metricsPort = await freePort();
    const token = 'metrics-token-0123456789';
    const other = await startTestApp({ METRICS_PORT: String(metricsPort), METRICS_TOKEN: token });
    try {
      const metricsUrl = `http://127.0.0.1:${metricsPort}`;
      // Not on the app's port any more.
      await request(other.baseUrl).get('/metrics').expect(404);
      const missing = await request(metricsUrl).get('/metrics').expect(401);
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(missing.text).not.toContain('atrium_');
      await request(metricsUrl).get('/metrics').set('Authorization', 'Bearer metrics-token-0123456788').expect(401);
      await request(metricsUrl).get('/metrics').set('Authorization', `Bearer ${token}x`).expect(401);
      await request(metricsUrl).get('/metrics').set('Authorization', token).expect(401);
      await request(metricsUrl).post('/metrics').set('Authorization', `Bearer ${token}`).expect(405);
      // The metrics port serves nothing else.
      await request(metricsUrl).get('/api/health').expect(404);
      const scrape = await request(metricsUrl).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
      expect(parseExposition(scrape.text).has('atrium_http_requests_total')).toBe(true);
    } finally {
      await other.close();
    }
    // Closed with the app.
    await expect(request(`http://127.0.0.1:${metricsPort}`).get('/metrics')).rejects.toThrow(/ECONNREFUSED/);
  }, 60_000);

  it('gives every answer an X-Request-Id, keeps a sane one from the caller, and puts it in problem bodies', async () => {
    const fresh = await request(testApp.baseUrl).get('/api/runs/not-a-uuid').set('X-API-Key', API_KEY);
    expect(fresh.status).toBe(400);
    expect(fresh.headers['x-request-id']).toMatch(UUID_ANYWHERE);
    expect(fresh.body.requestId).toBe(fresh.headers['x-request-id']);
    const kept = await request(testApp.baseUrl).get('/api/runs').set('X-Request-Id', 'caller-trace.42');
    expect(kept.status).toBe(401);
    expect(kept.headers['x-request-id']).toBe('caller-trace.42');
    expect(kept.body.requestId).toBe('caller-trace.42');
    // A hostile id (a forged log line) is replaced, never echoed.
    const hostile = await request(testApp.baseUrl).get('/api/runs').set('X-Request-Id', 'x level=fatal msg=forged');
    expect(hostile.headers['x-request-id']).toMatch(UUID_ANYWHERE);
    expect(JSON.stringify(hostile.body)).not.toContain('forged');
  });
});
