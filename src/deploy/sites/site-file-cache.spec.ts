import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { eventually } from '../../../test/support/async';
import { cacheableRequest, sameFile, SiteFileCache } from './site-file-cache';

/** A response stand-in that records what is sent, and can finish. */
function fakeResponse() {
  const headers = new Map<string, unknown>();
  const sent: { body?: Buffer; ended: boolean } = { ended: false };
  const response = Object.assign(new EventEmitter(), {
    statusCode: 200,
    headersSent: false,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    end: (body?: Buffer) => Object.assign(sent, { body, ended: true }),
  });
  return { response: response as unknown as Response & EventEmitter, headers, sent };
}
const get = (method = 'GET', headers: Record<string, string> = {}) => ({ method, headers }) as unknown as Request;
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('site file cache (site-file-cache.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'site-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('only plain GET/HEAD requests may be answered from memory (ranges and preconditions go to send)', () => {
    expect(cacheableRequest(get())).toBe(true);
    expect(cacheableRequest(get('HEAD'))).toBe(true);
    expect(cacheableRequest(get('POST'))).toBe(false);
    for (const header of ['range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range']) expect(cacheableRequest(get('GET', { [header]: 'x' }))).toBe(false);
  });

  it("repeats send's answer with the same headers and bytes, then drops it when the file changes or goes (the attack: a deleted site)", async () => {
    const file = join(dir, 'index.html');
    writeFileSync(file, '<h1>v1</h1>');
    const cache = new SiteFileCache({ maxBytes: 1024 * 1024, maxFileBytes: 1024 });
    expect(cache.serve('/ns/d/', get(), fakeResponse().response)).toBe(false);
    const first = fakeResponse();
    first.response.setHeader('Content-Type', 'text/html; charset=utf-8');
    first.response.setHeader('ETag', 'W/"b-1"');
    first.response.setHeader('Cache-Control', 'public, max-age=60');
    cache.remember('/ns/d/', get(), first.response, file, statSync(file));
    first.response.emit('finish');
    // The file is read after the answer finished: wait for it (a loaded machine only makes this slower).
    const hit = await eventually('the answer to be kept', async () => {
      const attempt = fakeResponse();
      return cache.serve('/ns/d/', get(), attempt.response) ? attempt : undefined;
    }, { intervalMs: 10, timeoutMs: 10_000 });
    expect(hit.sent.body?.toString()).toBe('<h1>v1</h1>');
    expect(hit.headers.get('etag')).toBe('W/"b-1"');
    expect(hit.headers.get('content-length')).toBe(11);
    const head = fakeResponse();
    expect(cache.serve('/ns/d/', get('HEAD'), head.response)).toBe(true);
    expect(head.sent).toEqual({ body: undefined, ended: true });
    writeFileSync(file, '<h1>v2 longer</h1>');
    expect(cache.serve('/ns/d/', get(), fakeResponse().response)).toBe(false);
    rmSync(file);
    expect(cache.serve('/ns/d/', get(), fakeResponse().response)).toBe(false);
  });

  it('keeps no large file, no failed answer and nothing when turned off', async () => {
    const file = join(dir, 'big.bin');
    writeFileSync(file, Buffer.alloc(2048));
    const cache = new SiteFileCache({ maxBytes: 1024 * 1024, maxFileBytes: 1024 });
    const big = fakeResponse();
    cache.remember('/ns/d/big.bin', get(), big.response, file, statSync(file));
    big.response.emit('finish');
    const small = join(dir, 'a.js');
    writeFileSync(small, 'x');
    const refused = fakeResponse();
    refused.response.statusCode = 404;
    cache.remember('/ns/d/a.js', get(), refused.response, small, statSync(small));
    refused.response.emit('finish');
    await settle();
    expect(cache.serve('/ns/d/big.bin', get(), fakeResponse().response)).toBe(false);
    expect(cache.serve('/ns/d/a.js', get(), fakeResponse().response)).toBe(false);
    expect(new SiteFileCache({ maxBytes: 0, maxFileBytes: 1024 }).enabled).toBe(false);
    expect(sameFile({ ino: 1, size: 2, mtimeMs: 3 }, { ino: 1, size: 2, mtimeMs: 3, isFile: () => false })).toBe(false);
  });
});
