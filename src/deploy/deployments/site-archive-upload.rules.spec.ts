import { announcedBodyTooLarge, archiveTooLargeDetail, maxDeployBodyBytes, MULTIPART_FRAMING_BYTES, MULTIPART_PART_HEADER_BYTES } from './site-archive-upload.rules';

const LIMITS = { maxArchiveBytes: 1_000_000, fields: 8, fieldSizeBytes: 64 * 1024 };

describe('deploy upload rules (issue 14 item 2)', () => {
  it('allows the archive at its limit plus every field at its limit, a header per part and the framing', () => {
    expect(maxDeployBodyBytes(LIMITS)).toBe(1_000_000 + 8 * (64 * 1024 + MULTIPART_PART_HEADER_BYTES) + MULTIPART_PART_HEADER_BYTES + MULTIPART_FRAMING_BYTES);
  });

  it('refuses unread only a Content-Length over that', () => {
    const max = maxDeployBodyBytes(LIMITS);
    expect(announcedBodyTooLarge(String(max), LIMITS)).toBe(false);
    expect(announcedBodyTooLarge(String(max + 1), LIMITS)).toBe(true);
    expect(announcedBodyTooLarge(' 99999999999 ', LIMITS)).toBe(true);
  });

  it('reads and counts a body without a usable Content-Length (chunked, or garbage left to Node and busboy)', () => {
    expect(announcedBodyTooLarge(undefined, LIMITS)).toBe(false);
    expect(announcedBodyTooLarge('', LIMITS)).toBe(false);
    expect(announcedBodyTooLarge('-5', LIMITS)).toBe(false);
    expect(announcedBodyTooLarge('1e99', LIMITS)).toBe(false);
  });

  it('names the limit in the 413 detail, the words the staged upload used', () => {
    expect(archiveTooLargeDetail(262144)).toBe('The archive is over 262144 bytes.');
  });
});
