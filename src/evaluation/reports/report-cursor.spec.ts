import { decodeReportCursor, encodeReportCursor } from './report-cursor';

describe('report cursor', () => {
  it('round-trips a (position, repetition) key as an opaque base64url token', () => {
    const cursor = encodeReportCursor({ position: 49_999, repeatIndex: 19 });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeReportCursor(cursor)).toEqual({ position: 49_999, repeatIndex: 19 });
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['another shape', Buffer.from('c1:1').toString('base64url')],
    ['negative', Buffer.from('c1:-1:0').toString('base64url')],
    ['too large', Buffer.from('c1:1234567890:0').toString('base64url')],
    ['another version', Buffer.from('c2:1:0').toString('base64url')],
    ['empty', ''],
    ['too long', 'A'.repeat(65)],
  ])('refuses a cursor it did not issue (%s)', (_label, cursor) => {
    expect(decodeReportCursor(cursor)).toBeNull();
  });
});
