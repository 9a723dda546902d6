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
};

/** The action of a request from its method and matched route pattern, or undefined outside the gateway. */
export function gatewayAction(method: string, routePath: string | undefined): string | undefined {
  return routePath ? GATEWAY_ACTIONS[`${method.toUpperCase()} ${routePath}`] : undefined;
}
