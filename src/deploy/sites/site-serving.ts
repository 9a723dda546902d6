import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { basename } from 'node:path';
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES } from '../namespace';
import { cacheableRequest, SiteFileCache, type SiteFileCacheLimits } from './site-file-cache';

/**
 * The policy every site response carries (issue 12 item 4): a CSP sandbox WITHOUT `allow-same-origin`, so a site's
 * document runs in an opaque origin. Its scripts run (and forms, pop-ups, dialogs, downloads work), but they can't
 * read the API origin's localStorage, sessionStorage, IndexedDB or cookies, nor another site's; pop-ups and frames
 * it opens inherit the sandbox; it can't navigate the top window.
 */
export const SITE_CONTENT_SECURITY_POLICY = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

/**
 * `Cache-Control` of a site's files other than `index.html` (issue 14 item 4): a deployment's directory name carries a
 * random id and is never reused, and a deployment is never changed after it is published, so what a URL under it
 * answers never changes (until the deployment is deleted): browsers and CDNs may keep it for a year without asking.
 */
export const SITE_FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `Cache-Control` of every `index.html` (a folder's page, the deployment URL itself): a minute. It is the URL people
 * and link previews open, and the one way into the site's other files, so a short lifetime bounds how long a deleted
 * deployment still shows from caches; revalidating costs a 304 (ETag, Last-Modified).
 */
export const SITE_INDEX_CACHE_CONTROL = 'public, max-age=60';

/** The `Cache-Control` of a site file, by its name (the same from disk and from S3). Pure. */
export function siteCacheControl(filePath: string): string {
  return basename(filePath) === 'index.html' ? SITE_INDEX_CACHE_CONTROL : SITE_FILE_CACHE_CONTROL;
}

/**
 * Bytes read from disk per chunk when a site file is streamed: 256 KiB instead of Node's 64 KiB, so a 1 MB file is
 * four reads and four socket writes, not sixteen (at most this much is buffered per response in flight).
 */
export const SITE_READ_CHUNK_BYTES = 256 * 1024;

/** Headers of every answer on a site path (the file, a redirect to its folder, a 404). */
function setSiteHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', SITE_CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'no-referrer');
  // Express sets it on every response; sites are the users' content and say nothing about the server.
  response.removeHeader('X-Powered-By');
}

/** Where sites are served: on the API origin (default) or only on the operator's sites host. */
export interface SiteServingOptions {
  /** DEPLOY_SITES_ORIGIN: when set, sites are served only to requests for this origin's host. */
  sitesOrigin?: string;
  /**
   * Serves the files instead of express.static on `sitesRoot` (STORAGE_DRIVER=s3: s3SiteHandler, issue 20 item 4);
   * it gets site paths only, with the site headers already set, and calls `next()` for a missing file.
   */
  fileServer?: RequestHandler;
  /** Small local files kept in memory (site-file-cache.ts); unset or 0 bytes: none. Not used with `fileServer`. */
  memoryCache?: SiteFileCacheLimits;
}

/**
 * Serves published sites at `/<contactId>/<directory_name>/…` straight from the sites root (deployment-gateway.md,
 * Resources: Deployment URL): index.html for folders, content types by extension, ETag/Last-Modified with 304s,
 * byte ranges (206/416), no directory listing, dotfiles (and the `.staging`/`.trash` folders) never served, nothing
 * outside the root; `Cache-Control` by {@link siteCacheControl}. Files are streamed by `send` (express.static) in
 * {@link SITE_READ_CHUNK_BYTES} chunks. Every site answer carries {@link SITE_CONTENT_SECURITY_POLICY} and no
 * `X-Powered-By`. Paths under `/api/` are let through at once (issue 14 item 1: the API pays nothing for sites).
 * - Without `sitesOrigin`: paths whose first segment is not a namespace (`/api`, `/docs`) pass through to the API.
 * - With `sitesOrigin`: requests for its host get sites only (anything else there is a bare 404, so the API and
 *   /docs are never served on the sites host); requests for any other host pass through to the API, which does
 *   not serve sites.
 * @param sitesRoot absolute sites directory (DEPLOY_SITES_DIR)
 */
export function siteServingMiddleware(sitesRoot: string, options: SiteServingOptions = {}): RequestHandler {
  const memory = !options.fileServer && options.memoryCache ? new SiteFileCache(options.memoryCache) : undefined;
  const fromDisk = express.static(sitesRoot, {
    dotfiles: 'ignore',
    index: ['index.html'],
    etag: true,
    lastModified: true,
    redirect: true,
    fallthrough: true,
    acceptRanges: true,
    // Set per file before send's own default (which only applies when no Cache-Control is set).
    setHeaders: (response, path, stats) => {
      response.setHeader('Cache-Control', siteCacheControl(path));
      if (memory?.enabled) memory.remember((response.req as Request).path, response.req as Request, response, path, stats);
    },
    // Passed on by serve-static and send to fs.createReadStream.
    ...({ highWaterMark: SITE_READ_CHUNK_BYTES } as object),
  });
  const serve: RequestHandler =
    options.fileServer ??
    (memory?.enabled
      ? (request, response, next) => {
          if (!cacheableRequest(request) || !memory.serve(request.path, request, response)) fromDisk(request, response, next);
        }
      : fromDisk);
  const sitesHost = options.sitesOrigin ? new URL(options.sitesOrigin).hostname.toLowerCase() : undefined;
  const isSitePath = (request: Request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    if (request.url.startsWith('/api/')) return false;
    const [, namespace, directory] = request.path.split('/');
    return Boolean(namespace && directory && !RESERVED_NAMESPACES.has(namespace.toLowerCase()) && NAMESPACE_PATTERN.test(namespace));
  };
  const notFound = (response: Response) => {
    setSiteHeaders(response);
    response.status(404).type('text/plain').send('Not found');
  };
  return (request: Request, response: Response, next: NextFunction) => {
    if (sitesHost === undefined) {
      if (!isSitePath(request)) return next();
      setSiteHeaders(response);
      return serve(request, response, next);
    }
    if (request.hostname?.toLowerCase() !== sitesHost) return next();
    if (!isSitePath(request)) return notFound(response);
    setSiteHeaders(response);
    serve(request, response, () => notFound(response));
  };
}
