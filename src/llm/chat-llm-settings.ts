import type { ChatModelSettings } from './chat-model';

/**
 * The chat wing's default model (CHAT_LLM_BASE_URL, CHAT_LLM_MODEL, CHAT_LLM_API_KEY; AppConfig.chatLlm) as model
 * settings, or null when none is configured (base URL or model unset). Shared by the chat wing's model users.
 */
export function chatLlmSettings(chatLlm: { baseUrl?: string; model?: string; apiKey?: string }): ChatModelSettings | null {
  if (!chatLlm.baseUrl || !chatLlm.model) return null;
  return { baseUrl: chatLlm.baseUrl, model: chatLlm.model, apiKey: chatLlm.apiKey ?? null };
}
