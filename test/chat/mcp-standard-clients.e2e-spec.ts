import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient } from './support/chat-test-app';
import { type TestCorp, newTwoTenantChat } from './support/way-factories';

type Json = Record<string, any>;
const run = promisify(execFile);

/** The MCP Inspector and the Node ≥ 22.19 it needs, installed by .ci/run in a folder of their own (not project dependencies). */
const INSPECTOR_BIN = process.env.ATRIUM_INSPECTOR_BIN;
const NODE24_BIN = process.env.ATRIUM_NODE24_BIN;
const inspectorReady = Boolean(INSPECTOR_BIN && NODE24_BIN && existsSync(INSPECTOR_BIN) && existsSync(NODE24_BIN));
const INSPECTOR_MISSING =
  'skipped: set ATRIUM_INSPECTOR_BIN and ATRIUM_NODE24_BIN (npm install --prefix "$HOME/.cache/atrium-ci-tools" node@24.9.0 @modelcontextprotocol/inspector@2.12.0, as .ci/run does)';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/**
 * Issue 22 acceptance 1 (MCP) and item 6: the tenant's MCP endpoint with independent clients as they are — the MCP
 * SDK's `Client` with its `ClientCredentialsProvider` (no pasted token: it follows the 401's resource_metadata, the
 * RFC 9728 document, RFC 8414 discovery, and asks the built-in server for a token for the MCP resource) listing and
 * calling tools, and the MCP Inspector CLI listing them. Beside them: JSON-RPC parse errors, the Origin allow-list
 * (with the DNS-rebinding attack), only honourable capabilities, and the insufficient_scope challenge at the door.
 */
describe('MCP endpoint with standard MCP clients', () => {
  let testApp: TestApp;
  let acme: TestCorp;
  let token: string;
  let contactId: string;
  let issuer: string;
  let mcpUrl: string;
  const clients: Client[] = [];
  const mcp = () => request(testApp.baseUrl).post('/api/acme/mcp').set('Accept', 'application/json, text/event-stream');

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_MCP_ALLOWED_ORIGINS: 'https://console.example' });
    ({ token, acme } = await newTwoTenantChat(testApp));
    // The published URLs (CHAT_PUBLIC_URL, by default http://localhost:$PORT) are the ones the clients follow.
    issuer = `${testApp.config.chatAuth.publicUrl}/oauth`;
    mcpUrl = `${testApp.config.chatAuth.publicUrl}/api/acme/mcp`;
    const C = `/api/acme/console/simulator/corps/${acme.id}`;
    await request(testApp.baseUrl).post(`${C}/staff`).auth(token, { type: 'bearer' }).send({ userId: 'zhangsan' }).expect(200);
    contactId = (await request(testApp.baseUrl).post(`${C}/customers`).auth(token, { type: 'bearer' }).send({ name: 'Lily', userId: 'zhangsan' }).expect(200)).body.contact.id;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await testApp?.close();
  });

  it('the MCP SDK Client with ClientCredentialsProvider gets its own token for the MCP resource, lists and calls the tools', async () => {
    const credentials = await newClient(testApp, { tenantId: 'acme' });
    const provider = new ClientCredentialsProvider({ clientId: credentials.clientId, clientSecret: credentials.clientSecret, expectedIssuer: issuer });
    const client = new Client({ name: 'atrium-standard-client', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    const issued = provider.tokens();
    expect(issued?.access_token).toEqual(expect.any(String));
    const claims = JSON.parse(Buffer.from(issued!.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ iss: issuer, aud: mcpUrl, tenant: 'acme', client_id: credentials.clientId, scope: 'chat:read chat:write' });
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add_customer_tags', 'delete_customer_tags', 'send_group_message', 'send_message']);
    const sent = await client.callTool({ name: 'send_message', arguments: { contactId, content: 'Hello from a standard MCP client' } });
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ contactId, sender: 'ai', content: 'Hello from a standard MCP client' });
    // The same token is for the MCP endpoint only.
    await request(testApp.baseUrl).get('/api/acme/console/workChat/corps').auth(issued!.access_token, { type: 'bearer' }).expect(401);
  });

  (inspectorReady ? it : it.skip)(`the MCP Inspector CLI lists the tools${inspectorReady ? '' : ` (${INSPECTOR_MISSING})`}`, async () => {
    const catalog = mkdtempSync(join(tmpdir(), 'atrium-inspector-'));
    try {
      const { stdout } = await run(NODE24_BIN!, [INSPECTOR_BIN!, '--cli', mcpUrl, '--method', 'tools/list', '--header', `Authorization: Bearer ${token}`], {
        timeout: 60_000,
        env: { ...process.env, MCP_CATALOG_PATH: join(catalog, 'mcp.json'), HOME: catalog },
      });
      const listed = JSON.parse(stdout.slice(stdout.indexOf('{')));
      expect(listed.tools.map((tool: Json) => tool.name).sort()).toEqual(['add_customer_tags', 'delete_customer_tags', 'send_group_message', 'send_message']);
    } finally {
      rmSync(catalog, { recursive: true, force: true });
    }
  });

  it('answers malformed JSON with a JSON-RPC parse error (-32700, HTTP 400), not problem+json', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json at all', '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}']) {
      const response = await mcp().auth(token, { type: 'bearer' }).set('Content-Type', 'application/json').send(body).expect(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } });
    }
    // Authentication still comes first: no token, no body read, the problem+json 401.
    const anonymous = await mcp().set('Content-Type', 'application/json').send('{"broken": ').expect(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('checks Origin against CHAT_MCP_ALLOWED_ORIGINS: none sent and allowed ones are served, others get 403 (DNS rebinding)', async () => {
    await mcp().auth(token, { type: 'bearer' }).send(INITIALIZE).expect(200);
    await mcp().auth(token, { type: 'bearer' }).set('Origin', 'https://console.example').send(INITIALIZE).expect(200);
    for (const origin of ['http://evil.example', 'https://console.example.evil', 'http://console.example', 'null']) {
      const refused = await mcp().auth(token, { type: 'bearer' }).set('Origin', origin).send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'send_message', arguments: { contactId, content: 'rebound' } } });
      expect({ origin, status: refused.status, detail: refused.body.detail }).toEqual({ origin, status: 403, detail: `Origin ${origin} may not call this MCP endpoint (CHAT_MCP_ALLOWED_ORIGINS).` });
    }
  });

  it('advertises only what a stateless server can honour: tools, without listChanged', async () => {
    const response = await mcp().auth(token, { type: 'bearer' }).send(INITIALIZE).expect(200);
    expect(response.body.result.capabilities).toEqual({ tools: { listChanged: false } });
  });

  it('a token without chat:read gets 403 with the insufficient_scope challenge and the resource metadata', async () => {
    const writeOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:write'] }))).access_token;
    const refused = await mcp().auth(writeOnly, { type: 'bearer' }).send(INITIALIZE).expect(403);
    expect(refused.headers['www-authenticate']).toBe(
      `Bearer realm="atrium-chat", error="insufficient_scope", scope="chat:read", resource_metadata="${testApp.config.chatAuth.publicUrl}/.well-known/oauth-protected-resource/api/acme/mcp"`,
    );
  });
});
