import type { NextFunction, Request, Response } from 'express';

/**
 * Pre-routing middleware of `POST /api/deploy` (issue 14 item 2; the multipart twin of the JSON body gate in
 * src/common/http/body-parsing.ts). It reads nothing: for a multipart request it sets `Connection: close` on the
 * response provisionally, so that an answer given before the body is read (the guard's 401/403) ends the connection
 * instead of letting Node drain the rest of the upload. SiteArchiveInterceptor drops the header once the body has been
 * read whole.
 */
export function siteArchiveUploadGate(request: Request, response: Response, next: NextFunction): void {
  if (/^multipart\//i.test(request.headers['content-type'] ?? '')) response.setHeader('Connection', 'close');
  next();
}
