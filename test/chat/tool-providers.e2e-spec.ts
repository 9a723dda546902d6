import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { secretSealer } from '../../src/common/crypto/secret-sealer';
import { ToolProviderEntity } from '../../src/chat/tool-providers/tool-provider.entity';
import { ToolCallError, ToolProvidersService } from '../../src/chat/tool-providers/tool-providers.service';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

const SECRET = 'tool-api-secret-VERY-private-42';
const ORDER_SCHEMA = { type: 'object', properties: { orderId: { type: 'string', pattern: '^[A-Z0-9-]{1,20}$' }, verbose: { type: 'boolean', default: false } }, required: ['orderId'], additionalProperties: false };
const OPERATIONS = [
  { name: 'get_order', description: 'Look an order up.', method: 'GET', path: '/orders/{orderId}', inputSchema: ORDER_SCHEMA },
  { name: 'create_ticket', method: 'POST', path: '/tickets', inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 200 }, email: { type: 'string', format: 'email' } }, required: ['text'] } },
  { name: 'slow', method: 'GET', path: '/slow', inputSchema: { type: 'object' } },
  { name: 'big', method: 'GET', path: '/big', inputSchema: { type: 'object' } },
  { name: 'redirect_same', method: 'GET', path: '/redirect/same', inputSchema: { type: 'object' } },
  { name: 'redirect_metadata', method: 'GET', path: '/redirect/metadata', inputSchema: { type: 'object' } },
  { name: 'redirect_other_origin', method: 'GET', path: '/redirect/other-origin', inputSchema: { type: 'object' } },
  { name: 'redirect_loop', method: 'GET', path: '/redirect/loop', inputSchema: { type: 'object' } },
];

/** Catches the ToolCallError a call throws. */
async function callError(promise: Promise<unknown>): Promise<ToolCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolCallError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

/**
 * Tool API providers (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/toolApiProviders/{id}`, plus
 * create and list): CRUD with a write-only secret, Ajv-checked operations, field errors and 413, tenant isolation and
 * scopes; and `ToolProvidersService.call` against a real local HTTP peer — arguments checked against the schema,
 * auth headers, timeout, reply cap, redirects (followed, refused to a metadata address, credentials dropped across
 * origins, capped) — with CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=true, and refused before any connection with it false.
 */
