import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG_DECLARATIONS } from './app.config';
import { renderConfigurationDoc, renderEnvExample } from './config/config-variable';

/** docs/configuration.md, generated from the declarations (issue 15 item 6 and acceptance 5). */
const DOC_PATH = join(__dirname, '..', 'docs', 'configuration.md');
/** .env.example, generated from the same declarations. */
const ENV_EXAMPLE_PATH = join(__dirname, '..', '.env.example');

/** The file's text, or `(missing)`. */
function readOrMissing(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '(missing)';
  }
}

/** The first line where `actual` and `expected` differ, described for the failure message; undefined when equal. */
function firstDifference(actual: string, expected: string, file = 'docs/configuration.md'): string | undefined {
  if (actual === expected) return undefined;
  const have = actual.split('\n');
  const want = expected.split('\n');
  const line = want.findIndex((text, index) => have[index] !== text);
  const at = line === -1 ? want.length : line;
  return `${file} differs from the declarations at line ${at + 1}:\n  page: ${have[at] ?? '(end)'}\n  code: ${want[at] ?? '(end)'}\nRun \`npm run docs:config\` to regenerate it.`;
}

describe('generated configuration pages (docs/configuration.md, .env.example)', () => {
  it('is exactly what the @ConfigVariable declarations render (UPDATE_DOCS=1 rewrites it)', () => {
    const rendered = renderConfigurationDoc(APP_CONFIG_DECLARATIONS);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC_PATH, rendered);
    const page = readOrMissing(DOC_PATH);
    expect(firstDifference(page, rendered)).toBeUndefined();
  });

  it('.env.example is exactly what the declarations render (UPDATE_DOCS=1 rewrites it)', () => {
    const rendered = renderEnvExample(APP_CONFIG_DECLARATIONS);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(ENV_EXAMPLE_PATH, rendered);
    expect(firstDifference(readOrMissing(ENV_EXAMPLE_PATH), rendered, '.env.example')).toBeUndefined();
  });

  it('the comparison notices a changed row', () => {
    const rendered = renderConfigurationDoc(APP_CONFIG_DECLARATIONS);
    const edited = rendered.replace('| `PORT` | `3000` |', '| `PORT` | `3001` |');
    expect(edited).not.toBe(rendered);
    expect(firstDifference(edited, rendered)).toMatch(/line \d+:\n {2}page: \| `PORT` \| `3001`/);
    expect(firstDifference(rendered + 'extra\n', rendered)).toMatch(/page: extra\n {2}code: \n/);
    expect(firstDifference(rendered.split('\n').slice(0, 3).join('\n'), rendered)).toMatch(/line 4:\n {2}page: \(end\)/);
  });
});
