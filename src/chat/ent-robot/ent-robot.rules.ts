/**
 * Pure rules of the enterprise robot (chat-management-api.md, "Enterprise robot"; issue 6, Messages): the masked
 * hint of a webhook key and the checks of a robot message against the configured limits.
 */

/** What a webhook key looks like: the `key` query value of the robot's webhook address (a UUID on the platform). */
export const WEBHOOK_KEY_PATTERN = /^[A-Za-z0-9-]{8,128}$/;

/**
 * The masked form of a webhook key shown instead of it: `****` + the last 4 characters (keys shorter than 12
 * characters show no characters at all, so at least 8 stay hidden).
 */
export function maskWebhookKey(key: string): string {
  return key.length >= 12 ? `****${key.slice(-4)}` : '****';
}

/** Message limits (CHAT_ENT_ROBOT_*): content sizes in UTF-8 bytes, mentions as a count. */
export interface RobotMessageLimits {
  textMaxBytes: number;
  markdownMaxBytes: number;
  maxMentions: number;
}

/** The parts of a robot message the rules look at. */
export interface RobotMessageCheckInput {
  msgType: 'text' | 'markdown';
  content: string;
  mentionedUserIds?: string[];
  mentionedMobiles?: string[];
}

/**
 * The verdict on a robot message: `ok`, `invalid` (400: blank content, mentions on markdown, too many mentions) or
 * `too_large` (413: content over the type's byte limit), with a reason a person can act on.
 */
export type RobotMessageVerdict = { kind: 'ok'; contentBytes: number } | { kind: 'invalid' | 'too_large'; field: string; reason: string; contentBytes: number };

/**
 * Checks a robot message against the limits. Sizes are UTF-8 bytes (the platform counts bytes, so a Chinese
 * character counts 3).
 */
export function checkRobotMessage(input: RobotMessageCheckInput, limits: RobotMessageLimits): RobotMessageVerdict {
  const contentBytes = Buffer.byteLength(input.content, 'utf8');
  if (!input.content.trim()) return { kind: 'invalid', field: 'content', reason: 'content must not be empty or only spaces.', contentBytes };
  const mentions = (input.mentionedUserIds?.length ?? 0) + (input.mentionedMobiles?.length ?? 0);
  if (input.msgType === 'markdown' && mentions > 0) {
    return { kind: 'invalid', field: 'mentionedUserIds', reason: 'Mentions work with msgType "text" only; in markdown write <@userid> in the content instead.', contentBytes };
  }
  if (mentions > limits.maxMentions) {
    return { kind: 'invalid', field: 'mentionedUserIds', reason: `At most ${limits.maxMentions} mentions (user ids plus mobiles) per message; got ${mentions}.`, contentBytes };
  }
  const max = input.msgType === 'text' ? limits.textMaxBytes : limits.markdownMaxBytes;
  if (contentBytes > max) {
    return { kind: 'too_large', field: 'content', reason: `A ${input.msgType} robot message may be at most ${max} bytes (UTF-8); this one is ${contentBytes} bytes. Shorten it or split it into several messages.`, contentBytes };
  }
  return { kind: 'ok', contentBytes };
}
