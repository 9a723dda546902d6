import { ForbiddenException } from '@nestjs/common';
import { lchown, lstat, mkdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `child` is `parent` or lies beneath it (both absolute, normalised). */
export function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Resolves the real path of the deepest existing ancestor of `path` (symlinks followed) plus the missing rest. */
async function realPathOfNearestAncestor(path: string): Promise<string> {
  let existing = path;
  const missing: string[] = [];
  for (;;) {
    try {
      return resolve(await realpath(existing), ...missing.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = dirname(existing);
      if (parent === existing) throw error;
      missing.push(existing.slice(parent.length).replace(/^\/+/, ''));
      existing = parent;
    }
  }
}

/**
 * Resolves a client-given path against the allowed directories (deployment-gateway.md, Errors: paths outside the
 * allowed directories are refused). Symlinks are followed before the check, so a link inside an allowed
 * directory that points outside it is refused too.
 * @param requested absolute path, or relative to the first allowed directory
 * @param allowedDirs absolute allowed directories (DEPLOY_ALLOWED_DIRS)
 * @returns the real absolute path (it may not exist yet)
 * @throws ForbiddenException (403) when the real path is outside every allowed directory
 */
export async function resolveAllowedPath(requested: string, allowedDirs: string[]): Promise<string> {
  if (requested.includes('\0')) throw new ForbiddenException('The path contains a NUL byte.');
  const absolute = isAbsolute(requested) ? resolve(requested) : resolve(allowedDirs[0], requested);
  const real = await realPathOfNearestAncestor(absolute);
  for (const dir of allowedDirs) {
    const realDir = await realpath(dir).catch(() => resolve(dir));
    if (isWithin(realDir, real)) return real;
  }
  throw new ForbiddenException(`The path ${requested} is outside the allowed directories.`);
}

/**
 * Like {@link resolveAllowedPath} for a file to be written: creates missing parent folders, then checks again
 * (a folder could have been swapped for a link meanwhile) and refuses an existing symlink or non-file at the target.
 * @param owner uid/gid that the folders created on the way get (the exec sandbox user), or the server's own
 * @throws ForbiddenException (403) outside the allowed directories, or the target is a link or a directory
 */
export async function prepareAllowedFileTarget(requested: string, allowedDirs: string[], owner?: { uid: number; gid: number }): Promise<string> {
  const target = await resolveAllowedPath(requested, allowedDirs);
  const firstCreated = await mkdir(dirname(target), { recursive: true });
  // Folders made here belong to `owner` (the exec sandbox user) so the namespace's commands can use them; lchown
  // never follows a link, so a folder swapped for one can't hand anything else over.
  if (owner && firstCreated) {
    for (let folder = dirname(target); isWithin(firstCreated, folder); folder = dirname(folder)) {
      await lchown(folder, owner.uid, owner.gid);
      if (folder === firstCreated) break;
    }
  }
  const checked = await resolveAllowedPath(target, allowedDirs);
  const existing = await lstat(checked).catch(() => undefined);
  if (existing && !existing.isFile()) throw new ForbiddenException(`The target ${requested} exists and is not a regular file.`);
  return checked;
}
