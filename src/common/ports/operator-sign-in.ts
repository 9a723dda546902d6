import { Global, Injectable, Module } from '@nestjs/common';
import type { Request, Response } from 'express';

/**
 * The port between the evaluation wing's operator single sign-on (EVAL_SSO_*, passport-oauth2 with PKCE) and any
 * other wing that needs an operator to sign in through it (issue 13 item 2: the chat wing's built-in authorization
 * server logs operators in for Swagger UI's "Authorize"). DESIGN.md, "Wings meet at ports, not at internals": the
 * evaluation wing registers its {@link OperatorSignInStarter}; a consuming wing registers an
 * {@link OperatorSignInContinuation} under its `purpose`. Both import only this file.
 *
 * The sign-in keeps the single sign-on callback URL the provider already knows (EVAL_SSO_CALLBACK_URL): the handoff
 * travels in the stored, single-use `state` of the sign-in, so the callback knows which wing takes the operator on.
 */

/** The operator single sign-on let in: `user:<verified e-mail or login>` and that name. */
export interface SignedInOperator {
  subject: string;
  userName: string;
}

/** Who takes over once the operator is back: the consuming wing's purpose and its own reference (≤ 200 chars). */
export interface OperatorSignInHandoff {
  purpose: string;
  reference: string;
}

/** The single sign-on as another wing starts it. */
export interface OperatorSignInStarter {
  /** Whether single sign-on is configured (EVAL_SSO_CLIENT_ID). */
  readonly enabled: boolean;
  /**
   * Answers the request with a redirect (302) to the identity provider, remembering `handoff` with the sign-in's state.
   * @throws HttpException 404 when single sign-on is off, 502/504 when the provider's discovery fails
   */
  start(request: Request, response: Response, handoff: OperatorSignInHandoff): Promise<void>;
}

/**
 * What a wing does with an operator the single sign-on let in (EVAL_SSO_ALLOWED_* already applied).
 * @param reference the handoff's reference, as given to {@link OperatorSignInStarter.start}
 * @returns the URL (absolute, or a path on this server) to send the browser to (303)
 * @throws HttpException (answered as problem+json) when the reference is unknown or expired
 */
export type OperatorSignInContinuation = (operator: SignedInOperator, reference: string) => Promise<string>;

/** Where the single sign-on's starter and the consuming wings' continuations meet (one per app). */
@Injectable()
export class OperatorSignInRegistry {
  private starter?: OperatorSignInStarter;
  private readonly continuations = new Map<string, OperatorSignInContinuation>();

  /** Registers the single sign-on (the evaluation wing, at construction). */
  registerStarter(starter: OperatorSignInStarter): void {
    this.starter = starter;
  }

  /** @returns the single sign-on when it is configured, else undefined */
  enabledStarter(): OperatorSignInStarter | undefined {
    return this.starter?.enabled ? this.starter : undefined;
  }

  /** Registers what happens to operators signed in for `purpose` (a second registration replaces the first). */
  registerContinuation(purpose: string, continuation: OperatorSignInContinuation): void {
    this.continuations.set(purpose, continuation);
  }

  /** @returns the continuation of `purpose`, or undefined when no wing registered one */
  continuation(purpose: string): OperatorSignInContinuation | undefined {
    return this.continuations.get(purpose);
  }
}

/** Makes {@link OperatorSignInRegistry} one instance visible to every wing (global, imported by AppModule). */
@Global()
@Module({ providers: [OperatorSignInRegistry], exports: [OperatorSignInRegistry] })
export class OperatorSignInPortModule {}
