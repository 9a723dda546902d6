import { type OutboundClient, outboundCause } from '../../../common/outbound/outbound-client';
import type { GuardedResponse } from '../../../common/outbound/guarded-http';
import { renderBodyTemplate, templateMentionsMessage } from './body-template';
import {
  cancelledError,
  ChannelError,
  type ChannelReply,
  type ChannelRequest,
  checkHttpUrl,
  checkTimeout,
  DEFAULT_CHANNEL_TIMEOUT_MS,
  excerpt,
  isRecord,
  networkError,
  outboundChannelError,
  redactSecrets,
  statusError,
  type TargetChannel,
} from './channel';
import { extractReply, plainReplyPath, replyPathProblem } from './reply-path';

/** Configuration of an `http` channel (issue: http channel, like promptfoo's HTTP provider). */
export interface HttpChannelConfig {
  url: string;
  /** Default POST. */
  method?: 'POST' | 'PUT';
  /** Sent as given; values are treated as secrets (never in errors, redacted from `raw`). */
  headers?: Record<string, string>;
  /** JSON value whose strings may hold {{message}}, {{history}}, {{session_id}}; see renderBodyTemplate. */
  bodyTemplate: unknown;
  /** JSONPath to the reply text in the JSON reply, e.g. `$.reply` or `$.choices[0].message.content`. */
  replyPath: string;
  /** Per-send timeout in ms; default 30 000. */
  timeoutMs?: number;
}

/** RFC 9110 token: the characters allowed in a header name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers whose values describe the format, not a credential; everything else is treated as secret. */
const PLAIN_HEADERS = new Set(['content-type', 'accept', 'accept-language', 'user-agent']);

/**
 * Problems with an `http` channel config, for DTO-level validation: url absolute http(s) without credentials,
 * method POST or PUT, headers a string map with valid names and single-line values, bodyTemplate present and holding
 * {{message}}, replyPath in the accepted JSONPath subset, timeoutMs 1..600 000. Problems never quote header values.
 * @returns an empty array when the config is usable
 */
export function validateHttpChannelConfig(config: unknown): string[] {
  if (!isRecord(config)) return ['http channel config must be an object'];
  const problems: string[] = [];
  checkHttpUrl(config.url, 'url', problems);
  if (config.method !== undefined && config.method !== 'POST' && config.method !== 'PUT') problems.push('method must be POST or PUT');
  if (config.headers !== undefined) {
    if (!isRecord(config.headers)) problems.push('headers must be an object of strings');
    else
      for (const [name, value] of Object.entries(config.headers)) {
        if (!HEADER_NAME.test(name)) problems.push(`header name ${JSON.stringify(name)} is not valid`);
        else if (typeof value !== 'string' || /[\r\n\0]/.test(value)) problems.push(`header ${name} must be a single-line string`);
      }
  }
  if (config.bodyTemplate === undefined) problems.push('bodyTemplate is required');
  else if (!templateMentionsMessage(config.bodyTemplate)) problems.push('bodyTemplate must contain {{message}}');
  const pathProblem = replyPathProblem(config.replyPath);
  if (pathProblem) problems.push(pathProblem);
  checkTimeout(config.timeoutMs, problems);
  return problems;
}

/**
 * A channel that sends each message as a JSON body to `config.url` and reads the reply text at `config.replyPath`
 * (evaluation-platform.md, What the service does: a target's channel; issue: http channel).
 * Every send goes through `outbound` (src/common/outbound; issue 19 item 1): the address policy of
 * EVAL_TARGET_ALLOW_PRIVATE_NETWORKS, DNS pinned, and the reply read as a stream under EVAL_TARGET_MAX_RESPONSE_BYTES.
 * Redirects are not followed, so configured headers only ever reach the configured URL.
 * send() throws ChannelError: retryable on timeout, network failure, 408/429/5xx (with Retry-After); non-retryable on
 * other statuses, a reply over the byte cap (the message names the cap), a refused address, a non-JSON reply, or a
 * reply path that matches no text.
 * @param outbound the evaluation targets' outbound client
 * @throws Error at creation when validateHttpChannelConfig reports problems
 */
export function createHttpChannel(config: HttpChannelConfig, outbound: OutboundClient): TargetChannel {
  const problems = validateHttpChannelConfig(config);
  if (problems.length > 0) throw new Error(`invalid http channel config: ${problems.join('; ')}`);
  const timeoutMs = config.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    headers[name.toLowerCase()] = value;
    // "Bearer sk-..." may be echoed back whole or as the bare token.
    if (!PLAIN_HEADERS.has(name.toLowerCase())) secrets.push(value, ...value.split(/\s+/).filter((part) => part.length >= 8));
  }

  const method = config.method ?? 'POST';
  const replyKeys = plainReplyPath(config.replyPath);
  return {
    async send(request: ChannelRequest): Promise<ChannelReply> {
      if (request.signal?.aborted) throw cancelledError();
      const body = JSON.stringify(renderBodyTemplate(config.bodyTemplate, { message: request.message, history: request.history, sessionId: request.sessionId }));
      const started = performance.now();
      let reply: GuardedResponse;
      try {
        // The outbound client's one deadline is the send's timeout (one timer per send, not one per layer).
        reply = await outbound.request({ url: config.url, method, headers, body, signal: request.signal, timeoutMs, maxRedirects: 0, returnRedirects: true });
      } catch (error) {
        if (request.signal?.aborted) throw cancelledError();
        const code = outboundCause(error)?.code;
        if (code === 'timeout') throw new ChannelError(`no reply within ${timeoutMs} ms`, { retryable: true });
        throw outboundChannelError(error) ?? networkError(error);
      }
      const latencyMs = Math.round(performance.now() - started);
      const { status } = reply;
      const text = reply.body.toString('utf8');
      if (status < 200 || status >= 300) {
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(reply.headers)) if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        throw statusError(status, replyHeaders, excerpt(text, secrets));
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ChannelError(`target reply (HTTP ${status}) is not JSON`, { retryable: false, status });
      }
      return { output: extractReply(parsed, config.replyPath, replyKeys), latencyMs, raw: redactSecrets(parsed, secrets) };
    },
  };
}
