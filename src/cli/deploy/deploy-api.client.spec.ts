import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar';
import { type DeployClientConfig, readConfig, writeConfig } from './client-config';
import { DeployApiClient, DeployApiError } from './deploy-api.client';
import { deploySiteDirectory } from './deploy-site';

const TOKEN = 'atk_live_9f8e7d6c5b4a3210SECRET';
const REG_KEY = 'reg-key-for-tests';

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function problem(res: http.ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/problem+json' });
  res.end(JSON.stringify({ type: 'about:blank', status, instance: '/x', ...body }));
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A tiny stand-in for the gateway on 127.0.0.1 that records every request. */
function fakeGateway(requests: Recorded[]): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const route = `${req.method} ${req.url!.split('?')[0]}`;
      if (route === 'POST /api/auth/register') {
        const input = JSON.parse(body.toString()) as Record<string, string>;
        if (input.registrationKey !== REG_KEY) return problem(res, 401, { title: 'Unauthorized', detail: 'bad key' });
        return json(res, 201, {
          token: TOKEN,
          tokenPrefix: TOKEN.slice(0, 8),
          permissions: ['deploy', 'exec', 'list', 'delete'],
          agentId: input.agentId ?? 'generated',
          instanceName: input.instanceName ?? null,
          contactId: input.contactId ?? null,
        });
      }
      if (route === 'GET /api/health') return problem(res, 503, { title: 'Service Unavailable', detail: 'database down' });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        return problem(res, 401, { title: 'Unauthorized', detail: 'missing or invalid token' });
      }
      switch (route) {
        case 'GET /api/deployments':
          return json(res, 200, { content: [], page: 0, size: 5, totalElements: 0, totalPages: 0 });
        case 'POST /api/exec': {
          const input = JSON.parse(body.toString()) as { command: string };
          if (input.command.startsWith('rm -rf /')) {
            // Deliberately echo the token to prove the client redacts it.
            return problem(res, 403, {
              title: 'Command blocked',
              detail: `refused for token ${TOKEN}`,
              rule: 'rm-rf-root',
            });
          }
          return json(res, 200, {
            exitCode: 0,
            signal: null,
            timedOut: false,
            durationMs: 3,
            stdout: `ran ${input.command}`,
            stderr: '',
            stdoutTruncated: false,
            stderrTruncated: false,
          });
        }
        case 'POST /api/deploy':
          if (body.length > 5_000_000) return problem(res, 413, { title: 'Payload Too Large' });
          return json(res, 201, {
            id: 'd-1',
            url: 'https://sites.example.com/c42/abc-site-20250101/',
            directoryName: 'abc-site-20250101',
            contactId: 'c42',
            projectName: 'site',
            fileCount: 2,
            bytes: body.length,
            elapsedSeconds: 0.1,
            deployedAt: '2025-01-01T00:00:00.000Z',
          });
        case 'POST /api/upload':
          return json(res, 201, { path: '/srv/allowed/a.txt', bytes: 5, sha256: 'abc' });
        default:
          if (req.method === 'DELETE' && req.url!.startsWith('/api/deploy/')) {
            res.writeHead(204);
            return res.end();
          }
          return problem(res, 404, { title: 'Not Found', detail: `no route ${route}` });
      }
    });
  });
}

/** Parses a recorded multipart body with the platform's own parser. */
async function parseMultipart(r: Recorded): Promise<FormData> {
  return new Response(new Uint8Array(r.body), {
    headers: { 'content-type': String(r.headers['content-type']) },
  }).formData();
}

