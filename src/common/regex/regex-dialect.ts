/**
 * The regular-expression dialect of every user-supplied pattern in Atrium (issue 19, item 3: "user-supplied regular
 * expressions run in linear time, in both wings"): chat human-intervention rules, the evaluation `regex` rule and
 * JSON-schema `pattern` / `patternProperties` (evaluation `json-schema` / `is-json` rules, chat tool-provider input
 * schemas). Patterns run on RE2 (the `re2js` port: time linear in the input, no backtracking). Pure functions, no I/O.
 *
 * Users write JavaScript syntax; what RE2 can run is accepted and translated, what it can't is refused at write time
 * with the construct named ({@link unsupportedRegexConstruct}):
 * - refused: backreferences (`\1`, `\k<name>`, `(?P=name)`), lookahead `(?=` `(?!`, lookbehind `(?<=` `(?<!`, atomic
 *   groups `(?>`, possessive quantifiers (`a++`, `a*+`), conditionals `(?(`, recursion (`(?R)`, `(?1)`, `(?&name)`),
 *   branch reset `(?|`, inline comments `(?#`; and whatever RE2's parser refuses (e.g. `\h`, `\Z`, a repeat count
 *   over 1000, `\p{Letter}`: RE2 takes short Unicode names like `\p{L}` and scripts like `\p{Han}`);
 * - translated ({@link toRe2Syntax}): `\uXXXX` (surrogate pairs joined), `\u{…}`, `\cX`, `\p{Script=Han}` /
 *   `\p{sc=Han}` / `\p{gc=L}` (→ `\p{Han}`, `\p{L}`), `[\b]` (backspace), `[^]` (any character), `[]` (nothing), `\s` / `\S` (JavaScript's
 *   Unicode white space, RE2's is ASCII only), a literal `[` inside a class;
 * - differs from JavaScript, documented: `.` excludes only `\n` (JavaScript also `\r`, U+2028, U+2029); `\S` inside a
 *   class is ASCII; RE2 also accepts inline flags `(?i)`, `(?s)`, `(?m)`, `(?U)`.
 */

/** JavaScript's `\s` (ECMA-262 WhiteSpace + LineTerminator) as members of an RE2 character class. */
const JS_WHITESPACE = '\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';

/** Group openers RE2 can't run, longest first, with the name given in the refusal. */
const UNSUPPORTED_GROUPS: readonly [string, string][] = [
  ['(?<=', 'lookbehind "(?<="'],
  ['(?<!', 'negative lookbehind "(?<!"'],
  ['(?P=', 'named backreference "(?P=name)"'],
  ['(?P>', 'recursion "(?P>name)"'],
  ['(?=', 'lookahead "(?="'],
  ['(?!', 'negative lookahead "(?!"'],
  ['(?>', 'atomic group "(?>"'],
  ['(?|', 'branch reset group "(?|"'],
  ['(?(', 'conditional "(?("'],
  ['(?#', 'inline comment "(?#"'],
  ['(?&', 'recursion "(?&name)"'],
  ['(?R', 'recursion "(?R)"'],
];

/** Why RE2 can't run a construct (appended to each refusal). */
const WHY = 'which the linear-time RE2 engine does not support';

/**
 * The first construct of a JavaScript-syntax pattern that RE2 cannot run (see the module comment), as a readable
 * problem like `uses a backreference "\1", which the linear-time RE2 engine does not support`, or null when there is
 * none. Syntax errors are left to the RE2 parser ({@link import('./safe-regex').compileSafeRegex}).
 */
export function unsupportedRegexConstruct(source: string): string | null {
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1];
      if (!inClass && next !== undefined && next >= '1' && next <= '9') return `uses a backreference "\\${next}", ${WHY}`;
      if (!inClass && next === 'k' && source[i + 2] === '<') return `uses a named backreference "\\k<name>", ${WHY}`;
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      // JavaScript: `]` right after `[` or `[^` closes the class (`[]`, `[^]`).
      if (source[i + 1] === ']') i += 1;
      else if (source[i + 1] === '^' && source[i + 2] === ']') i += 2;
      else inClass = true;
      continue;
    }
    if (char === '(' && source[i + 1] === '?') {
      const group = UNSUPPORTED_GROUPS.find(([opener]) => source.startsWith(opener, i));
      if (group) return `uses ${/^[aeiou]/.test(group[1]) ? 'an' : 'a'} ${group[1]}, ${WHY}`;
      if (/^\(\?[+-]?\d/.test(source.slice(i, i + 4))) return `uses recursion "(?1)", ${WHY}`;
      continue;
    }
    const quantifierEnd = quantifierEndAt(source, i);
    if (quantifierEnd !== null && source[quantifierEnd] === '+') return `uses a possessive quantifier "${source.slice(i, quantifierEnd + 1)}", ${WHY}`;
    if (quantifierEnd !== null) i = quantifierEnd - 1;
  }
  return null;
}

