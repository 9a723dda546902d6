import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { readConfig } from './client-config';
import { run } from './main';

const TOKEN = 'atk_cli_spec_0123456789SECRET';

describe('atrium-deploy CLI wiring (deployment-gateway.md, Client scripts)', () => {
  let server: http.Server;
  let apiUrl: string;
  let tmp: string;
  let configFile: string;
  let out: string[];
  let err: string[];
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const send = (status: number, body: unknown, type = 'application/json') => {
          res.writeHead(status, { 'content-type': type });
          res.end(JSON.stringify(body));
        };
        if (req.url === '/api/auth/register') {
          return send(201, {
            token: TOKEN,
            tokenPrefix: 'atk_cli_',
            permissions: ['deploy', 'exec'],
            agentId: 'a',
            instanceName: null,
            contactId: null,
          });
        }
        if (req.headers.authorization !== `Bearer ${TOKEN}`) {
          return send(401, { title: 'Unauthorized', status: 401 }, 'application/problem+json');
        }
        if (req.url === '/api/deploy') {
          return send(201, {
            id: 'd1',
            url: 'https://sites.example.com/c1/x-blog-1/',
            directoryName: 'x-blog-1',
            contactId: 'c1',
            projectName: 'blog',
            fileCount: 1,
            bytes: 10,
            elapsedSeconds: 0.2,
            deployedAt: '2025-01-01T00:00:00.000Z',
          });
        }
        send(403, { title: 'Forbidden', status: 403, detail: 'missing permission exec' }, 'application/problem+json');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-cli-spec-'));
    configFile = path.join(tmp, 'cfg', 'config.json');
    process.env = { ...savedEnv, ATRIUM_DEPLOY_CONFIG: configFile, DEPLOY_API_URL: apiUrl, DEPLOY_REGISTRATION_KEY: 'rk' };
    out = [];
    err = [];
    jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    jest.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    process.env = { ...savedEnv };
    process.exitCode = undefined;
    await fs.rm(tmp, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => run(['node', 'atrium-deploy', ...args]);

  it('init-config fails naming the missing variable, without a stack trace', async () => {
    delete process.env.DEPLOY_REGISTRATION_KEY;
    await cli('init-config');
    expect(process.exitCode).toBe(1);
    expect(err).toEqual(['atrium-deploy: environment variable DEPLOY_REGISTRATION_KEY is required but not set']);
  });

  it('init-config, register and deploy: token saved, never printed', async () => {
    await cli('init-config');
    expect((await readConfig(configFile)).token).toBeNull();

    await cli('--json', 'register');
    const registered = JSON.parse(out.pop()!) as Record<string, unknown>;
    expect(registered).toMatchObject({ tokenPrefix: 'atk_cli_', permissions: ['deploy', 'exec'] });
    expect(registered).not.toHaveProperty('token');
    expect((await readConfig(configFile)).token).toBe(TOKEN);

    const site = path.join(tmp, 'site');
    await fs.mkdir(site);
    await fs.writeFile(path.join(site, 'index.html'), 'hi');
    await cli('deploy', site, '--name', 'blog', '--namespace', 'c1');
    expect(out.join('\n')).toMatch(/URL: +https:\/\/sites\.example\.com\/c1\/x-blog-1\//);
    expect(out.join('\n')).toMatch(/elapsed: +\d+\.\ds/);

    await cli('exec', 'uptime');
    expect(process.exitCode).toBe(1);
    expect(err).toEqual(['atrium-deploy: Forbidden (HTTP 403): missing permission exec']);
    expect([...out, ...err].join('\n')).not.toContain(TOKEN);
  });
});
