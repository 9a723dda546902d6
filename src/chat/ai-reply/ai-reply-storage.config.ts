import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const AI_REPLIES = 'AI replies';

/**
 * The chat wing's caps on stored model answers (issue 19 item 2: "every stored model answer is capped, enforced when
 * stored, not only asked for in the prompt").
 */
export class AiReplyStorageVariables {
  @ConfigVariable({
    group: AI_REPLIES,
    description:
      'longest AI reply stored and sent (`chat_message.content` and `original_ai_content`); a longer model answer is not stored: the attempt fails with this name and the reply ends `failed` after CHAT_AI_REPLY_ATTEMPTS',
    unit: 'chars',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(1_000_000)
  CHAT_AI_REPLY_MAX_CHARS: number = 4000;
}

/** The chat wing's slice `chatReplyStorage`: `maxReplyChars` (characters, UTF-16 code units as JavaScript counts them). */
export const aiReplyStorageConfig = declareConfig({
  wing: 'chat',
  variables: AiReplyStorageVariables,
  resolve: (vars) => ({
    chatReplyStorage: { maxReplyChars: vars.CHAT_AI_REPLY_MAX_CHARS },
  }),
});

/** The resolved slice. */
export type AiReplyStorageConfig = ReturnType<typeof aiReplyStorageConfig.resolve>;

declare module '../../config/app-config' {
  /** The chat wing's `chatReplyStorage` slice. */
  interface AppConfig extends AiReplyStorageConfig {}
}
