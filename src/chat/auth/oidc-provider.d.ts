/**
 * The part of oidc-provider 8 (ESM, no bundled types) that the built-in authorization server uses
 * (authorization-server.ts). Loaded with a dynamic import so the CommonJS build reaches it through Node's ESM loader.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The client as oidc-provider holds it; extra metadata members (`tenant_id`) appear under their own names. */
  export interface OidcClient {
    clientId: string;
    clientSecret?: string;
    scope?: string;
    [extra: string]: unknown;
  }

  /** Koa context with the OIDC request state. */
  export interface OidcContext {
    origin: string;
    /** `params`: the request's parameters (scope, resource, …) once assembled; undefined before. */
    oidc: {
      client?: OidcClient;
      route?: string;
      params?: Record<string, unknown>;
      /** The browser's session at the authorization endpoint (`accountId` once signed in). */
      session?: { accountId?: string };
      /** The scopes of the authorization request's `scope` parameter. */
      requestParamScopes?: Set<string>;
      /** The request's resource servers by indicator (RFC 8707). */
      resourceServers?: Record<string, unknown>;
    };
  }

  /** A grant (what an account allowed a client), as the authorization endpoint builds it. */
  export interface OidcGrant {
    addResourceScope(indicator: string, scope: string): void;
    rejectResourceScope(indicator: string, scope: string): void;
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  /** A stored interaction (a prompt the authorization request waits on). */
  export interface OidcInteraction {
    uid: string;
    /** Expiry, seconds since the epoch. */
    exp: number;
    prompt?: { name: string };
    result?: Record<string, unknown>;
    /** Where the browser resumes the authorization request (`/oauth/auth/{uid}`). */
    returnTo: string;
    save(ttlS: number): Promise<string>;
  }

  /** An issued token while it is being built. */
  export interface OidcToken {
    kind: string;
    scope?: string;
    clientId?: string;
    /** The account the token is for (authorization-code flow); undefined for client credentials. */
    accountId?: string;
    /** The RFC 8707 resource server the token is for (its `scope` is the space-separated scopes it carries). */
    resourceServer?: { scope?: string; audience?: string };
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    readonly Client: { prototype: { compareClientSecret(this: OidcClient, actual: string): Promise<boolean> | boolean } };
    readonly Grant: new (properties: { clientId: string; accountId: string }) => OidcGrant;
    readonly Interaction: { find(uid: string): Promise<OidcInteraction | undefined> };
    /** The interaction the request's interaction cookie names. @throws SessionNotFound (status 400) */
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<OidcInteraction & { prompt: { name: string } }>;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  export const errors: {
    InvalidTarget: new (description?: string, detail?: string) => Error;
    InvalidScope: new (description: string, scope: string, detail?: string) => Error;
  };

  export default Provider;
}
