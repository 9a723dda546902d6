import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** src/config is the shared core (issue 15 item 7, acceptance 6): it may not reach into a wing. */
const CONFIG_DIR = __dirname;
const SRC_DIR = resolve(__dirname, '..');
const WINGS = ['chat', 'deploy', 'evaluation'];

/** Module specifiers of `import … from`, `export … from`, `import '…'`, `import('…')`, `require('…')` in a source text. */
export function importSpecifiers(source: string): string[] {
  const pattern = /\bfrom\s+['"]([^'"]+)['"]|\bimport\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...source.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4]);
}

/** The wing a relative specifier of a file in `dir` lands in, or undefined. */
function wingOf(dir: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const [top] = relative(SRC_DIR, resolve(dir, specifier)).split(/[\\/]/);
  return WINGS.includes(top) ? top : undefined;
}

describe('src/config imports nothing from a wing', () => {
  it('every file of src/config', () => {
    const files = readdirSync(CONFIG_DIR).filter((name) => name.endsWith('.ts'));
    expect(files).toEqual(expect.arrayContaining(['app-config.ts', 'config-variable.ts', 'core.config.ts']));
    const crossings = files.flatMap((name) =>
      importSpecifiers(readFileSync(join(CONFIG_DIR, name), 'utf8'))
        .filter((specifier) => wingOf(CONFIG_DIR, specifier))
        .map((specifier) => `${name} → ${specifier}`),
    );
    expect(crossings).toEqual([]);
  });

  it('the scan sees each import form', () => {
    // Quotes come from a variable so that this file's own text holds no wing import for the scan above.
    const q = "'";
    const sample = [
      `import { A } from ${q}../chat/a${q};`,
      `import type { B } from ${q}../deploy/b${q};`.replace(/'/g, '"'),
      `export { C } from ${q}../evaluation/c${q};`,
      `import ${q}../chat/side-effect${q};`,
      `const d = await import(${q}../deploy/d${q});`,
      `const e = require(${q}../evaluation/e${q});`,
      `import { F } from ${q}../common/f${q};`,
      `import { G } from ${q}@nestjs/common${q};`,
    ].join('\n');
    expect(importSpecifiers(sample).filter((specifier) => wingOf(CONFIG_DIR, specifier))).toEqual([
      '../chat/a',
      '../deploy/b',
      '../evaluation/c',
      '../chat/side-effect',
      '../deploy/d',
      '../evaluation/e',
    ]);
  });
});
