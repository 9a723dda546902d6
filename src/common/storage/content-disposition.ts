import { FALLBACK_FILE_NAME, toDisplayFileName } from './file-name';

/**
 * An ASCII stand-in for `name` for the `filename` parameter (RFC 6266 §4.3), for clients that do not read
 * `filename*`: accents are dropped (é → e), every other run of non-ASCII characters becomes `_`, and `"`, `\` and
 * `%` (which some clients percent-decode) become `_`. When no letter or digit is left before the extension, the
 * result is `file` plus the extension (`報告 ✓.pdf` → `file.pdf`).
 */
export function asciiFileName(name: string): string {
  const ascii = toDisplayFileName(name)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]+/g, '_')
    .replace(/["\\%]/g, '_');
  const dot = ascii.lastIndexOf('.');
  const stem = dot > 0 ? ascii.slice(0, dot) : ascii;
  const extension = dot > 0 ? ascii.slice(dot) : '';
  if (/[A-Za-z0-9]/.test(stem)) return ascii;
  return FALLBACK_FILE_NAME + (/^\.[A-Za-z0-9]{1,16}$/.test(extension) ? extension : '');
}

/**
 * `value` percent-encoded as an RFC 8187 (formerly 5987) `value-chars`: UTF-8 bytes, everything outside
 * `attr-char` escaped (encodeURIComponent leaves `'`, `(`, `)`, `*` as they are, which attr-char does not allow).
 */
export function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The `Content-Disposition` header of a download (RFC 6266): `attachment; filename="<ascii fallback>";
 * filename*=UTF-8''<percent-encoded UTF-8 name>`. The name is cleaned first (see toDisplayFileName), so no path,
 * quote, control character or line break can reach the header. The result is plain ASCII.
 * @param name the file's display name
 */
export function attachmentContentDisposition(name: string): string {
  const display = toDisplayFileName(name);
  return `attachment; filename="${asciiFileName(display)}"; filename*=UTF-8''${encodeRfc8187(display)}`;
}
