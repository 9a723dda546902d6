import OpenAI from 'openai';

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

/**
 * The one port to chat-completion models (DESIGN.md, External peers: OpenAI-compatible HTTP through the `openai`
 * package). Wings call models only through this. No SDK retries: callers decide.
 */
export function createChatModel(settings: ChatModelSettings): ChatModel {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey || 'none',
    maxRetries: 0,
    organization: null,
    project: null,
    logLevel: 'off',
  });
  return {
    async complete(messages, options = {}) {
      const response = await client.chat.completions.create(
        {
          model: settings.model,
          messages,
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.json ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { timeout: options.timeoutMs ?? 60_000 },
      );
      const text = response.choices[0]?.message?.content;
      if (typeof text !== 'string') throw new Error(`The model ${settings.model} returned no text.`);
      return text;
    },
  };
}
