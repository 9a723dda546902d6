import type { ChatMessage } from '../../llm/chat-model';
import { parseToolArguments, type ToolDefinition } from '../../llm/tool-calling';
import { INTENT_NAME_PATTERN } from '../intent-records/intention-records.dto';
import { formatVariableValue, renderTemplate, type TemplateVariables } from '../variables/template.rules';

/**
 * The pure rules of the AI reply composer (src/chat/ai-reply/ai-reply-composer.service.ts; issue 6, "The inbound
 * pipeline"): prompt assembly with bounded sizes, the function names the model sees for the tenant's tool provider
 * operations and how they map back, the built-in `report_customer_intent` function, and the rendering of the final
 * text. No I/O.
 */

/** Name of the built-in function through which the model reports the customer's intent. */
export const REPORT_INTENT_FUNCTION = 'report_customer_intent';

/** The built-in function's definition: `{ intent: string, confidence?: number 0..1 }`. */
export const REPORT_INTENT_TOOL: ToolDefinition = {
  name: REPORT_INTENT_FUNCTION,
  description:
    'Report what the customer wants in their latest message, as a short intent name (e.g. "refund_request"), with your confidence 0..1. Call it at most once per reply, before answering; it does not answer the customer.',
  parameters: {
    type: 'object',
    properties: {
      intent: { type: 'string', description: 'Short intent name: letters, digits, spaces, "_", ".", ":" or "-" (1..100).', maxLength: 100 },
      confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure you are, 0..1.' },
    },
    required: ['intent'],
    additionalProperties: false,
  },
};

/** Longest text of one variable value in the prompt, characters (longer values are cut). */
export const PROMPT_VARIABLE_VALUE_MAX_CHARS = 500;
/** Most known intent names listed in the prompt. */
export const PROMPT_MAX_KNOWN_INTENTS = 50;
/** Marker appended where text was cut. */
const CUT = '…';

// ---------------------------------------------------------------------------------------------------- tool names

/** A tool provider operation as offered (ToolProvidersService.listTools). */
export interface ProviderOperation {
  providerId: string;
  providerName: string;
  /** The operation's name (`^[A-Za-z][A-Za-z0-9_-]{0,63}$`, unique within its provider). */
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
}

/** The functions offered to the model, and which provider operation each name stands for. */
export interface ToolCatalog {
  /** The built-in {@link REPORT_INTENT_TOOL} first, then one function per operation. */
  definitions: ToolDefinition[];
  /** Function name → provider operation (the built-in is not in it). */
  operations: Map<string, { providerId: string; operation: string }>;
}

/**
 * Names the tenant's provider operations as functions (OpenAI names: ^[a-zA-Z0-9_-]{1,64}$, unique). An operation
 * keeps its own name when no other operation (of any provider) has it and it is not the built-in's; otherwise it
 * becomes `<provider>__<operation>` (provider name reduced to [a-zA-Z0-9_-], cut to fit 64), and a number is added
 * (`_2`, `_3` …) while still taken. Descriptions are prefixed with the provider's name. Deterministic for the same
 * input order.
 */
export function buildToolCatalog(operations: readonly ProviderOperation[]): ToolCatalog {
  const counts = new Map<string, number>();
  for (const operation of operations) counts.set(operation.name, (counts.get(operation.name) ?? 0) + 1);
  const taken = new Set<string>([REPORT_INTENT_FUNCTION]);
  const definitions: ToolDefinition[] = [REPORT_INTENT_TOOL];
  const mapping = new Map<string, { providerId: string; operation: string }>();
  for (const operation of operations) {
    let name = sanitizeToolName(operation.name) || 'operation';
    if (counts.get(operation.name)! > 1 || taken.has(name)) name = qualifiedName(operation.providerName, name);
    name = uniqueName(name, taken);
    taken.add(name);
    mapping.set(name, { providerId: operation.providerId, operation: operation.name });
    const description = `[${operation.providerName}] ${operation.description ?? operation.name}`;
    definitions.push({ name, description, parameters: operation.parameters });
  }
  return { definitions, operations: mapping };
}

/** `name` with characters outside [a-zA-Z0-9_-] replaced by `_`, runs of `_` collapsed, at most 64 characters. */
export function sanitizeToolName(name: string): string {
  return name
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
}

