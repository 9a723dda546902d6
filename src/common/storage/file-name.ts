/**
 * Display names of stored files. A user's file name is kept only to show it and to offer it back on download; it
 * is never used as a path (storage keys are random, see storage-key.ts). Still, what we show and send back is
 * cleaned: no folders, no control or bidirectional-override characters (which can disguise `exe.pdf` as
 * `fdp.exe`), well-formed Unicode in NFC, bounded length.
 */

/** Longest display name, in code points (the `varchar(255)` columns count code points too). */
export const MAX_FILE_NAME_LENGTH = 255;

/** Used when nothing is left of a name. */
export const FALLBACK_FILE_NAME = 'file';

/** C0 and C1 controls, DEL, Unicode line/paragraph separators, bidi marks, embeddings, overrides and isolates. */
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** A lone UTF-16 surrogate (not valid Unicode; encodeURIComponent would throw on it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The name to record and show for an uploaded file.
 * - keeps only the last segment of `/` or `\` separated paths (`../../etc/passwd` → `passwd`, `C:\a\b.txt` → `b.txt`);
 * - removes control and bidi characters, replaces lone surrogates with U+FFFD, normalises to NFC;
 * - collapses whitespace runs to one space, trims spaces and trailing dots;
 * - `.`, `..` or nothing left → {@link FALLBACK_FILE_NAME};
 * - over {@link MAX_FILE_NAME_LENGTH} code points: the stem is shortened, an extension of up to 16 characters kept.
 * @param raw the client's name (may be undefined or empty)
 */
export function toDisplayFileName(raw: string | undefined | null): string {
  if (typeof raw !== 'string') return FALLBACK_FILE_NAME;
  const cleaned = raw.replace(LONE_SURROGATE, '\ufffd').normalize('NFC').replace(UNSAFE_CHARACTERS, '');
  const last = cleaned.split(/[/\\]/).pop() ?? '';
  const name = last.replace(/\s+/gu, ' ').trim().replace(/[. ]+$/, '');
  if (!name || name === '.' || name === '..') return FALLBACK_FILE_NAME;
  const points = Array.from(name);
  if (points.length <= MAX_FILE_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 17 ? Array.from(name.slice(dot)) : [];
  return points.slice(0, MAX_FILE_NAME_LENGTH - extension.length).join('') + extension.join('');
}
