import type { OutboundClient } from '../../../common/outbound/outbound-client';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import {
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
  withDeadline,
} from './channel';

/** Configuration of an `openai` channel: an OpenAI-compatible `/chat/completions` endpoint (issue: openai channel). */
export interface OpenAiChannelConfig {
  /** Base URL up to and including the version, e.g. `https://api.example.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <key>`; without it no Authorization header is sent. A secret. */
  apiKey?: string;
  /** Sent as the first message with role `system`. */
  systemPrompt?: string;
  /** 0..2; the endpoint's default when absent. */
  temperature?: number;
  /** Per-send timeout in ms; default 30 000. */
  timeoutMs?: number;
}

/**
 * Problems with an `openai` channel config, for DTO-level validation: baseUrl absolute http(s) without credentials,
 * model a non-empty string, apiKey and systemPrompt strings, temperature 0..2, timeoutMs 1..600 000.
 * Problems never quote the API key.
 * @returns an empty array when the config is usable
 */
export function validateOpenAiChannelConfig(config: unknown): string[] {
  if (!isRecord(config)) return ['openai channel config must be an object'];
  const problems: string[] = [];
  checkHttpUrl(config.baseUrl, 'baseUrl', problems);
  if (typeof config.model !== 'string' || config.model.trim() === '') problems.push('model is required');
  if (config.apiKey !== undefined && (typeof config.apiKey !== 'string' || config.apiKey === '' || /[\r\n\0]/.test(config.apiKey))) {
    problems.push('apiKey must be a non-empty single-line string');
  }
  if (config.systemPrompt !== undefined && typeof config.systemPrompt !== 'string') problems.push('systemPrompt must be a string');
  if (config.temperature !== undefined && (typeof config.temperature !== 'number' || !(config.temperature >= 0 && config.temperature <= 2))) {
    problems.push('temperature must be a number between 0 and 2');
  }
  checkTimeout(config.timeoutMs, problems);
  return problems;
}

/**
 * A channel that calls an OpenAI-compatible chat completions endpoint with the `openai` SDK
 * (evaluation-platform.md, What the service does: a target's channel; issue: openai channel).
 * Messages sent: the system prompt (if any), the case's history, then the message as a user turn. The SDK never
 * retries (sendWithRetry does), never logs, and reads nothing from the environment (no OPENAI_ORG_ID etc. leaking to a
 * third-party endpoint).
 * The SDK's every request goes through `outbound` (its `fetch`; issue 19 item 1): the address policy of
 * EVAL_TARGET_ALLOW_PRIVATE_NETWORKS, DNS pinned, redirects re-checked, the reply read under
 * EVAL_TARGET_MAX_RESPONSE_BYTES before the SDK parses it.
 * send() throws ChannelError: retryable on timeout, network failure, 408/429/5xx (with Retry-After / Retry-After-Ms);
 * non-retryable on other statuses, a reply over the byte cap (naming it), a refused address or a reply without
 * `choices[0].message.content` text.
 * @param outbound the evaluation targets' outbound client
 * @throws Error at creation when validateOpenAiChannelConfig reports problems
 */
export function createOpenAiChannel(config: OpenAiChannelConfig, outbound: OutboundClient): TargetChannel {
  const problems = validateOpenAiChannelConfig(config);
  if (problems.length > 0) throw new Error(`invalid openai channel config: ${problems.join('; ')}`);
  const timeoutMs = config.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS;
  const secrets = config.apiKey ? [config.apiKey] : [];
  const client = new OpenAI({
    baseURL: config.baseUrl,
    // The SDK insists on a key; without one the Authorization header is removed per request below.
    apiKey: config.apiKey ?? 'none',
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    // Our own deadline (withDeadline) fires first; the SDK's is only a backstop.
    timeout: timeoutMs + 1_000,
    logLevel: 'off',
    fetch: outbound.fetch({ timeoutMs: timeoutMs + 1_000 }),
  });

  return {
    async send(request: ChannelRequest): Promise<ChannelReply> {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
        ...(config.systemPrompt ? [{ role: 'system' as const, content: config.systemPrompt }] : []),
        ...request.history.map(({ role, content }) => ({ role, content })),
        { role: 'user', content: request.message },
      ];
      const started = performance.now();
      const completion = await withDeadline(timeoutMs, request.signal, (signal) =>
        client.chat.completions
          .create(
            { model: config.model, messages, ...(config.temperature !== undefined ? { temperature: config.temperature } : {}) },
            { signal, ...(config.apiKey ? {} : { headers: { Authorization: null } }) },
          )
          .catch((error: unknown) => {
            throw toChannelError(error, secrets);
          }),
      );
      const latencyMs = Math.round(performance.now() - started);
      const content: unknown = completion.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new ChannelError('target reply has no choices[0].message.content text', { retryable: false });
      return { output: content, latencyMs, raw: redactSecrets(completion, secrets) };
    },
  };
}

/** Maps an SDK error onto a ChannelError; SDK messages are not reused as they are, since some servers echo the key. */
function toChannelError(error: unknown, secrets: string[]): unknown {
  const outbound = outboundChannelError(error);
  if (outbound) return outbound;
  if (error instanceof APIConnectionTimeoutError) return new ChannelError('no reply within the timeout', { retryable: true });
  if (error instanceof APIConnectionError) return networkError(error);
  if (error instanceof APIError && error.status !== undefined && error.headers) {
    const body = error.error as { message?: unknown } | undefined;
    return statusError(error.status, error.headers, typeof body?.message === 'string' ? excerpt(body.message, secrets) : undefined);
  }
  return error;
}