function qualifiedName(providerName: string, operation: string): string {
  const provider = sanitizeToolName(providerName) || 'provider';
  const room = 64 - operation.length - 2;
  return room >= 1 ? `${provider.slice(0, room)}__${operation}` : operation.slice(0, 64);
}

function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${name.slice(0, 64 - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

// ----------------------------------------------------------------------------------------------- intent report

/** The intent the model reported, or why its report is refused. */
export type IntentReport = { ok: true; intent: { name: string; confidence: number | null } } | { ok: false; error: string };

/**
 * Reads the arguments of a `report_customer_intent` call (the model's JSON text): `intent` an intent name
 * (INTENT_NAME_PATTERN, trimmed), `confidence` a number 0..1 (clamped) or absent/null.
 */
export function parseIntentReport(argumentsJson: string): IntentReport {
  const parsed = parseToolArguments(argumentsJson);
  if (!parsed) return { ok: false, error: 'The arguments are not valid JSON.' };
  const args = parsed.value;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { ok: false, error: 'The arguments must be a JSON object.' };
  const { intent, confidence } = args as { intent?: unknown; confidence?: unknown };
  const name = typeof intent === 'string' ? intent.trim() : '';
  if (!name || !INTENT_NAME_PATTERN.test(name)) return { ok: false, error: '`intent` must be 1..100 letters, digits, spaces, "_", ".", ":" or "-".' };
  if (confidence !== undefined && confidence !== null && (typeof confidence !== 'number' || !Number.isFinite(confidence))) {
    return { ok: false, error: '`confidence` must be a number 0..1.' };
  }
  const value = typeof confidence === 'number' ? Math.min(1, Math.max(0, confidence)) : null;
  return { ok: true, intent: { name, confidence: value } };
}

// ---------------------------------------------------------------------------------------------- final text

/**
 * The text sent to the customer: the model's answer with `{{name}}` templates filled from the contact's variables
 * (template.rules.ts: one pass, unknown names kept as written, no expressions), trimmed.
 */
export function renderReplyText(answer: string, variables: TemplateVariables): string {
  return renderTemplate(answer, variables, { unknown: 'keep' }).trim();
}

// ---------------------------------------------------------------------------------------------- prompt

/** One message of the contact's history (chat_message), oldest first. */
export interface PromptHistoryMessage {
  sender: 'customer' | 'staff' | 'ai';
  msgType: string;
  content: string | null;
  attachmentFileName?: string | null;
}

/** Everything the prompt is built from. */
export interface ReplyPromptInput {
  staff: { name: string; persona: string; description: string | null };
  /** The contact's open conversation's group, or null when it has none. */
  group: {
    name: string;
    description: string | null;
    systemPrompt: string | null;
    maxReplyChars: number | null;
    eventDefinitions: { name: string; eventType: string; description: string | null }[];
    triggers: { name: string; action: string; description: string | null }[];
  } | null;
  /** Scripts found for the latest customer text, best first (content not yet rendered). */
  scripts: { id: string; title: string; content: string }[];
  /** The contact's variables, name → value. */
  variables: ReadonlyMap<string, unknown>;
  /** Intent names the tenant's rules and events know, for the model to prefer. */
  knownIntents: string[];
  history: PromptHistoryMessage[];
  limits: { historyMaxChars: number; scriptMaxChars: number };
}

/** The assembled prompt. */
export interface ReplyPrompt {
  messages: ChatMessage[];
  /** Scripts whose text is (at least partly) in the prompt. */
  scriptIds: string[];
  /** History messages left out for the character cap. */
  droppedHistory: number;
}

/**
 * Builds the model's messages: one system message — the digital staff's persona (and description), the
 * conversation group's configuration (name, description, system prompt, reply length, event definitions and
 * triggers summarized), the contact's variables, the scripts (their `{{name}}` rendered with the variables; at most
 * `scriptMaxChars` characters of script text in all, the last one cut), the known intents and how to use the
 * functions — then the history as user (customer) / assistant (staff, ai) turns, the newest messages that fit in
 * `historyMaxChars` (the latest one is always kept, cut to the cap). Attachments appear as `[image: name]`.
 */
export function buildReplyPrompt(input: ReplyPromptInput): ReplyPrompt {
  const sections: string[] = [];
  sections.push(input.staff.persona.trim());
  if (input.staff.description?.trim()) sections.push(`About you (${input.staff.name}): ${input.staff.description.trim()}`);

  if (input.group) {
    const group = input.group;
    const lines = [`## Conversation group: ${group.name}`];
    if (group.description?.trim()) lines.push(group.description.trim());
    if (group.systemPrompt?.trim()) lines.push(group.systemPrompt.trim());
    if (group.maxReplyChars) lines.push(`Keep every reply under ${group.maxReplyChars} characters.`);
    if (group.eventDefinitions.length) {
      lines.push('Events tracked in this conversation:');
      for (const event of group.eventDefinitions) lines.push(`- ${event.name} (${event.eventType})${event.description ? `: ${event.description}` : ''}`);
    }
    if (group.triggers.length) {
      lines.push('Automatic actions that may follow those events (done by the system, not by you):');
      for (const trigger of group.triggers) lines.push(`- ${trigger.name}: ${trigger.action}${trigger.description ? ` (${trigger.description})` : ''}`);
    }
    sections.push(lines.join('\n'));
  }

  if (input.variables.size > 0) {
    const lines = ['## Facts about this customer and business (variables)'];
    for (const [name, value] of input.variables) lines.push(`- ${name}: ${cut(formatVariableValue(value), PROMPT_VARIABLE_VALUE_MAX_CHARS)}`);
    lines.push('You may write {{name}} in your reply to insert a variable\'s value.');
    sections.push(lines.join('\n'));
  }

  const scriptIds: string[] = [];
  if (input.scripts.length > 0 && input.limits.scriptMaxChars > 0) {
    const lines = ['## Approved scripts for this question (prefer their wording and facts)'];
    let budget = input.limits.scriptMaxChars;
    for (const script of input.scripts) {
      if (budget <= 0) break;
      const text = renderTemplate(script.content, input.variables, { unknown: 'keep' });
      const shown = cut(text, budget);
      budget -= shown.length;
      scriptIds.push(script.id);
      lines.push(`### ${script.title}\n${shown}`);
    }
    sections.push(lines.join('\n'));
  }

  const intents = [...new Set(input.knownIntents.map((name) => name.trim()).filter(Boolean))].slice(0, PROMPT_MAX_KNOWN_INTENTS);
  sections.push(
    [
      '## How to answer',
      'Reply to the customer\'s latest message in their language, as a chat message (plain text).',
      'Call the available functions when you need facts you do not have; never invent order, account or price details.',
      `When you can tell what the customer wants, call ${REPORT_INTENT_FUNCTION} once with a short intent name and your confidence.`,
      ...(intents.length ? [`Known intent names (use one of them when it fits): ${intents.join(', ')}`] : []),
    ].join('\n'),
  );

  const { turns, dropped } = historyTurns(input.history, input.limits.historyMaxChars);
  return { messages: [{ role: 'system', content: sections.join('\n\n') }, ...turns], scriptIds, droppedHistory: dropped };
}

/**
 * The history as chat turns (customer → user, staff and ai → assistant), oldest first: the newest messages whose
 * text fits in `maxChars` in all; the latest message is always kept (cut to the cap). Empty texts are skipped.
 * @returns the turns and how many non-empty messages were left out
 */
export function historyTurns(history: readonly PromptHistoryMessage[], maxChars: number): { turns: ChatMessage[]; dropped: number } {
  const texts = history.map((message) => ({ message, text: describeMessage(message) })).filter((entry) => entry.text.length > 0);
  const turns: ChatMessage[] = [];
  let budget = maxChars;
  for (let index = texts.length - 1; index >= 0; index--) {
    let { text } = texts[index];
    if (text.length > budget) {
      if (turns.length > 0) break;
      text = cut(text, Math.max(1, budget));
    }
    budget -= text.length;
    turns.push({ role: texts[index].message.sender === 'customer' ? 'user' : 'assistant', content: text });
  }
  return { turns: turns.reverse(), dropped: texts.length - turns.length };
}

/** A message as the model reads it: its text, or `[type: file name]` for an attachment; "" for empty text. */
export function describeMessage(message: PromptHistoryMessage): string {
  if (message.msgType === 'text') return (message.content ?? '').trim();
  return `[${message.msgType}${message.attachmentFileName ? `: ${message.attachmentFileName}` : ''}]`;
}

/** `text` cut to at most `max` characters, ending in "…" when cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= CUT.length) return text.slice(0, max);
  return text.slice(0, max - CUT.length) + CUT;
}

/** The latest customer text of a history (what scripts are searched for), or null when the customer sent none. */
export function latestCustomerText(history: readonly PromptHistoryMessage[]): string | null {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index];
    if (message.sender === 'customer' && message.msgType === 'text' && message.content?.trim()) return message.content.trim();
  }
  return null;
}

