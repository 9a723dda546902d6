import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium (installed by .ci/run). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * `describe` when Debian's chromium is installed; otherwise `describe.skip`, with a warning naming the package.
 * @param what the suite, as the warning names it
 */
export function describeWithChromium(what: string): jest.Describe {
  if (existsSync(CHROMIUM)) return describe;
  // eslint-disable-next-line no-console
  console.warn(`${what} skipped: ${CHROMIUM} is missing (install the Debian package "chromium")`);
  return describe.skip;
}

/** A headless chromium with a fresh profile folder; `close` ends it and removes the folder. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profileDir = mkdtempSync(join(tmpdir(), 'atrium-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
