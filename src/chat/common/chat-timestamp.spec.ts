import { BadRequestException } from '@nestjs/common';
import { formatChatTimestamp, parseChatTimeRange, parseChatTimestamp } from './chat-timestamp';

describe('chat timestamp filters (yyyy-MM-dd HH:mm:ss, UTC)', () => {
  it('reads a well-formed timestamp as UTC and formats it back', () => {
    expect(parseChatTimestamp('2025-06-01 08:30:05')?.toISOString()).toBe('2025-06-01T08:30:05.000Z');
    expect(parseChatTimestamp('2024-02-29 23:59:59')?.toISOString()).toBe('2024-02-29T23:59:59.000Z');
    expect(formatChatTimestamp(new Date('2025-06-01T08:30:05.123Z'))).toBe('2025-06-01 08:30:05');
  });

  it.each([
    ['ISO 8601 with T', '2025-06-01T08:30:05'],
    ['date only', '2025-06-01'],
    ['missing seconds', '2025-06-01 08:30'],
    ['single-digit month', '2025-6-01 08:30:05'],
    ['leading space', ' 2025-06-01 08:30:05'],
    ['trailing zone', '2025-06-01 08:30:05Z'],
    ['month 13', '2025-13-01 00:00:00'],
    ['31 February', '2025-02-31 00:00:00'],
    ['29 February of a common year', '2025-02-29 00:00:00'],
    ['hour 24', '2025-06-01 24:00:00'],
    ['minute 60', '2025-06-01 10:60:00'],
    ['empty', ''],
  ])('refuses %s', (_why, text) => {
    expect(parseChatTimestamp(text)).toBeNull();
  });

  it('checks a range: readable 400s, open ends and equal bounds allowed, start after end refused', () => {
    expect(parseChatTimeRange(undefined, undefined, ['a', 'b'])).toEqual({ start: undefined, end: undefined });
    expect(parseChatTimeRange('2026-01-01 00:00:00', '2026-01-01 00:00:00', ['a', 'b']).start?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(parseChatTimeRange(undefined, '2026-01-01 00:00:00', ['a', 'b']).end?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(() => parseChatTimeRange('2026-02-30 00:00:00', undefined, ['startTime', 'endTime'])).toThrow(BadRequestException);
    expect(() => parseChatTimeRange('2026-02-30 00:00:00', undefined, ['startTime', 'endTime'])).toThrow('startTime must be a real timestamp');
    expect(() => parseChatTimeRange('2026-01-02 00:00:00', '2026-01-01 00:00:00', ['startTime', 'endTime'])).toThrow('startTime (2026-01-02 00:00:00) is after endTime (2026-01-01 00:00:00).');
  });
});
