import { BadRequestException, ForbiddenException } from '@nestjs/common';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveExecCwd } from './exec-cwd';

describe('resolveExecCwd (issue 12 item 6)', () => {
  let root: string;
  let workspace: string;
  let other: string;

  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'exec-cwd-')));
    workspace = join(root, 'ns-a');
    other = join(root, 'ns-b');
    mkdirSync(join(workspace, 'app', 'src'), { recursive: true });
    mkdirSync(other);
    writeFileSync(join(workspace, 'file.txt'), 'x');
    symlinkSync(other, join(workspace, 'to-other'));
    symlinkSync(join(workspace, 'app'), join(workspace, 'to-app'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('defaults to the workspace and resolves relative and absolute paths inside it', async () => {
    await expect(resolveExecCwd(undefined, [workspace])).resolves.toBe(workspace);
    await expect(resolveExecCwd('app/src', [workspace])).resolves.toBe(join(workspace, 'app', 'src'));
    await expect(resolveExecCwd(join(workspace, 'app'), [workspace])).resolves.toBe(join(workspace, 'app'));
    await expect(resolveExecCwd('to-app', [workspace])).resolves.toBe(join(workspace, 'app'));
  });

  it('answers 400 for a missing folder, a file, a path through a file, and a segment over 255 bytes', async () => {
    await expect(resolveExecCwd('missing', [workspace])).rejects.toThrow(BadRequestException);
    await expect(resolveExecCwd('file.txt', [workspace])).rejects.toThrow(/not a directory/);
    await expect(resolveExecCwd('file.txt/sub', [workspace])).rejects.toThrow(BadRequestException);
    await expect(resolveExecCwd(`app/${'a'.repeat(256)}`, [workspace])).rejects.toThrow(/256 bytes/);
    await expect(resolveExecCwd(`app/${'é'.repeat(128)}`, [workspace])).rejects.toThrow(BadRequestException);
    await expect(resolveExecCwd('app\0', [workspace])).rejects.toThrow(BadRequestException);
  });

  it('accepts a segment of exactly 255 bytes when it exists', async () => {
    mkdirSync(join(workspace, 'b'.repeat(255)));
    await expect(resolveExecCwd('b'.repeat(255), [workspace])).resolves.toBe(join(workspace, 'b'.repeat(255)));
  });

  it('answers 403 outside the namespace workspace, also through a link or into another namespace', async () => {
    await expect(resolveExecCwd('/etc', [workspace])).rejects.toThrow(ForbiddenException);
    await expect(resolveExecCwd('..', [workspace])).rejects.toThrow(ForbiddenException);
    await expect(resolveExecCwd(other, [workspace])).rejects.toThrow(ForbiddenException);
    await expect(resolveExecCwd('to-other', [workspace])).rejects.toThrow(ForbiddenException);
    await expect(resolveExecCwd('../ns-b', [workspace])).rejects.toThrow(ForbiddenException);
  });
});
