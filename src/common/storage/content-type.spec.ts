import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseContentType, detectContentType, looksLikeUtf8Text, mediaTypeEssence, OCTET_STREAM, TEXT_SAMPLE_BYTES } from './content-type';

/** A 1×1 PNG. */
const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4480000000049454e44ae426082',
  'hex',
);

describe('content type of stored files', () => {
  const text = Buffer.from('name,score\nÅsa,3\n');

  it('prefers the type the magic bytes show', () => {
    expect(chooseContentType({ detected: 'image/png', claimed: 'text/plain', sample: PNG_BYTES })).toBe('image/png');
  });

  it('keeps a safe text type the client claims when the bytes are text', () => {
    expect(chooseContentType({ claimed: 'text/csv', sample: text })).toBe('text/csv; charset=utf-8');
    expect(chooseContentType({ claimed: 'Text/Plain; charset=ISO-8859-1', sample: text })).toBe('text/plain; charset=utf-8');
    expect(chooseContentType({ claimed: 'application/json', sample: Buffer.from('{"a":1}') })).toBe('application/json');
    expect(chooseContentType({ claimed: 'text/plain', sample: Buffer.alloc(0) })).toBe('text/plain; charset=utf-8');
  });

  it('falls back to octet-stream for unsafe or unknown claims, and for binary bytes claimed as text', () => {
    for (const claimed of ['text/html', 'image/svg+xml', 'application/javascript', 'application/xhtml+xml', 'image/png', undefined, 'nonsense', '']) {
      expect(chooseContentType({ claimed, sample: text })).toBe(OCTET_STREAM);
    }
    expect(chooseContentType({ claimed: 'text/plain', sample: Buffer.from([0x41, 0x00, 0x42]) })).toBe(OCTET_STREAM);
    expect(chooseContentType({ claimed: 'text/plain', sample: Buffer.from([0xff, 0xfe, 0x41]) })).toBe(OCTET_STREAM);
  });

  it('accepts a UTF-8 character cut by the end of a truncated sample, not of a whole file', () => {
    const cut = Buffer.concat([Buffer.from('ok '), Buffer.from('✓').subarray(0, 2)]);
    expect(looksLikeUtf8Text(cut, true)).toBe(true);
    expect(looksLikeUtf8Text(cut, false)).toBe(false);
  });

  it('reads media type essences', () => {
    expect(mediaTypeEssence(' Application/JSON ; charset=utf-8')).toBe('application/json');
    expect(mediaTypeEssence('not a type')).toBeUndefined();
    expect(mediaTypeEssence(undefined)).toBeUndefined();
  });

  describe('from a file', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'atrium-content-type-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('detects a PNG whatever the client says, text by claim, and binary as octet-stream', async () => {
      const write = (name: string, content: Buffer) => {
        writeFileSync(join(dir, name), content);
        return join(dir, name);
      };
      expect(await detectContentType(write('image.txt', PNG_BYTES), 'text/plain')).toBe('image/png');
      expect(await detectContentType(write('table.csv', text), 'text/csv')).toBe('text/csv; charset=utf-8');
      const long = Buffer.concat([Buffer.from('x'.repeat(TEXT_SAMPLE_BYTES - 1)), Buffer.from('✓✓')]);
      expect(await detectContentType(write('long.txt', long), 'text/plain')).toBe('text/plain; charset=utf-8');
      expect(await detectContentType(write('noise.bin', Buffer.from([0, 1, 2, 3, 250, 251])), 'text/plain')).toBe(OCTET_STREAM);
      expect(await detectContentType(write('empty', Buffer.alloc(0)), undefined)).toBe(OCTET_STREAM);
    });
  });
});