// ---------------------------------------------------------------------------------------------- stored caps

/**
 * Characters of one history message's text read from the database (`left(content, n)` in the history query), given
 * the prompt's history cap: one more than the cap, so that a message cut by the query is still marked as cut by
 * {@link historyTurns}. At most 4 bytes per character in UTF-8, so one message's read is bounded by 4 × n bytes
 * whatever size the stored row has (issue 19 item 2: "the history read for a prompt is bounded in bytes at the SQL
 * level").
 */
export function historyReadChars(historyMaxChars: number): number {
  return Math.max(1, Math.trunc(historyMaxChars)) + 1;
}

/**
 * Why a model's answer may not be stored as an AI message (issue 19 item 2: every stored model answer is capped when
 * stored): the raw answer (`original_ai_content`) or the text to send (`content`, after variables were filled in) is
 * over `maxChars` characters (CHAT_AI_REPLY_MAX_CHARS). Over-long answers are refused, not cut: a reply cut in the
 * middle would reach a real customer as if it were whole.
 * @returns the readable reason, or null when both fit
 */
export function storedReplyProblem(reply: { content: string; originalAiContent: string | null }, maxChars: number): string | null {
  const longest = Math.max(reply.content.length, reply.originalAiContent?.length ?? 0);
  if (longest <= maxChars) return null;
  return `The model's reply is ${longest} characters, over CHAT_AI_REPLY_MAX_CHARS=${maxChars}: it was not stored or sent.`;
}

