import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES } from '../namespace';

/**
 * Serves published sites at `/<contactId>/<directory_name>/…` straight from the sites root (deployment-gateway.md,
 * Resources: Deployment URL): index.html for folders, content types by extension, ETag/Last-Modified, no directory
 * listing, dotfiles (and the `.staging`/`.trash` folders) never served, nothing outside the root. Paths whose first
 * segment is not a namespace (`/api`, `/docs`) pass through to the API.
 * @param sitesRoot absolute sites directory (DEPLOY_SITES_DIR)
 */
export function siteServingMiddleware(sitesRoot: string): RequestHandler {
  const serve = express.static(sitesRoot, {
    dotfiles: 'ignore',
    index: ['index.html'],
    etag: true,
    lastModified: true,
    redirect: true,
    fallthrough: true,
    maxAge: 0,
    setHeaders: (response) => response.setHeader('X-Content-Type-Options', 'nosniff'),
  });
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    const [, namespace, directory] = request.path.split('/');
    if (!namespace || !directory || RESERVED_NAMESPACES.has(namespace.toLowerCase()) || !NAMESPACE_PATTERN.test(namespace)) return next();
    serve(request, response, next);
  };
}
