import type { OutboundClient } from '../common/outbound/outbound-client';
import { createChatModel, type ChatModelSettings, type ToolCallingChatModel } from './chat-model';

/**
 * The chat wing's default model (CHAT_LLM_BASE_URL, CHAT_LLM_MODEL, CHAT_LLM_API_KEY; AppConfig.chatLlm) as model
 * settings, or null when none is configured (base URL or model unset). Shared by the chat wing's model users.
 */
export function chatLlmSettings(chatLlm: { baseUrl?: string; model?: string; apiKey?: string }): ChatModelSettings | null {
  if (!chatLlm.baseUrl || !chatLlm.model) return null;
  return { baseUrl: chatLlm.baseUrl, model: chatLlm.model, apiKey: chatLlm.apiKey ?? null };
}

/** The chat wing's model: its settings and one client for them. */
export interface ChatLlm {
  settings: ChatModelSettings;
  model: ToolCallingChatModel;
}

/**
 * The chat wing's model client, or null when none is configured. The configuration is fixed for the process, so a
 * service builds it once (in its constructor), not per request.
 * @param outbound the chat model's outbound client (CHAT_LLM_ALLOW_PRIVATE_NETWORKS, CHAT_LLM_MAX_RESPONSE_BYTES)
 */
export function chatLlm(chatLlmConfig: { baseUrl?: string; model?: string; apiKey?: string }, outbound: OutboundClient): ChatLlm | null {
  const settings = chatLlmSettings(chatLlmConfig);
  return settings && { settings, model: createChatModel(settings, outbound) };
}
