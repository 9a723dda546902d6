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
    oidc: { client?: OidcClient; route?: string; params?: Record<string, unknown> };
  }

  /** An issued token while it is being built. */
  export interface OidcToken {
    kind: string;
    scope?: string;
    clientId?: string;
    /** The RFC 8707 resource server the token is for (its `scope` is the space-separated scopes it carries). */
    resourceServer?: { scope?: string; audience?: string };
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    readonly Client: { prototype: { compareClientSecret(this: OidcClient, actual: string): Promise<boolean> | boolean } };
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  export const errors: {
    InvalidTarget: new (description?: string, detail?: string) => Error;
    InvalidScope: new (description: string, scope: string, detail?: string) => Error;
  };

  export default Provider;
}