/** Most tool calls the model may ask for in one round; more is treated as a malformed answer. */
export const MAX_TOOL_CALLS_PER_ROUND = 16;

/**
 * Why a round of tool calls the model sent is malformed (issue 19 item 2: poison input fails with its reason): not
 * an array, more than {@link MAX_TOOL_CALLS_PER_ROUND} calls, or a call whose `id`, `name` or `arguments` is not
 * a string (`id` 1..256 characters, `name` 1..256). Argument JSON that does not parse is not malformed here: the
 * model is told so and may correct itself.
 * @returns the readable reason, or null when every call is well formed
 */
export function malformedToolCalls(calls: unknown): string | null {
  if (!Array.isArray(calls)) return 'The chat model sent tool calls that are not a list.';
  if (calls.length > MAX_TOOL_CALLS_PER_ROUND) return `The chat model asked for ${calls.length} tool calls in one round (at most ${MAX_TOOL_CALLS_PER_ROUND}).`;
  for (const [index, call] of calls.entries()) {
    const { id, name, arguments: args } = (call ?? {}) as { id?: unknown; name?: unknown; arguments?: unknown };
    const fine = typeof id === 'string' && id.length > 0 && id.length <= 256 && typeof name === 'string' && name.length > 0 && name.length <= 256 && typeof args === 'string';
    if (!fine) return `The chat model sent a malformed tool call (call ${index + 1}: id, name and arguments must be strings).`;
  }
  return null;
}

/**
 * A tool result as the text the model reads: JSON of `value`, cut to `maxChars` (the cut is marked; the model is
 * told the result was truncated).
 */
export function toolResultText(value: unknown, maxChars: number): string {
  const json = JSON.stringify(value) ?? 'null';
  if (json.length <= maxChars) return json;
  const note = `… [truncated: ${json.length} characters in all]`;
  return `${json.slice(0, Math.max(0, maxChars - note.length))}${note}`;
}