describe('DeployApiClient against a real HTTP server (deployment-gateway.md, Endpoints)', () => {
  let server: http.Server;
  let requests: Recorded[];
  let apiUrl: string;
  let tmp: string;
  const config = (): DeployClientConfig => ({ apiUrl, registrationKey: REG_KEY, token: null, agentId: 'agent-7' });

  beforeAll(async () => {
    requests = [];
    server = fakeGateway(requests);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    requests.length = 0;
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-client-spec-'));
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('registers automatically when the config has no token, saves it and sends it as Bearer', async () => {
    const file = path.join(tmp, 'config.json');
    await writeConfig(file, config());
    const client = await DeployApiClient.fromConfigFile(file);

    const page = await client.listDeployments({ page: 0, size: 5 });

    expect(page.totalElements).toBe(0);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/auth/register',
      'GET /api/deployments?page=0&size=5',
    ]);
    expect(JSON.parse(requests[0].body.toString())).toEqual({ registrationKey: REG_KEY, agentId: 'agent-7' });
    expect(requests[0].headers.authorization).toBeUndefined();
    expect(requests[1].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect((await readConfig(file)).token).toBe(TOKEN);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);

    // A second call reuses the saved token: no new registration.
    await (await DeployApiClient.fromConfigFile(file)).listDeployments();
    expect(requests.filter((r) => r.url === '/api/auth/register')).toHaveLength(1);
  });

  it('passes contactId at explicit registration', async () => {
    const result = await new DeployApiClient(config()).register('c42');
    expect(result.contactId).toBe('c42');
    expect(JSON.parse(requests[0].body.toString())).toMatchObject({ contactId: 'c42' });
  });

  it('sends the join grant, and the stored token as proof when re-registering (rotation, issue 12 item 3)', async () => {
    const client = new DeployApiClient(config());
    await client.register('c42', { joinGrant: 'atj_9f8e7d6c_code' });
    expect(JSON.parse(requests[0].body.toString())).toMatchObject({ contactId: 'c42', joinGrant: 'atj_9f8e7d6c_code' });
    expect(requests[0].headers.authorization).toBeUndefined();
    await client.register();
    expect(requests[1].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(requests[1].body.toString())).not.toHaveProperty('joinGrant');
  });

  it('sends the owner token on the join grant routes and never registers for them', async () => {
    const owner = DeployApiClient.forOwner(apiUrl, 'owner-secret-for-tests');
    const failure = await owner.issueJoinGrant('c 42', { ttlMs: 60_000, note: 'n', permissions: ['deploy'] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeployApiError);
    expect((failure as DeployApiError).message).not.toContain('owner-secret-for-tests');
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/admin/namespaces/c%2042/grants']);
    expect(requests[0].headers.authorization).toBe('Bearer owner-secret-for-tests');
    expect(JSON.parse(requests[0].body.toString())).toEqual({ ttlMs: 60_000, note: 'n', permissions: ['deploy'] });
  });

  it('turns problem+json into a one-line error with title, detail and rule, without the token', async () => {
    const client = new DeployApiClient({ ...config(), token: TOKEN });
    const err = await client.exec('rm -rf / --no-preserve-root').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeployApiError);
    const apiErr = err as DeployApiError;
    expect(apiErr.status).toBe(403);
    expect(apiErr.message).toBe('Command blocked (HTTP 403): refused for token [redacted] [rule: rm-rf-root]');
    expect(apiErr.message).not.toContain(TOKEN);
    expect(apiErr.stack ?? '').not.toContain(TOKEN);
  });

  it('reports a bad registration key and a 503 health check clearly', async () => {
    const bad = new DeployApiClient({ ...config(), registrationKey: 'wrong' });
    await expect(bad.listDeployments()).rejects.toThrow('Unauthorized (HTTP 401): bad key');
    await expect(bad.health()).rejects.toThrow('Service Unavailable (HTTP 503): database down');
    expect(requests.every((r) => r.url !== '/api/deployments')).toBe(true);
  });

  it('runs exec with JSON body and returns the result', async () => {
    const client = new DeployApiClient({ ...config(), token: TOKEN });
    const result = await client.exec('echo "$HOME"; ls', { cwd: '/srv/app', timeoutMs: 5000 });
    expect(result.stdout).toBe('ran echo "$HOME"; ls');
    expect(JSON.parse(requests[0].body.toString())).toEqual({
      command: 'echo "$HOME"; ls',
      cwd: '/srv/app',
      timeoutMs: 5000,
    });
  });

  it('refuses a token that could inject headers, without sending it', async () => {
    const client = new DeployApiClient({ ...config(), token: `${TOKEN}\r\nX-Evil: 1` });
    const err = (await client.listDeployments().catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/malformed/);
    expect(err.message).not.toContain(TOKEN);
    expect(requests).toHaveLength(0);
  });

  it('deploys a packed directory as a streamed multipart upload with progress events', async () => {
    const site = path.join(tmp, 'site');
    await fs.mkdir(path.join(site, 'css'), { recursive: true });
    await fs.writeFile(path.join(site, 'index.html'), '<h1>hi</h1>');
    await fs.writeFile(path.join(site, 'css', 'a.css'), 'body{}');
    const progress: Array<[number, number | undefined]> = [];
    const client = new DeployApiClient({ ...config(), token: TOKEN });

    const result = await deploySiteDirectory(client, site, {
      projectName: 'site',
      contactId: 'c42',
      onProgress: (loaded, total) => progress.push([loaded, total]),
    });

    expect(result.deployment.url).toBe('https://sites.example.com/c42/abc-site-20250101/');
    expect(result.pack.fileCount).toBe(2);
    expect(result.elapsedSeconds).toBeGreaterThan(0);
    // The temp archive is gone.
    await expect(fs.stat(result.pack.file)).rejects.toThrow();

    const req = requests[0];
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-length']).toBe(String(req.body.length));
    const form = await parseMultipart(req);
    expect(form.get('projectName')).toBe('site');
    expect(form.get('contactId')).toBe('c42');
    const archive = form.get('archive') as File;
    expect(archive.name).toBe('site.tar.gz');
    expect(archive.size).toBe(result.pack.bytes);
    const received = path.join(tmp, 'received.tar.gz');
    await fs.writeFile(received, Buffer.from(await archive.arrayBuffer()));
    const names: string[] = [];
    await tar.t({ file: received, onReadEntry: (e) => void names.push(e.path) });
    expect(names.sort()).toEqual(['css/', 'css/a.css', 'index.html']);

    expect(progress.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1]).toEqual([req.body.length, req.body.length]);
  });

  it('reports 413 for a too-large archive', async () => {
    const big = path.join(tmp, 'big.tar.gz');
    await fs.writeFile(big, Buffer.alloc(6_000_000, 1));
    const client = new DeployApiClient({ ...config(), token: TOKEN });
    await expect(client.deploy(big, { projectName: 'p', contactId: 'c' })).rejects.toThrow(
      'Payload Too Large (HTTP 413): archive or file too large for the server',
    );
  });

  it('uploads a file with its target path', async () => {
    const local = path.join(tmp, 'a.txt');
    await fs.writeFile(local, 'hello');
    const client = new DeployApiClient({ ...config(), token: TOKEN });
    expect(await client.upload(local, '/srv/allowed/a.txt')).toEqual({
      path: '/srv/allowed/a.txt',
      bytes: 5,
      sha256: 'abc',
    });
    const form = await parseMultipart(requests[0]);
    expect(form.get('path')).toBe('/srv/allowed/a.txt');
    expect(await (form.get('file') as File).text()).toBe('hello');
    await expect(client.upload(path.join(tmp, 'missing'), '/srv/x')).rejects.toThrow(/not a readable file/);
  });

  it('deletes by an encoded id and resolves on 204', async () => {
    const client = new DeployApiClient({ ...config(), token: TOKEN });
    await expect(client.deleteDeployment('a/../b')).resolves.toBeUndefined();
    expect(requests[0].method).toBe('DELETE');
    expect(requests[0].url).toBe('/api/deploy/a%2F..%2Fb');
  });

  it('reports an unreachable server in one line', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const client = new DeployApiClient({ ...config(), apiUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    const err = (await client.listDeployments().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(DeployApiError);
    expect(err.message).toMatch(new RegExp(`^cannot reach http://127.0.0.1:${port}: .*ECONNREFUSED`));
    expect(err.message).not.toContain(TOKEN);
  });
});
