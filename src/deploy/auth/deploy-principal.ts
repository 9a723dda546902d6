import type { DeployPermission } from '../../config/app-config';

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