describe('tool API providers ({C}/toolApiProviders) and ToolProvidersService.call', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let peer: LocalPeer;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  let providerId: string;
  const providers = (tenant = 'acme') => `/api/${tenant}/console/toolApiProviders`;
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const service = () => testApp.app.get(ToolProvidersService);
  const peerPort = () => new URL(peer.url).port;

  beforeAll(async () => {
    peer = await startLocalPeer(({ method, path: target, body, headers }) => {
      const path = target.split('?')[0];
      if (path.startsWith('/api/orders/')) return { body: { order: decodeURIComponent(path.slice('/api/orders/'.length)), status: 'shipped', authorization: headers.authorization ?? null, apiKey: headers['x-api-key'] ?? null } };
      if (path === '/api/tickets' && method === 'POST') return { body: { ticket: 'T-1', received: body, contentType: headers['content-type'] } };
      if (path === '/api/slow') return { body: { late: true }, delayMs: 1500 };
      if (path === '/api/big') return { body: { blob: 'x'.repeat(5000) } };
      if (path === '/api/redirect/same') return { status: 302, body: {}, headers: { location: '/api/orders/R-1' } };
      if (path === '/api/redirect/metadata') return { status: 302, body: {}, headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
      if (path === '/api/redirect/other-origin') return { status: 307, body: {}, headers: { location: `http://localhost:${new URL(peer.url).port}/api/orders/X-9` } };
      if (path === '/api/redirect/loop') return { status: 302, body: {}, headers: { location: '/api/redirect/loop' } };
      return { status: 404, body: { error: 'not found' } };
    });
    testApp = await startTestApp({
      CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
      CHAT_TOOL_MAX_TIMEOUT_MS: '3000',
      CHAT_TOOL_DEFAULT_TIMEOUT_MS: '2000',
      CHAT_TOOL_MAX_RESPONSE_BYTES: '2048',
      CHAT_TOOL_MAX_REDIRECTS: '2',
      CHAT_TOOL_MAX_SCHEMA_BYTES: '4096',
      CHAT_TOOL_MAX_OPERATIONS: '10',
    });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
  });
  afterAll(async () => {
    await testApp?.close();
    await peer?.close();
  });

  describe('CRUD', () => {
    it('creates a provider (200) without ever returning the secret; defaults filled in', async () => {
      const created = await api('post', providers()).send({ name: 'Order system', baseUrl: `${peer.url}/api`, auth: { type: 'bearer', secret: SECRET }, operations: OPERATIONS }).expect(200);
      providerId = created.body.id;
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'Order system',
        description: null,
        baseUrl: `${peer.url}/api`,
        auth: { type: 'bearer', headerName: null, username: null, hasSecret: true },
        operations: OPERATIONS,
        timeoutMs: 2000,
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(created.body)).not.toContain(SECRET);
      const read = await api('get', `${providers()}/${providerId}`).expect(200);
      expect(read.body).toEqual(created.body);
      expect(JSON.stringify((await api('get', providers()).expect(200)).body)).not.toContain(SECRET);
      // Sealed at rest (issue 19): ciphertext in the row, the secret itself through the entity.
      const [row] = await dataSource.query('SELECT tenant_id, auth_secret FROM chat_tool_provider WHERE id = $1', [providerId]);
      expect(row).toEqual({ tenant_id: 'acme', auth_secret: expect.stringMatching(/^v1:/) });
      expect(secretSealer().open(row.auth_secret)).toBe(SECRET);
    });

    it('answers 400 with field errors for the base URL, auth, timeout and unknown fields', async () => {
      const base = { name: 'P', operations: OPERATIONS.slice(0, 1) };
      const missing = await api('post', providers()).send({}).expect(400);
      expect(missing.body.errors.map((entry: { field: string }) => entry.field).sort()).toEqual(['baseUrl', 'name', 'operations']);
      const scheme = await api('post', providers()).send({ ...base, baseUrl: 'ftp://files.example.com' }).expect(400);
      expect(scheme.body.errors).toEqual([{ field: 'baseUrl', messages: ['must use http or https, not ftp'] }]);
      const credentials = await api('post', providers()).send({ ...base, baseUrl: 'https://user:pw@api.example.com?x=1' }).expect(400);
      expect(credentials.body.errors).toEqual([{ field: 'baseUrl', messages: ['must not contain credentials; put them in auth (the secret is write-only)', 'must not have a query or fragment'] }]);
      const metadata = await api('post', providers()).send({ ...base, baseUrl: 'http://169.254.169.254/latest' }).expect(400);
      expect(metadata.body.errors).toEqual([{ field: 'baseUrl', messages: ['points at 169.254.169.254 is a metadata address; tool calls never go there'] }]);
      const noSecret = await api('post', providers()).send({ ...base, baseUrl: 'https://api.example.com', auth: { type: 'header' } }).expect(400);
      expect(noSecret.body.errors).toEqual([
        { field: 'auth.headerName', messages: ['is required for auth type header'] },
        { field: 'auth.secret', messages: ['is required for auth type header'] },
      ]);
      const basic = await api('post', providers()).send({ ...base, baseUrl: 'https://api.example.com', auth: { type: 'basic', secret: 's', headerName: 'X-Key' } }).expect(400);
      expect(basic.body.errors).toEqual([
        { field: 'auth.username', messages: ['is required for auth type basic'] },
        { field: 'auth.headerName', messages: ['only applies to auth type header'] },
      ]);
      const slow = await api('post', providers()).send({ ...base, baseUrl: 'https://api.example.com', timeoutMs: 3001 }).expect(400);
      expect(slow.body.errors).toEqual([{ field: 'timeoutMs', messages: ['must not be greater than 3000 (CHAT_TOOL_MAX_TIMEOUT_MS)'] }]);
      await api('post', providers()).send({ ...base, baseUrl: 'https://api.example.com', auth: { type: 'oauth' } }).expect(400);
      await api('post', providers()).send({ ...base, baseUrl: 'https://api.example.com', tenantId: 'globex' }).expect(400);
    });

    it('checks operations with Ajv: shape, names, placeholders, strict input schemas (400), too-large schemas (413)', async () => {
      const base = { name: 'P', baseUrl: 'https://api.example.com' };
      const shape = await api('post', providers()).send({ ...base, operations: [{ name: 'x', method: 'TRACE', path: '/x', inputSchema: { type: 'object' } }, 'not an object'] }).expect(400);
      expect(shape.body.errors).toEqual([{ field: 'operations', messages: ['each operation must be an object'] }]);
      const invalid = await api('post', providers())
        .send({
          ...base,
          operations: [
            { name: 'x', method: 'TRACE', path: '/x', inputSchema: { type: 'object' } },
            { name: 'y', method: 'GET', path: '/y/{id}', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } },
            { name: 'y', method: 'GET', path: '/z', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1$' } } } },
            { name: 'w', method: 'GET', path: '/w', inputSchema: { type: 'object', requried: ['a'] } },
          ],
        })
        .expect(400);
      const byField = Object.fromEntries(invalid.body.errors.map((entry: { field: string; messages: string[] }) => [entry.field, entry.messages.join(' | ')]));
      expect(byField).toEqual({
        'operations[0].method': 'must be equal to one of the allowed values: GET, POST, PUT, PATCH, DELETE',
        'operations[1].path': 'placeholder {id} must be a required property of the input schema',
        'operations[2].name': '"y" is already the name of operations[1]',
        'operations[2].inputSchema.properties.a.pattern': '"(a)\\\\1$" uses a backreference "\\1", which the linear-time RE2 engine does not support',
        'operations[3].inputSchema': expect.stringMatching(/^is not a valid JSON Schema: strict mode: unknown keyword: "requried"/),
      });
      const none = await api('post', providers()).send({ ...base, operations: [] }).expect(400);
      expect(none.body.errors).toEqual([{ field: 'operations', messages: ['needs at least one operation'] }]);
      const tooMany = await api('post', providers()).send({ ...base, operations: Array.from({ length: 11 }, (_, index) => ({ ...OPERATIONS[2], name: `op${index}` })) }).expect(400);
      expect(tooMany.body.errors).toEqual([{ field: 'operations', messages: ['has 11 operations; at most 10 are allowed'] }]);
      const big = await api('post', providers()).send({ ...base, operations: [{ name: 'big', method: 'GET', path: '/b', inputSchema: { type: 'object', description: 'x'.repeat(5000) } }] }).expect(413);
      expect(big.body.detail).toBe('operations[0].inputSchema is 5034 bytes of JSON; at most 4096 are allowed (CHAT_TOOL_MAX_SCHEMA_BYTES).');
    });

    it('updates: required fields again, omitted secret kept (same type), type none clears it; duplicate names 409', async () => {
      const created = await api('post', providers()).send({ name: 'CRM', baseUrl: 'https://crm.example.com', auth: { type: 'header', headerName: 'X-Api-Key', secret: SECRET }, operations: OPERATIONS.slice(0, 1), description: 'keep me', timeoutMs: 500 }).expect(200);
      const id = created.body.id;
      const kept = await api('put', `${providers()}/${id}`).send({ name: 'CRM 2', baseUrl: 'https://crm2.example.com', auth: { type: 'header', headerName: 'X-Key' }, operations: OPERATIONS.slice(0, 2) }).expect(200);
      expect(kept.body).toMatchObject({ name: 'CRM 2', baseUrl: 'https://crm2.example.com', description: 'keep me', timeoutMs: 500, auth: { type: 'header', headerName: 'X-Key', username: null, hasSecret: true } });
      expect(kept.body.operations).toHaveLength(2);
      expect(secretSealer().open((await dataSource.query('SELECT auth_secret FROM chat_tool_provider WHERE id = $1', [id]))[0].auth_secret)).toBe(SECRET);
      const untouchedAuth = await api('put', `${providers()}/${id}`).send({ name: 'CRM 2', baseUrl: 'https://crm2.example.com', operations: OPERATIONS.slice(0, 1), enabled: false }).expect(200);
      expect(untouchedAuth.body).toMatchObject({ enabled: false, auth: { type: 'header', hasSecret: true } });
      const switched = await api('put', `${providers()}/${id}`).send({ name: 'CRM 2', baseUrl: 'https://crm2.example.com', auth: { type: 'bearer' }, operations: OPERATIONS.slice(0, 1) }).expect(400);
      expect(switched.body.errors).toEqual([{ field: 'auth.secret', messages: ['is required for auth type bearer'] }]);
      const cleared = await api('put', `${providers()}/${id}`).send({ name: 'CRM 2', baseUrl: 'https://crm2.example.com', auth: { type: 'none' }, operations: OPERATIONS.slice(0, 1) }).expect(200);
      expect(cleared.body.auth).toEqual({ type: 'none', headerName: null, username: null, hasSecret: false });
      expect((await dataSource.query('SELECT auth_secret FROM chat_tool_provider WHERE id = $1', [id]))[0].auth_secret).toBeNull();
      const duplicate = await api('put', `${providers()}/${id}`).send({ name: 'Order system', baseUrl: 'https://crm2.example.com', operations: OPERATIONS.slice(0, 1) }).expect(409);
      expect(duplicate.body.detail).toBe('The tenant already has a tool API provider named "Order system".');
    });

    it('pages newest first, filters by name, sorts; refuses size over 200', async () => {
      const page = await api('get', providers()).expect(200);
      expect(page.body).toMatchObject({ page: 0, size: 20, totalElements: 2, totalPages: 1 });
      expect(page.body.content.map((provider: { name: string }) => provider.name)).toEqual(['CRM 2', 'Order system']);
      const byName = await api('get', `${providers()}?name=order&sort=name,asc`).expect(200);
      expect(byName.body.content.map((provider: { name: string }) => provider.name)).toEqual(['Order system']);
      await api('get', `${providers()}?size=201`).expect(400);
      await api('get', `${providers()}?sort=baseUrl,asc`).expect(400);
    });

    it('keeps tenants apart (403 / 404) and needs chat:write to write', async () => {
      await api('get', providers(), otherToken).expect(403);
      await api('get', `${providers('globex')}/${providerId}`, otherToken).expect(404);
      await api('put', `${providers('globex')}/${providerId}`, otherToken).send({ name: 'Mine', baseUrl: 'https://x.example.com', operations: OPERATIONS.slice(0, 1) }).expect(404);
      await api('delete', `${providers('globex')}/${providerId}`, otherToken).expect(404);
      await api('get', `${providers()}/${providerId}`, readOnlyToken).expect(200);
      await api('post', providers(), readOnlyToken).send({ name: 'X', baseUrl: 'https://x.example.com', operations: OPERATIONS.slice(0, 1) }).expect(403);
      await api('put', `${providers()}/${providerId}`, readOnlyToken).send({ name: 'X', baseUrl: 'https://x.example.com', operations: OPERATIONS.slice(0, 1) }).expect(403);
      await api('delete', `${providers()}/${providerId}`, readOnlyToken).expect(403);
      const stranger = await callError(service().call('globex', providerId, 'get_order', { orderId: 'A-1' }));
      expect(stranger.code).toBe('unknown_provider');
    });

    it('deletes (200, no body), then 404', async () => {
      const created = await api('post', providers()).send({ name: 'Temp', baseUrl: 'https://t.example.com', operations: OPERATIONS.slice(0, 1) }).expect(200);
      expect((await api('delete', `${providers()}/${created.body.id}`).expect(200)).text).toBe('');
      expect((await api('get', `${providers()}/${created.body.id}`).expect(404)).body.detail).toBe(`No tool API provider ${created.body.id} in this tenant.`);
      await api('delete', `${providers()}/${created.body.id}`).expect(404);
      await api('get', `${providers()}/not-a-uuid`).expect(400);
    });
  });

  describe('call (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=true, real local peer)', () => {
    it('lists the enabled providers\' operations as functions for the model', async () => {
      const tools = await service().listTools('acme');
      expect(tools.map((tool) => tool.name)).toEqual(OPERATIONS.map((operation) => operation.name));
      expect(tools[0]).toEqual({ providerId, providerName: 'Order system', name: 'get_order', description: 'Look an order up.', parameters: ORDER_SCHEMA });
    });

    it('calls a GET operation: path argument encoded, defaults as query, bearer secret sent, JSON reply parsed', async () => {
      const before = peer.requests.length;
      const result = await service().call('acme', providerId, 'get_order', { orderId: 'A-1' });
      expect(result).toEqual({ ok: true, status: 200, contentType: 'application/json', body: { order: 'A-1', status: 'shipped', authorization: `Bearer ${SECRET}`, apiKey: null }, durationMs: expect.any(Number), redirects: 0 });
      expect(peer.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /api/orders/A-1?verbose=false']);
    });

    it('calls a POST operation with the other arguments as the JSON body', async () => {
      const result = await service().call('acme', providerId, 'create_ticket', { text: 'Parcel late', email: 'ann@example.com' });
      expect(result.body).toEqual({ ticket: 'T-1', received: { text: 'Parcel late', email: 'ann@example.com' }, contentType: 'application/json' });
    });

    it('refuses arguments that do not match the input schema, unknown operations and disabled providers (nothing sent)', async () => {
      const before = peer.requests.length;
      const invalid = await callError(service().call('acme', providerId, 'get_order', { orderId: 'lower-case', extra: 1 }));
      expect(invalid.code).toBe('invalid_arguments');
      expect(invalid.getStatus()).toBe(400);
      expect(invalid.details.errors).toEqual(expect.arrayContaining([{ field: 'arguments.orderId', message: 'must match pattern "^[A-Z0-9-]{1,20}$"' }, { field: 'arguments', message: 'must NOT have additional properties (extra)' }]));
      expect((await callError(service().call('acme', providerId, 'create_ticket', { text: 'x', email: 'nope' }))).code).toBe('invalid_arguments');
      expect((await callError(service().call('acme', providerId, 'get_order', 'not an object'))).code).toBe('invalid_arguments');
      expect((await callError(service().call('acme', providerId, 'drop_tables', {}))).code).toBe('unknown_operation');
      const crm = (await api('get', `${providers()}?name=CRM`).expect(200)).body.content[0];
      await api('put', `${providers()}/${crm.id}`).send({ name: crm.name, baseUrl: peer.url, operations: OPERATIONS.slice(0, 1), enabled: false }).expect(200);
      expect((await callError(service().call('acme', crm.id, 'get_order', { orderId: 'A-1' }))).code).toBe('provider_disabled');
      expect(peer.requests.length).toBe(before);
    });

    it('sends header and basic authentication', async () => {
      const crm = (await api('get', `${providers()}?name=CRM`).expect(200)).body.content[0];
      await api('put', `${providers()}/${crm.id}`).send({ name: crm.name, baseUrl: `${peer.url}/api`, auth: { type: 'header', headerName: 'X-Api-Key', secret: 'key-123' }, operations: OPERATIONS.slice(0, 1), enabled: true }).expect(200);
      expect((await service().call('acme', crm.id, 'get_order', { orderId: 'B-2' })).body).toMatchObject({ apiKey: 'key-123', authorization: null });
      await api('put', `${providers()}/${crm.id}`).send({ name: crm.name, baseUrl: `${peer.url}/api`, auth: { type: 'basic', username: 'atrium', secret: 'pw' }, operations: OPERATIONS.slice(0, 1) }).expect(200);
      expect((await service().call('acme', crm.id, 'get_order', { orderId: 'B-2' })).body).toMatchObject({ authorization: `Basic ${Buffer.from('atrium:pw').toString('base64')}` });
    });

    it('stops at the provider\'s timeout', async () => {
      await api('put', `${providers()}/${providerId}`).send({ name: 'Order system', baseUrl: `${peer.url}/api`, operations: OPERATIONS, timeoutMs: 300 }).expect(200);
      const started = Date.now();
      const error = await callError(service().call('acme', providerId, 'slow', {}));
      expect(error.code).toBe('timeout');
      expect(error.message).toBe('No complete reply within 300 ms.');
      expect(Date.now() - started).toBeLessThan(1400);
      await api('put', `${providers()}/${providerId}`).send({ name: 'Order system', baseUrl: `${peer.url}/api`, operations: OPERATIONS, timeoutMs: 2000 }).expect(200);
    });

    it('refuses replies over CHAT_TOOL_MAX_RESPONSE_BYTES', async () => {
      const error = await callError(service().call('acme', providerId, 'big', {}));
      expect({ code: error.code, message: error.message }).toEqual({ code: 'response_too_large', message: expect.stringMatching(/^The reply from http:\/\/127\.0\.0\.1:\d+\/\S+ is over the cap; the cap is 2048 bytes \(CHAT_TOOL_MAX_RESPONSE_BYTES\)\.$/) });
      expect(error.getStatus()).toBe(502);
    });

    it('follows a redirect within the origin, keeping the credentials', async () => {
      const result = await service().call('acme', providerId, 'redirect_same', {});
      expect(result).toMatchObject({ ok: true, redirects: 1, body: { order: 'R-1', authorization: `Bearer ${SECRET}` } });
    });

    it('drops the credentials when a redirect leaves the origin', async () => {
      const result = await service().call('acme', providerId, 'redirect_other_origin', {});
      expect(result).toMatchObject({ ok: true, redirects: 1, body: { order: 'X-9', authorization: null } });
    });

    it('refuses a redirect to the metadata address (checked before connecting, even with private networks allowed)', async () => {
      const error = await callError(service().call('acme', providerId, 'redirect_metadata', {}));
      expect(error.code).toBe('blocked_address');
      expect(error.message).toBe('Refused to call http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a metadata address; tool calls never go there.');
    });

    it('stops after CHAT_TOOL_MAX_REDIRECTS redirects', async () => {
      const before = peer.requests.length;
      const error = await callError(service().call('acme', providerId, 'redirect_loop', {}));
      expect(error.code).toBe('too_many_redirects');
      expect(peer.requests.length - before).toBe(3);
    });

    it('answers non-2xx replies as results with ok false', async () => {
      await api('put', `${providers()}/${providerId}`).send({ name: 'Order system', baseUrl: `${peer.url}/nowhere`, operations: OPERATIONS }).expect(200);
      const result = await service().call('acme', providerId, 'get_order', { orderId: 'A-1' });
      expect(result).toMatchObject({ ok: false, status: 404, body: { error: 'not found' } });
      await api('put', `${providers()}/${providerId}`).send({ name: 'Order system', baseUrl: `${peer.url}/api`, operations: OPERATIONS }).expect(200);
    });
  });

  describe('with CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false (the default)', () => {
    let strictApp: TestApp;
    let strictToken: string;

    beforeAll(async () => {
      strictApp = await startTestApp();
      await newTenant(strictApp, 'acme');
      strictToken = (await builtInToken(strictApp.baseUrl, await newClient(strictApp, { tenantId: 'acme' }))).access_token;
    });
    afterAll(() => strictApp?.close());

    it('refuses loopback and private base URLs when written (400)', async () => {
      for (const [baseUrl, pattern] of [
        [peer.url, /^points at 127\.0\.0\.1 is a loopback address/],
        // Judged (and named) by the IPv4 address it carries.
        [`http://[::ffff:127.0.0.1]:${peerPort()}`, /^points at 127\.0\.0\.1 is a loopback address/],
        ['http://10.1.2.3/api', /^points at 10\.1\.2\.3 is a private address/],
        [`http://localhost:${peerPort()}/api`, /^points at localhost, a loopback name/],
      ] as const) {
        const response = await request(strictApp.baseUrl).post('/api/acme/console/toolApiProviders').auth(strictToken, { type: 'bearer' }).send({ name: 'Local', baseUrl, operations: OPERATIONS.slice(0, 1) }).expect(400);
        expect({ baseUrl, errors: response.body.errors }).toEqual({ baseUrl, errors: [{ field: 'baseUrl', messages: [expect.stringMatching(pattern)] }] });
      }
    });

    it('refuses to call a provider whose host resolves to loopback, before connecting (provider written while allowed)', async () => {
      const repository = strictApp.app.get<DataSource>(getDataSourceToken()).getRepository(ToolProviderEntity);
      const base = { tenantId: 'acme', description: null, authType: 'bearer' as const, authHeaderName: null, authUsername: null, authSecret: SECRET, operations: OPERATIONS as never, timeoutMs: 2000, enabled: true };
      const byName = await repository.save({ ...base, name: 'By name', baseUrl: `http://localhost:${peerPort()}/api` });
      const byAddress = await repository.save({ ...base, name: 'By address', baseUrl: `${peer.url}/api` });
      const before = peer.requests.length;
      const strict = strictApp.app.get(ToolProvidersService);
      const named = await callError(strict.call('acme', byName.id, 'get_order', { orderId: 'A-1' }));
      expect(named.code).toBe('blocked_address');
      expect(named.message).toMatch(new RegExp(`^Refused to call http://localhost:${peerPort()}/api/orders/A-1: (127\\.0\\.0\\.1|::1) is a loopback address; tool calls to non-public addresses are refused \\(CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false\\)\\.$`));
      expect(named.message).not.toContain(SECRET);
      const literal = await callError(strict.call('acme', byAddress.id, 'get_order', { orderId: 'A-1' }));
      expect(literal.code).toBe('blocked_address');
      expect(peer.requests.length).toBe(before);
      expect((await service().call('acme', providerId, 'get_order', { orderId: 'A-1' })).ok).toBe(true);
    });
  });
});
