import { BadRequestException } from '@nestjs/common';
import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * Timestamp filters of the chat API (chat-management-api.md, "Fields known from parameters": text
 * `yyyy-MM-dd HH:mm:ss`, pattern `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`; Atrium reads them as UTC, like every stored
 * timestamp). Pure functions, no I/O.
 */

/** The spec's pattern of a chat timestamp filter (with groups for year, month, day, hour, minute, second). */
export const CHAT_TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Example value for the OpenAPI document. */
export const CHAT_TIMESTAMP_EXAMPLE = '2026-03-01 08:30:00';

/**
 * Parses `yyyy-MM-dd HH:mm:ss` as a UTC instant.
 * @returns the instant, or null when the text does not match the pattern or names no real date or time
 *   (month 13, 31 February, hour 24 …)
 */
export function parseChatTimestamp(text: string): Date | null {
  const match = CHAT_TIMESTAMP_PATTERN.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const instant = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const roundTrips =
    instant.getUTCFullYear() === year &&
    instant.getUTCMonth() === month - 1 &&
    instant.getUTCDate() === day &&
    instant.getUTCHours() === hour &&
    instant.getUTCMinutes() === minute &&
    instant.getUTCSeconds() === second;
  return roundTrips ? instant : null;
}

/** Renders a UTC instant as `yyyy-MM-dd HH:mm:ss` (the inverse of {@link parseChatTimestamp}, to the second). */
export function formatChatTimestamp(instant: Date): string {
  return instant.toISOString().slice(0, 19).replace('T', ' ');
}

/** class-validator: the value is a real `yyyy-MM-dd HH:mm:ss` timestamp (see {@link parseChatTimestamp}). */
export function IsChatTimestamp(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isChatTimestamp',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a timestamp "yyyy-MM-dd HH:mm:ss" (UTC), e.g. "${CHAT_TIMESTAMP_EXAMPLE}"`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && parseChatTimestamp(value) !== null },
    });
}

/**
 * Parses an optional `[start, end]` filter pair (both inclusive).
 * @param names the two parameter names, for the messages
 * @throws BadRequestException (400) a value that is not a real `yyyy-MM-dd HH:mm:ss` timestamp, or start after end
 */
export function parseChatTimeRange(start: string | undefined, end: string | undefined, names: [string, string]): { start?: Date; end?: Date } {
  const read = (text: string | undefined, name: string) => {
    if (text === undefined) return undefined;
    const instant = parseChatTimestamp(text);
    if (!instant) throw new BadRequestException(`${name} must be a real timestamp "yyyy-MM-dd HH:mm:ss" (UTC, for example ${CHAT_TIMESTAMP_EXAMPLE}), got "${text}".`);
    return instant;
  };
  const from = read(start, names[0]);
  const to = read(end, names[1]);
  if (from && to && from.getTime() > to.getTime()) throw new BadRequestException(`${names[0]} (${start}) is after ${names[1]} (${end}).`);
  return { start: from, end: to };
}
