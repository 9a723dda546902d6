import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DataSource } from 'typeorm';
import { isMissingObject, S3Bucket, s3Status } from '../../common/storage/s3.storage';
import { siteCacheControl } from './site-serving';

/** Key prefix of every published site in the bucket. */
export const SITES_PREFIX = 'sites/';

/**
 * The bucket prefix of one deploy: `sites/<namespace>/<directoryName>/`. The directory name carries a random id and
 * is never reused, so a deploy's objects are its own: written before its row commits, deleted after its row goes.
 */
export function siteObjectPrefix(namespace: string, directoryName: string): string {
  return `${SITES_PREFIX}${namespace}/${directoryName}/`;
}

/**
 * The object key a site path asks for, as express.static maps a path to a file: `''` or a trailing `/` means its
 * `index.html`; dot segments (dotfiles, `..`), empty segments, NUL and undecodable escapes are refused.
 * @param rest the URL path after `/<namespace>/<directory>/`, still percent-encoded
 * @returns the relative key, or undefined for a path the local server would not serve either
 */
export function siteObjectPath(rest: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/');
  const last = segments.length - 1;
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] === '' && i === last) continue;
    if (segments[i] === '' || segments[i].startsWith('.')) return undefined;
  }
  return decoded === '' || decoded.endsWith('/') ? `${decoded}index.html` : decoded;
}

/**
 * Serves published sites from the bucket (issue 20 item 4), the STORAGE_DRIVER=s3 twin of express.static in
 * site-serving.ts. A site is visible only while its deployment row exists: every request reads the row (one unique
 * index probe, no cache, so a delete on any instance hides the site at once, and a deploy whose row never committed is
 * never served). The object is streamed with the same answers as from disk: Content-Type by extension, ETag,
 * Last-Modified, `Accept-Ranges: bytes`, `Cache-Control` by siteCacheControl (site-serving.ts); `Range` gives 206 (416 when
 * unsatisfiable), `If-None-Match`/`If-Modified-Since` give 304 (S3 evaluates them), and a folder without its slash
 * is redirected (301) to it when it has an index.html. Anything else calls `next()`, as express.static's fallthrough.
 * The caller has already checked that the path is a site path and set the site headers.
 */
export function s3SiteHandler(bucket: S3Bucket, dataSource: DataSource): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    void serve(request, response, next).catch((error: unknown) => {
      if (response.headersSent) response.destroy(error as Error);
      else next(error);
    });
  };

  async function serve(request: Request, response: Response, next: NextFunction): Promise<void> {
    const [, namespace, directoryName, ...restParts] = request.path.split('/');
    const rest = restParts.join('/');
    const path = siteObjectPath(rest);
    if (path === undefined) return next();
    const rows = (await dataSource.query('SELECT 1 FROM deploy_deployment WHERE directory_name = $1 AND namespace = $2', [directoryName, namespace])) as unknown[];
    if (rows.length === 0) return next();
    if (restParts.length === 0) return redirectToFolder(request, response);
    const prefix = siteObjectPrefix(namespace, directoryName);
    const ifModifiedSince = request.headers['if-modified-since'] ? new Date(request.headers['if-modified-since']) : undefined;
    try {
      const read = await bucket.get(prefix + path, {
        // If-Range is not passed on: dropping the range and sending the whole object is always a correct answer.
        range: request.headers['if-range'] ? undefined : request.headers.range,
        ifNoneMatch: request.headers['if-none-match'],
        ifModifiedSince: ifModifiedSince && !Number.isNaN(ifModifiedSince.getTime()) ? ifModifiedSince : undefined,
      });
      response.status(read.status);
      response.type(extname(path) || 'application/octet-stream');
      response.setHeader('Accept-Ranges', 'bytes');
      response.setHeader('Cache-Control', siteCacheControl(path));
      if (read.etag) response.setHeader('ETag', read.etag);
      if (read.lastModified) response.setHeader('Last-Modified', read.lastModified.toUTCString());
      if (read.contentLength !== undefined) response.setHeader('Content-Length', String(read.contentLength));
      if (read.contentRange) response.setHeader('Content-Range', read.contentRange);
      if (request.method === 'HEAD') {
        read.body.destroy();
        response.end();
        return;
      }
      await pipeline(read.body, response);
    } catch (error) {
      const status = s3Status(error);
      if (status === 304) {
        response.status(304).end();
        return;
      }
      if (status === 416) {
        response.status(416).type('text/plain').send('Range Not Satisfiable');
        return;
      }
      if (!isMissingObject(error)) throw error;
      // A folder asked for without its slash: redirect like express.static, when it has an index.html.
      if (rest !== '' && !rest.endsWith('/')) {
        if (await bucket.head(`${prefix}${path}/index.html`)) return redirectToFolder(request, response);
      }
      next();
    }
  }
}

/** 301 to the same path with a trailing slash (serve-static's folder redirect). */
function redirectToFolder(request: Request, response: Response): void {
  const [pathname, query] = request.originalUrl.split('?', 2);
  const location = `${pathname}/${query === undefined ? '' : `?${query}`}`;
  response.status(301).setHeader('Location', location);
  // As serve-static's redirect page: nothing on it may run or load.
  response.setHeader('Content-Security-Policy', "default-src 'none'");
  response.type('text/html').send(`<!DOCTYPE html><html><head><title>Redirecting</title></head><body><pre>Redirecting to ${location.replace(/[<>&"]/g, '')}</pre></body></html>`);
}