/** Index just past the quantifier (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`) starting at `i`, or null when none starts there. */
function quantifierEndAt(source: string, i: number): number | null {
  const char = source[i];
  if (char === '*' || char === '+' || char === '?') return i + 1;
  if (char !== '{') return null;
  const match = /^\{\d+(,\d*)?\}/.exec(source.slice(i, i + 24));
  return match ? i + match[0].length : null;
}

/**
 * Rewrites a JavaScript-syntax pattern (already free of {@link unsupportedRegexConstruct} constructs) into RE2 syntax
 * with the same meaning (see the module comment for what is translated). Never throws: anything it does not know is
 * passed through for RE2's parser to accept or refuse.
 */
export function toRe2Syntax(source: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    if (char === '\\') {
      const escape = translateEscape(source, i, inClass);
      out += escape.text;
      i = escape.end;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char === '[' ? '\\[' : char;
      i += 1;
      continue;
    }
    if (char === '[') {
      if (source[i + 1] === ']') {
        out += '[^\\x00-\\x{10FFFF}]';
        i += 2;
      } else if (source[i + 1] === '^' && source[i + 2] === ']') {
        out += '(?s:.)';
        i += 3;
      } else {
        inClass = true;
        out += '[';
        i += 1;
        // A leading `]` is literal in RE2 but closes the class in JavaScript; both cases are handled above.
        if (source[i] === '^') {
          out += '^';
          i += 1;
        }
      }
      continue;
    }
    out += char;
    i += 1;
  }
  return out;
}

/** One escape sequence at `start` (a backslash) in RE2 syntax, and the index just past it. */
function translateEscape(source: string, start: number, inClass: boolean): { text: string; end: number } {
  const next = source[start + 1];
  if (next === undefined) return { text: '\\', end: start + 1 };
  if (next === 'u') {
    const braced = /^\\u\{([0-9A-Fa-f]{1,6})\}/.exec(source.slice(start, start + 10));
    if (braced) return { text: `\\x{${braced[1]}}`, end: start + braced[0].length };
    const unit = /^\\u([0-9A-Fa-f]{4})/.exec(source.slice(start, start + 6));
    if (unit) {
      const high = parseInt(unit[1], 16);
      const low = /^\\u([dD][c-fC-F][0-9A-Fa-f]{2})/.exec(source.slice(start + 6, start + 12));
      if (high >= 0xd800 && high <= 0xdbff && low) {
        const codePoint = (high - 0xd800) * 0x400 + (parseInt(low[1], 16) - 0xdc00) + 0x10000;
        return { text: `\\x{${codePoint.toString(16).toUpperCase()}}`, end: start + 12 };
      }
      return { text: `\\x{${unit[1]}}`, end: start + 6 };
    }
  }
  if (next === 'c' && /[A-Za-z]/.test(source[start + 2] ?? '')) {
    const code = source.charCodeAt(start + 2) % 32;
    return { text: `\\x{${code.toString(16).toUpperCase()}}`, end: start + 3 };
  }
  if (next === 's') return { text: inClass ? JS_WHITESPACE : `[${JS_WHITESPACE}]`, end: start + 2 };
  if (next === 'S' && !inClass) return { text: `[^${JS_WHITESPACE}]`, end: start + 2 };
  if ((next === 'p' || next === 'P') && source[start + 2] === '{') {
    const close = source.indexOf('}', start);
    if (close !== -1) {
      const name = source.slice(start + 3, close).replace(/^(?:Script|sc|Script_Extensions|scx|General_Category|gc)=/, '');
      return { text: `\\${next}{${name}}`, end: close + 1 };
    }
  }
  if (next === '/') return { text: '/', end: start + 2 };
  if (next === 'b' && inClass) return { text: '\\x08', end: start + 2 };
  const codePoint = source.codePointAt(start + 1)!;
  return { text: `\\${String.fromCodePoint(codePoint)}`, end: start + 1 + (codePoint > 0xffff ? 2 : 1) };
}
