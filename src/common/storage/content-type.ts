import { fileTypeFromFile } from 'file-type';
import { open } from 'node:fs/promises';

/**
 * Content types of stored files, decided from the bytes rather than the client's word (a file's type is what it
 * is, not what its name or the browser says). Wing-neutral: evaluation files now, chat attachments later.
 *
 * Rule ({@link chooseContentType}):
 * 1. a type recognised from the content's magic bytes by `file-type` wins (a PNG named `.txt` is `image/png`);
 * 2. otherwise the client's type is kept only when it is one of {@link SAFE_TEXT_TYPES} and the content really is
 *    text (valid UTF-8, no NUL byte in the sample); `text/*` types get `; charset=utf-8`;
 * 3. otherwise `application/octet-stream`.
 * Anything a browser could render as active content (`text/html`, `image/svg+xml`, `application/javascript`, …)
 * is therefore never stored under its own type unless its magic bytes say so, and downloads are sent as attachments
 * with `X-Content-Type-Options: nosniff` on top.
 */

/** The fallback type. */
export const OCTET_STREAM = 'application/octet-stream';

/** Client-declared types that are kept when the content is text and the magic bytes say nothing. */
export const SAFE_TEXT_TYPES: ReadonlySet<string> = new Set([
  'text/plain',
  'text/csv',
  'text/tab-separated-values',
  'text/markdown',
  'application/json',
  'application/x-ndjson',
  'application/jsonl',
  'application/yaml',
  'text/yaml',
]);

/** Bytes read from the start of a file for the text check. */
export const TEXT_SAMPLE_BYTES = 8192;

/** The media type without parameters, lowercased (`Text/Plain; charset=x` → `text/plain`), or undefined. */
export function mediaTypeEssence(value: string | undefined | null): string | undefined {
  if (typeof value !== 'string') return undefined;
  const essence = value.split(';')[0].trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(essence) ? essence : undefined;
}

/**
 * Whether `sample` looks like UTF-8 text: no NUL byte and valid UTF-8. When `truncated` (the sample is the start of
 * a longer file), an incomplete multi-byte sequence at its very end is allowed.
 */
export function looksLikeUtf8Text(sample: Uint8Array, truncated = false): boolean {
  if (sample.includes(0)) return false;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let cut = 0; cut <= (truncated ? 3 : 0) && cut <= sample.length; cut++) {
    try {
      decoder.decode(sample.subarray(0, sample.length - cut));
      return true;
    } catch {
      // try again without the last byte(s): a character split by the end of the sample
    }
  }
  return false;
}

/**
 * The content type to store and serve (rule above). Pure.
 * @param input.detected type recognised from magic bytes, if any
 * @param input.claimed the client's Content-Type of the part, if any
 * @param input.sample the first bytes of the content (up to {@link TEXT_SAMPLE_BYTES})
 * @param input.truncated whether the content is longer than `sample`
 */
export function chooseContentType(input: { detected?: string; claimed?: string; sample: Uint8Array; truncated?: boolean }): string {
  const detected = mediaTypeEssence(input.detected);
  if (detected) return detected;
  const claimed = mediaTypeEssence(input.claimed);
  if (claimed && SAFE_TEXT_TYPES.has(claimed) && looksLikeUtf8Text(input.sample, input.truncated)) {
    return claimed.startsWith('text/') ? `${claimed}; charset=utf-8` : claimed;
  }
  return OCTET_STREAM;
}

/**
 * Decides the content type of the file at `path` (rule above): `file-type` reads the magic bytes, a sample of the
 * first {@link TEXT_SAMPLE_BYTES} is checked for text.
 * @param path a local file (e.g. multer's temporary copy of an upload)
 * @param claimed the client's Content-Type, if any
 */
export async function detectContentType(path: string, claimed?: string): Promise<string> {
  const handle = await open(path, 'r');
  let sample: Uint8Array;
  let size: number;
  try {
    size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, TEXT_SAMPLE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    sample = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const detected = size > 0 ? (await fileTypeFromFile(path))?.mime : undefined;
  return chooseContentType({ detected, claimed, sample, truncated: size > sample.length });
}
