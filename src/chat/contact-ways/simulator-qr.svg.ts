import { createHash } from 'node:crypto';

/**
 * A stand-in QR code picture for the chat platform simulator's QR code URLs (issue 5: demo QR links work). It is
 * not a scannable QR code: a 25×25 module pattern derived from the code (same code → same picture) with the three
 * finder squares, and a caption saying what the code is. Pure function, no I/O.
 */

/** Modules per side. */
const MODULES = 25;
/** Pixels per module. */
const MODULE_PX = 8;
/** Quiet zone around the pattern, in modules. */
const QUIET = 2;

/** Escapes text for SVG content. */
function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** `count` pseudo-random bits derived from `seed` (SHA-256 in counter mode). */
function bits(seed: string, count: number): boolean[] {
  const out: boolean[] = [];
  for (let block = 0; out.length < count; block++) {
    const digest = createHash('sha256').update(`${seed}:${block}`).digest();
    for (const byte of digest) for (let bit = 0; bit < 8 && out.length < count; bit++) out.push(((byte >> bit) & 1) === 1);
  }
  return out;
}

/** True when (row, col) lies in one of the three 7×7 finder squares or their 1-module separators. */
function inFinderArea(row: number, col: number): boolean {
  const near = (value: number, origin: number) => value >= origin - 1 && value <= origin + 7;
  return (near(row, 0) && near(col, 0)) || (near(row, 0) && near(col, MODULES - 7)) || (near(row, MODULES - 7) && near(col, 0));
}

/** Whether a finder square's module at offset (r, c) within its 7×7 box is dark. */
function finderDark(r: number, c: number): boolean {
  const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
  return ring !== 2;
}

/**
 * Renders the picture.
 * @param code the QR code's path segment (seeds the pattern)
 * @param caption lines under the pattern (at most 3 are drawn, each cut to 40 characters)
 * @returns an SVG document
 */
export function renderSimulatedQrSvg(code: string, caption: string[]): string {
  const side = (MODULES + QUIET * 2) * MODULE_PX;
  const lines = caption.slice(0, 3).map((line) => (line.length > 40 ? `${line.slice(0, 39)}…` : line));
  const height = side + lines.length * 18 + 8;
  const random = bits(code, MODULES * MODULES);
  const rects: string[] = [];
  for (let row = 0; row < MODULES; row++) {
    for (let col = 0; col < MODULES; col++) {
      let dark: boolean;
      if (inFinderArea(row, col)) {
        const originRow = row < 9 ? 0 : MODULES - 7;
        const originCol = col < 9 ? 0 : MODULES - 7;
        const r = row - originRow;
        const c = col - originCol;
        dark = r >= 0 && r < 7 && c >= 0 && c < 7 && finderDark(r, c);
      } else {
        dark = random[row * MODULES + col];
      }
      if (dark) rects.push(`<rect x="${(col + QUIET) * MODULE_PX}" y="${(row + QUIET) * MODULE_PX}" width="${MODULE_PX}" height="${MODULE_PX}"/>`);
    }
  }
  const text = lines.map((line, index) => `<text x="${side / 2}" y="${side + 14 + index * 18}" text-anchor="middle" font-family="sans-serif" font-size="12">${escapeXml(line)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${height}" viewBox="0 0 ${side} ${height}" role="img" aria-label="${escapeXml(lines.join(' — '))}">`,
    `<rect width="${side}" height="${height}" fill="#fff"/>`,
    `<g fill="#000">${rects.join('')}</g>`,
    ...text,
    '</svg>',
  ].join('');
}
