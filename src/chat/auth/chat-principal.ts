/** Who called a chat route: the verified access token's facts, and the tenant the request acts for. */
export interface ChatPrincipal {
  kind: 'chat-token';
  /** `sub` of the token (the client id for client-credentials tokens). */
  subject: string;
  clientId?: string;
  scopes: string[];
  /** Every tenant the token names. */
  tenants: string[];
  /** The tenant this request acts for (path segment or the token's one tenant); undefined on platform routes. */
  tenantId?: string;
}
