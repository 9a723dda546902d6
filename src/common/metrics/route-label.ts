/** The `route` label of requests no route matched (404s, published sites, Swagger UI's assets, the OAuth server). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The `route` label of a finished request (issue 15 item 1: "route templates only, never raw paths or ids"): the
 * matched route's template (`/api/runs/:id`), from Express's `req.baseUrl` + `req.route.path`, or
 * {@link UNMATCHED_ROUTE}. Pure. A template that isn't a plain string (a RegExp or array route) also gives
 * UNMATCHED_ROUTE, so no raw path can ever become a label.
 * @param request the Express request after routing
 */
export function routeLabel(request: { baseUrl?: string; route?: { path?: unknown } }): string {
  const path = request.route?.path;
  if (typeof path !== 'string' || path === '') return UNMATCHED_ROUTE;
  const template = `${request.baseUrl ?? ''}${path}`;
  return template.length <= 200 ? template : UNMATCHED_ROUTE;
}

/** The `method` label: one of the standard methods, else `other` (a client may send any token). Pure. */
export function methodLabel(method: string | undefined): string {
  const upper = (method ?? '').toUpperCase();
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].includes(upper) ? upper : 'other';
}
