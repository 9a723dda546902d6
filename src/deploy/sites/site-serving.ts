import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES } from '../namespace';

/**
 * The policy every site response carries (issue 12 item 4): a CSP sandbox WITHOUT `allow-same-origin`, so a site's
 * document runs in an opaque origin. Its scripts run (and forms, pop-ups, dialogs, downloads work), but they can't
 * read the API origin's localStorage, sessionStorage, IndexedDB or cookies, nor another site's; pop-ups and frames
 * it opens inherit the sandbox; it can't navigate the top window.
 */
export const SITE_CONTENT_SECURITY_POLICY = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

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
}

/**
 * Serves published sites at `/<contactId>/<directory_name>/…` straight from the sites root (deployment-gateway.md,
 * Resources: Deployment URL): index.html for folders, content types by extension, ETag/Last-Modified, no directory
 * listing, dotfiles (and the `.staging`/`.trash` folders) never served, nothing outside the root. Every site answer
 * carries {@link SITE_CONTENT_SECURITY_POLICY} and no `X-Powered-By`.
 * - Without `sitesOrigin`: paths whose first segment is not a namespace (`/api`, `/docs`) pass through to the API.
 * - With `sitesOrigin`: requests for its host get sites only (anything else there is a bare 404, so the API and
 *   /docs are never served on the sites host); requests for any other host pass through to the API, which does
 *   not serve sites.
 * @param sitesRoot absolute sites directory (DEPLOY_SITES_DIR)
 */
export function siteServingMiddleware(sitesRoot: string, options: SiteServingOptions = {}): RequestHandler {
  const serve = options.fileServer ?? express.static(sitesRoot, {
    dotfiles: 'ignore',
    index: ['index.html'],
    etag: true,
    lastModified: true,
    redirect: true,
    fallthrough: true,
    maxAge: 0,
  });
  const sitesHost = options.sitesOrigin ? new URL(options.sitesOrigin).hostname.toLowerCase() : undefined;
  const isSitePath = (request: Request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
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
