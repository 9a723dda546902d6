export { ChannelError, DEFAULT_CHANNEL_TIMEOUT_MS, parseRetryAfter } from './channel';
export type { ChannelReply, ChannelRequest, ChatTurn, TargetChannel } from './channel';
export { renderBodyTemplate } from './body-template';
export { createHttpChannel, validateHttpChannelConfig } from './http-channel';
export type { HttpChannelConfig } from './http-channel';
export { createOpenAiChannel, validateOpenAiChannelConfig } from './openai-channel';
export type { OpenAiChannelConfig } from './openai-channel';
export { computeRetryDelayMs, sendWithRetry } from './retry';
export type { RetryOptions } from './retry';
