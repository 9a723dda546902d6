import OpenAI from 'openai';
import { type OutboundClient, outboundCause } from '../common/outbound/outbound-client';
import { fromWireMessage, toWireMessages, toWireTools, type ToolChatMessage, type ToolCompletion, type ToolCompletionOptions, type ToolDefinition } from './tool-calling';

/** A chat message for a model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Where a model is and how to reach it (from a model configuration; the key is a secret). */
export interface ChatModelSettings {
  baseUrl: string;
  model: string;
  apiKey?: string | null;
}

/** A chat-completion model. */
export interface ChatModel {
  /**
   * @returns the first choice's text
   * @throws Error when the call fails or times out; the message never contains the key
   */
  complete(messages: ChatMessage[], options?: { temperature?: number; timeoutMs?: number; json?: boolean }): Promise<string>;
}

/** A chat-completion model that can also call functions (OpenAI function calling; src/llm/tool-calling.ts). */
export interface ToolCallingChatModel extends ChatModel {
  /**
   * One completion with `tools` offered: the model answers with tool calls (the caller runs them and asks again with
   * an {@link ToolChatMessage} assistant turn and one `tool` result per call) or with its final text.
   * @throws Error when the call fails, times out or is aborted, or the answer has neither text nor tool calls; a
   *   tool name not matching ^[a-zA-Z0-9_-]{1,64}$ or used twice. The message never contains the key.
   */
  completeWithTools(messages: ToolChatMessage[], tools: ToolDefinition[], options?: ToolCompletionOptions): Promise<ToolCompletion>;
}

/**
 * The one port to chat-completion models (DESIGN.md, External peers: OpenAI-compatible HTTP through the `openai`
 * package). Wings call models only through this. No SDK retries: callers decide.
 * Every request goes through `outbound` (the SDK's `fetch`; issue 19 item 1): the use's address policy with DNS
 * pinned and redirects re-checked, and the reply read as a stream under the use's byte cap before the SDK parses it.
 * A refused address or a reply over the cap rejects with an Error saying so (naming the cap's variable); the key is
 * never in a message.
 * @param outbound the calling use's outbound client (chat: CHAT_LLM_*, evaluation: EVAL_MODEL_*)
 */
export function createChatModel(settings: ChatModelSettings, outbound: OutboundClient): ToolCallingChatModel {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey || 'none',
    maxRetries: 0,
    organization: null,
    project: null,
    logLevel: 'off',
    fetch: outbound.fetch(),
  });
  return {
    async complete(messages, options = {}) {
      const response = await withOutboundErrors(settings.model, client.chat.completions.create(
        {
          model: settings.model,
          messages,
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.json ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { timeout: options.timeoutMs ?? 60_000 },
      ));
      const text = response.choices[0]?.message?.content;
      if (typeof text !== 'string') throw new Error(`The model ${settings.model} returned no text.`);
      return text;
    },
    async completeWithTools(messages, tools, options = {}) {
      const wireTools = toWireTools(tools);
      const response = await withOutboundErrors(settings.model, client.chat.completions.create(
        {
          model: settings.model,
          messages: toWireMessages(messages),
          ...(wireTools.length > 0 ? { tools: wireTools, tool_choice: options.toolChoice ?? 'auto' } : {}),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        },
        { timeout: options.timeoutMs ?? 60_000, ...(options.signal ? { signal: options.signal } : {}) },
      ));
      return fromWireMessage(response.choices[0]?.message, settings.model);
    },
  };
}

/**
 * Awaits an SDK call; when it failed in the outbound client (refused address, reply over the byte cap, DNS), rejects
 * with an Error whose message says that instead of the SDK's bare "Connection error.".
 */
async function withOutboundErrors<T>(model: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const outbound = outboundCause(error);
    if (outbound && outbound.code !== 'aborted') throw Object.assign(new Error(`The model ${model} call failed: ${outbound.detail}`), { cause: outbound });
    throw error;
  }
}
