import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DeployApiClient } from '../../src/cli/deploy/deploy-api.client';
import { deploySiteDirectory } from '../../src/cli/deploy/deploy-site';
import { startTestApp, TEST_REGISTRATION_KEY, TestApp } from '../support/test-app';

/** Deploys a one-page site and returns its URL as the API reported it. */
async function deployPage(testApp: TestApp, contactId: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-iso-site-'));
  try {
    writeFileSync(join(dir, 'index.html'), '<!doctype html><p id="x">isolated page</p>');
    const client = new DeployApiClient({ apiUrl: testApp.baseUrl, registrationKey: TEST_REGISTRATION_KEY, token: null, agentId: `a-${contactId}` }, { saveConfig: async () => undefined });
    return (await deploySiteDirectory(client, dir, { projectName: 'iso', contactId })).deployment.url;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Issue 12 item 4 without a browser: the site policy on every site answer, DEPLOY_SITES_ORIGIN's semantics and the
 * Swagger UI persistence switch. The browser proof is site-isolation.browser.e2e-spec.ts.
 */
describe('site isolation (issue 12 item 4)', () => {
  describe('sites on the API origin (default)', () => {
    let testApp: TestApp;
    let path: string;
    beforeAll(async () => {
      testApp = await startTestApp();
      path = new URL(await deployPage(testApp, 'c-iso')).pathname;
    });
    afterAll(() => testApp?.close());

    it('answers every site path (file, folder redirect) with the sandbox policy and without X-Powered-By', async () => {
      for (const [url, status] of [
        [path, 200],
        [`${path}index.html`, 200],
        [path.replace(/\/$/, ''), 301],
      ] as const) {
        const response = await request(testApp.baseUrl).get(url).redirects(0);
        expect(response.status).toBe(status);
        // serve-static answers its folder redirect with its own stricter `default-src 'none'` (no script at all).
        const policy = status === 301 ? /^(sandbox |default-src 'none')/ : /^sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads$/;
        expect(response.headers['content-security-policy']).toMatch(policy);
        expect(response.headers['content-security-policy']).not.toContain('allow-same-origin');
        expect(response.headers['x-powered-by']).toBeUndefined();
        expect(response.headers['x-content-type-options']).toBe('nosniff');
      }
    });

    it('keeps the API\'s own policy (no sandbox) on API routes and /docs', async () => {
      const health = await request(testApp.baseUrl).get('/api/health');
      expect(health.headers['content-security-policy']).not.toMatch(/sandbox/);
      expect(health.headers['x-powered-by']).toBeUndefined();
    });

    it('does not let Swagger UI persist credentials unless DOCS_PERSIST_AUTHORIZATION=true', async () => {
      const init = await request(testApp.baseUrl).get('/docs/swagger-ui-init.js').expect(200);
      expect(init.text).toMatch(/"persistAuthorization":\s*false/);
      const persisting = await startTestApp({ DOCS_PERSIST_AUTHORIZATION: 'true' });
      try {
        expect((await request(persisting.baseUrl).get('/docs/swagger-ui-init.js').expect(200)).text).toMatch(/"persistAuthorization":\s*true/);
      } finally {
        await persisting.close();
      }
    });
  });

  describe('DEPLOY_SITES_ORIGIN set', () => {
    const SITES_HOST = 'sites.atrium.test';
    let testApp: TestApp;
    let url: URL;
    beforeAll(async () => {
      testApp = await startTestApp({ DEPLOY_SITES_ORIGIN: `https://${SITES_HOST}` });
      url = new URL(await deployPage(testApp, 'c-iso-origin'));
    });
    afterAll(() => testApp?.close());

    it('returns site URLs on the sites origin, in deploy answers and in the list', async () => {
      expect(url.origin).toBe(`https://${SITES_HOST}`);
    });

    it('serves the site only to requests for the sites host, still sandboxed', async () => {
      const site = await request(testApp.baseUrl).get(url.pathname).set('Host', SITES_HOST).expect(200);
      expect(site.text).toContain('isolated page');
      expect(site.headers['content-security-policy']).toMatch(/^sandbox /);
      // The API origin no longer serves sites.
      const onApi = await request(testApp.baseUrl).get(url.pathname).expect(404);
      expect(onApi.text).not.toContain('isolated page');
    });

    it('serves nothing but sites on the sites host: no API, no /docs, no unknown files', async () => {
      for (const path of ['/api/health', '/docs', '/docs-json', '/', `${url.pathname}missing.html`]) {
        const response = await request(testApp.baseUrl).get(path).set('Host', SITES_HOST);
        expect(response.status).toBe(404);
        expect(response.headers['content-security-policy']).toMatch(/^sandbox /);
      }
      await request(testApp.baseUrl).post('/api/auth/sign-in').set('Host', SITES_HOST).send({ password: 'x' }).expect(404);
    });
  });
});
