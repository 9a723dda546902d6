import { BadRequestException, ForbiddenException } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import { resolveAllowedPath } from '../allowed-paths';

/** Longest path segment Linux accepts (NAME_MAX), in bytes. */
export const MAX_SEGMENT_BYTES = 255;

/** Filesystem errors that mean "this path can't be a working directory", not a server fault. */
const BAD_PATH_CODES = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP', 'EACCES']);

/**
 * Resolves the `cwd` of `POST /api/exec` inside the caller's namespace workspace (issue 12 item 6;
 * deployment-gateway.md, Errors: paths outside the allowed directories are refused). The real path is resolved once
 * here; the sandbox then starts there (`bwrap --chdir`) and sees only the workspace, so swapping a folder for a link
 * afterwards can only lead to what the command could reach anyway.
 * @param requested relative to the first workspace, or absolute inside one; undefined = the first workspace
 * @param workspaces the namespace's workspace folders (real absolute paths)
 * @returns the real absolute path of an existing directory inside one of `workspaces`
 * @throws BadRequestException (400) a segment over {@link MAX_SEGMENT_BYTES} bytes, a NUL byte, a missing path, a
 *   path through or to a file, a link loop
 * @throws ForbiddenException (403) the path resolves outside the namespace's workspaces
 */
export async function resolveExecCwd(requested: string | undefined, workspaces: readonly string[]): Promise<string> {
  if (requested === undefined || requested === '') return workspaces[0];
  if (requested.includes('\0')) throw new BadRequestException('cwd contains a NUL byte.');
  const long = requested.split('/').find((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES);
  if (long !== undefined) throw new BadRequestException(`cwd has a path segment of ${Buffer.byteLength(long)} bytes; at most ${MAX_SEGMENT_BYTES} are allowed.`);
  let real: string;
  try {
    real = await resolveAllowedPath(requested, [...workspaces]);
  } catch (error) {
    if (error instanceof ForbiddenException) throw new ForbiddenException(`cwd ${requested} is outside your namespace's workspace.`);
    if (BAD_PATH_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw new BadRequestException(`cwd ${requested} can't be used: ${(error as NodeJS.ErrnoException).code}.`);
    throw error;
  }
  const stats = await stat(real).catch((error: NodeJS.ErrnoException) => {
    if (BAD_PATH_CODES.has(error.code ?? '')) return undefined;
    throw error;
  });
  if (!stats) throw new BadRequestException(`cwd ${requested} does not exist in your workspace.`);
  if (!stats.isDirectory()) throw new BadRequestException(`cwd ${requested} is not a directory.`);
  return real;
}
