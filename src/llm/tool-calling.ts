import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage } from './chat-model';

/**
 * OpenAI function calling through the model port (src/llm/chat-model.ts, `completeWithTools`): our shapes of tool
 * definitions, tool calls and tool results, and their pure translation to and from the wire (`openai` 6 types).
 * No I/O here.
 */

/** Function names the OpenAI API accepts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A function the model may call: name (matching {@link TOOL_NAME_PATTERN}), description, JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description?: string | null;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A call the model asked for: `arguments` is the model's JSON text, unparsed (it may be invalid). */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
}

/** The assistant turn that asked for tool calls (replayed to the model in the next round). */
export interface AssistantToolCallsMessage {
  role: 'assistant';
  content: string | null;
  toolCalls: ToolCallRequest[];
}

/** The result of one tool call, as text (JSON usually), for the call with id `toolCallId`. */
export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  content: string;
}

/** A message of a tool-calling conversation. */
export type ToolChatMessage = ChatMessage | AssistantToolCallsMessage | ToolResultMessage;

/** What the model answered: tool calls to make (and maybe some text), or its final text. */
export type ToolCompletion = { kind: 'tool_calls'; toolCalls: ToolCallRequest[]; text: string | null } | { kind: 'text'; text: string };

/** Options of a tool-calling completion. */
export interface ToolCompletionOptions {
  temperature?: number;
  /** Time limit of the call, ms (default 60 000). */
  timeoutMs?: number;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** `auto` (default): the model decides; `none`: text only; `required`: it must call a tool. */
  toolChoice?: 'auto' | 'none' | 'required';
}

/**
 * Our messages as the API's messages.
 * @throws Error an assistant tool-call turn without calls
 */
export function toWireMessages(messages: readonly ToolChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    if ('toolCalls' in message) {
      if (message.toolCalls.length === 0) throw new Error('An assistant tool-call message needs at least one call.');
      return {
        role: 'assistant',
        content: message.content,
        tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
      };
    }
    return { role: message.role, content: message.content };
  });
}

/**
 * Tool definitions as the API's `tools`.
 * @throws Error a name not matching {@link TOOL_NAME_PATTERN}, or used twice
 */
export function toWireTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (!TOOL_NAME_PATTERN.test(tool.name)) throw new Error(`Tool name "${tool.name}" is not accepted by the API (^[a-zA-Z0-9_-]{1,64}$).`);
    if (seen.has(tool.name)) throw new Error(`Tool name "${tool.name}" is used twice.`);
    seen.add(tool.name);
    return {
      type: 'function' as const,
      function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters },
    };
  });
}

/**
 * The first choice's message as a {@link ToolCompletion}: function calls when there are any (other tool types are
 * ignored), else the text.
 * @throws Error neither function calls nor text
 */
export function fromWireMessage(message: Pick<ChatCompletionMessage, 'content' | 'tool_calls'> | undefined, model: string): ToolCompletion {
  const calls = (message?.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }] : [],
  );
  const text = typeof message?.content === 'string' ? message.content : null;
  if (calls.length > 0) return { kind: 'tool_calls', toolCalls: calls, text: text && text.length > 0 ? text : null };
  if (text === null) throw new Error(`The model ${model} returned neither text nor tool calls.`);
  return { kind: 'text', text };
}

/**
 * The arguments of a tool call as the model sent them (JSON text; blank means none: `{}`).
 * @returns the parsed value, or undefined when the text is not valid JSON
 */
export function parseToolArguments(argumentsJson: string): { value: unknown } | undefined {
  try {
    return { value: argumentsJson.trim() ? JSON.parse(argumentsJson) : {} };
  } catch {
    return undefined;
  }
}
