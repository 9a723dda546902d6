import { ForbiddenException } from '@nestjs/common';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isWithin, prepareAllowedFileTarget, resolveAllowedPath } from './allowed-paths';

describe('allowed paths', () => {
  let root: string;
  let allowed: string;
  let outside: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'allowed-')));
    allowed = join(root, 'allowed');
    outside = join(root, 'outside');
    mkdirSync(allowed);
    mkdirSync(outside);
    symlinkSync(outside, join(allowed, 'escape'));
    writeFileSync(join(outside, 'secret.txt'), 'x');
    symlinkSync(join(outside, 'secret.txt'), join(allowed, 'file-link'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('knows what lies within a folder', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b', '/a/b/c')).toBe(true);
    expect(isWithin('/a/b', '/a/bc')).toBe(false);
    expect(isWithin('/a/b', '/a')).toBe(false);
  });

  it('accepts new and existing paths inside, relative ones against the first folder', async () => {
    await expect(resolveAllowedPath(join(allowed, 'new/dir/file.txt'), [allowed])).resolves.toBe(join(allowed, 'new/dir/file.txt'));
    await expect(resolveAllowedPath('sub/file.txt', [allowed])).resolves.toBe(join(allowed, 'sub/file.txt'));
  });

  it.each([
    ['a sibling folder', (a: string, o: string) => join(o, 'x.txt')],
    ['.. segments', (a: string) => join(a, '../outside/x.txt').replace('/outside', '/../outside')],
    ['relative ..', () => '../outside/x.txt'],
    ['a folder symlink pointing out', (a: string) => join(a, 'escape/new.txt')],
    ['the filesystem root', () => '/etc/passwd'],
  ])('refuses %s', async (_name, path) => {
    await expect(resolveAllowedPath(path(allowed, outside), [allowed])).rejects.toThrow(ForbiddenException);
  });

  it('refuses to write through a file symlink even when it resolves outside', async () => {
    await expect(prepareAllowedFileTarget(join(allowed, 'file-link'), [allowed])).rejects.toThrow(ForbiddenException);
  });

  it('creates missing parents for a write target', async () => {
    const target = await prepareAllowedFileTarget(join(allowed, 'a/b/c.txt'), [allowed]);
    expect(target).toBe(join(allowed, 'a/b/c.txt'));
  });
});
