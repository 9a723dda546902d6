/** Audit action name of each gateway route (`METHOD route-pattern`), so refusals are recorded under the same name. */
export const GATEWAY_ACTIONS: Record<string, string> = {
  'POST /api/auth/register': 'register',
  'POST /api/deploy': 'deploy',
  'POST /api/upload': 'upload',
  'POST /api/exec': 'exec',
  'GET /api/deployments': 'list',
  'DELETE /api/deploy/:id': 'delete',
  'GET /api/admin/tokens': 'admin.list-tokens',
  'DELETE /api/admin/tokens/:prefix': 'admin.revoke-token',
  'GET /api/admin/audit': 'admin.read-audit',
  'GET /api/admin/namespaces': 'admin.list-namespaces',
  'POST /api/admin/namespaces/:namespace/grants': 'admin.issue-join-grant',
  'GET /api/admin/namespaces/:namespace/grants': 'admin.list-join-grants',
  'DELETE /api/admin/namespaces/:namespace/grants/:prefix': 'admin.revoke-join-grant',
};

/** The action of a request from its method and matched route pattern, or undefined outside the gateway. */
export function gatewayAction(method: string, routePath: string | undefined): string | undefined {
  return routePath ? GATEWAY_ACTIONS[`${method.toUpperCase()} ${routePath}`] : undefined;
}
