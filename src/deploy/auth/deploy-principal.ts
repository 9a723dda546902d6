/** Permissions an agent token may carry (deployment-gateway.md, Resources: Token). */
export const DEPLOY_PERMISSIONS = ['deploy', 'exec', 'list', 'delete'] as const;
export type DeployPermission = (typeof DEPLOY_PERMISSIONS)[number];

/** An agent authenticated by its token (deployment-gateway.md, Authentication). */
export interface DeployAgentPrincipal {
  kind: 'agent';
  tokenId: string;
  tokenPrefix: string;
  agentId: string;
  /** The contactId the agent works in. */
  namespace: string;
  permissions: DeployPermission[];
}

/** The gateway's owner (administrator). */
export interface DeployOwnerPrincipal {
  kind: 'owner';
}

export type DeployPrincipal = DeployAgentPrincipal | DeployOwnerPrincipal;
