import { statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';

/** Headers `send` sets on a file answer that a cached answer repeats (the site headers are set before, per request). */
const FILE_HEADERS = ['Content-Type', 'ETag', 'Last-Modified', 'Cache-Control', 'Accept-Ranges'] as const;

/** Request headers that make an answer depend on more than the path: such requests always go to `send`. */
const CONDITIONAL_HEADERS = ['range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range'] as const;

/** One small file's answer, as `send` gave it, and the file identity it was read from. */
interface CachedFile {
  path: string;
  ino: number;
  size: number;
  mtimeMs: number;
  headers: [string, string][];
  body: Buffer;
}

/** Limits of {@link SiteFileCache}. */
export interface SiteFileCacheLimits {
  /** Bytes of file content kept in all (DEPLOY_SITES_MEMORY_CACHE_BYTES); 0 turns the cache off. */
  maxBytes: number;
  /** Largest file kept (DEPLOY_SITES_MEMORY_CACHE_FILE_BYTES); larger files are always streamed from disk. */
  maxFileBytes: number;
}

/** Whether a cached answer may serve `request`: a GET or HEAD without ranges or preconditions. Pure. */
export function cacheableRequest(request: { method: string; headers: Record<string, unknown> }): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  for (const header of CONDITIONAL_HEADERS) if (request.headers[header] !== undefined) return false;
  return true;
}

/** Whether `current` is still the file a cached answer was read from (same inode, size and modification time). Pure. */
export function sameFile(cached: Pick<CachedFile, 'ino' | 'size' | 'mtimeMs'>, current: Pick<Stats, 'ino' | 'size' | 'mtimeMs' | 'isFile'>): boolean {
  return current.isFile() && current.ino === cached.ino && current.size === cached.size && current.mtimeMs === cached.mtimeMs;
}

/**
 * Small published files (index.html, scripts, styles) kept in memory (issue 14 item 4: sites at static-server
 * speed): a small file costs `send` a stat, an open, a read and a close, each a trip through libuv's thread pool,
 * plus a read stream; from here it costs one synchronous stat (so keep DEPLOY_SITES_MEMORY_CACHE_BYTES at 0 when
 * DEPLOY_SITES_DIR is on a slow network mount). The answer is recorded from `send`'s own (same headers, same
 * bytes): it is remembered after `send` answered a plain GET with 200, read again and kept only when the file did not
 * change meanwhile. Every use stats the file first: a deleted site (or a file that changed) is dropped at once and
 * the request goes to `send`, which answers as it always did (404, or the new file). Requests with `Range` or
 * conditional headers always go to `send` (206, 304, 412 as before). Least recently used files leave first.
 */
export class SiteFileCache {
  private readonly files: LRUCache<string, CachedFile>;

  constructor(private readonly limits: SiteFileCacheLimits) {
    this.files = new LRUCache<string, CachedFile>({ maxSize: Math.max(1, limits.maxBytes), sizeCalculation: (file) => Math.max(1, file.size) });
  }

  /** False when DEPLOY_SITES_MEMORY_CACHE_BYTES is 0. */
  get enabled(): boolean {
    return this.limits.maxBytes > 0 && this.limits.maxFileBytes > 0;
  }

  /**
   * Answers `request` from memory when it can.
   * @param key the request's path (the same URL path always names the same file under the sites root)
   * @returns true when answered, false when the caller must serve it (not cached, changed or gone)
   */
  serve(key: string, request: Request, response: Response): boolean {
    const cached = this.files.get(key);
    if (!cached) return false;
    // A synchronous stat of a file just served (its inode is cached): about 4 µs of CPU, where an asynchronous one
    // costs about 30 µs in the thread pool round trip, as much as the rest of the answer.
    const current = statSync(cached.path, { throwIfNoEntry: false });
    if (!current || !sameFile(cached, current) || response.headersSent) {
      this.files.delete(key);
      return false;
    }
    for (const [name, value] of cached.headers) response.setHeader(name, value);
    response.setHeader('Content-Length', cached.size);
    response.statusCode = 200;
    response.end(request.method === 'HEAD' ? undefined : cached.body);
    return true;
  }

  /**
   * Called by `send`'s `headers` hook for a file it is about to answer: when the answer is a plain 200 to a GET
   * and the file is small, the file is read once the answer is sent and kept under `key`.
   */
  remember(key: string, request: Request, response: Response, path: string, stats: Stats): void {
    if (request.method !== 'GET' || stats.size > this.limits.maxFileBytes || this.files.has(key)) return;
    response.once('finish', () => {
      if (response.statusCode !== 200) return;
      const headers: [string, string][] = [];
      for (const name of FILE_HEADERS) {
        const value = response.getHeader(name);
        if (value !== undefined) headers.push([name, String(value)]);
      }
      void this.load(key, path, stats, headers);
    });
  }

  private async load(key: string, path: string, stats: Stats, headers: [string, string][]): Promise<void> {
    try {
      const body = await readFile(path);
      const after = await stat(path);
      // Kept only when what was read is the file `send` answered with (nothing changed meanwhile).
      if (body.length !== stats.size || !sameFile({ ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs }, after)) return;
      this.files.set(key, { path, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, headers, body });
    } catch {
      // Gone meanwhile: nothing to keep.
    }
  }
}
