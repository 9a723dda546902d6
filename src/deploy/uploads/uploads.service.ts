import { ForbiddenException, Inject, Injectable, PayloadTooLargeException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { constants, createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readlink, realpath, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { randomHexId } from '../../common/crypto/secrets';
import { isWithin, prepareAllowedFileTarget } from '../allowed-paths';
import { AuditCaller, AuditService } from '../audit/audit.service';
import { ExecSandboxService } from '../exec/exec-sandbox.service';
import { namespaceWorkspaces } from '../workspace';
import type { UploadResultDto } from './uploads.dto';

/** Linux lets a path walk start from an open directory (`/proc/self/fd/<n>/name`): the walk can't be redirected. */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * Writes uploaded files into the caller's own namespace workspace (deployment-gateway.md, Endpoints: POST /api/upload;
 * issue 12, item 3: uploads go to the caller's own workspace only, `<root>/<namespace>` for each DEPLOY_ALLOWED_DIRS
 * root, the same folders exec runs in).
 */
@Injectable()
export class UploadsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly sandbox: ExecSandboxService,
  ) {}

  /**
   * Copies the temporary upload to `requestedPath` atomically (a temp file beside the target, then one rename),
   * hashing it on the way; when the server is root and exec is sandboxed, the file belongs to the sandbox user so the
   * namespace's commands can change it. The path is resolved with symlinks followed and must land in one of the namespace's
   * workspaces; on Linux the target folder is then opened once and the file written and renamed through that open
   * folder, so swapping a folder of the path for a symlink after the check (exec can change the workspace) can't
   * redirect the write into another namespace.
   * @param requestedPath relative to the namespace's first workspace, or absolute inside one of its workspaces
   * @param namespace the caller's namespace (its token's)
   * @throws ForbiddenException (403) the path resolves outside the namespace's workspaces (another namespace's folder,
   *   `..`, an absolute path elsewhere, a symlink leading out), or the target is not a regular file
   * @throws PayloadTooLargeException (413) over DEPLOY_MAX_UPLOAD_BYTES
   */
  async write(upload: { path: string; size: number }, requestedPath: string, namespace: string, caller: AuditCaller): Promise<UploadResultDto> {
    if (upload.size > this.config.deploy.maxUploadBytes) {
      throw new PayloadTooLargeException(`The file is over ${this.config.deploy.maxUploadBytes} bytes.`);
    }
    const workspaces = namespaceWorkspaces(this.config.deploy.allowedDirs, namespace);
    for (const workspace of workspaces) await mkdir(workspace, { recursive: true });
    const owner = this.sandbox.workspaceOwner();
    const target = await prepareAllowedFileTarget(requestedPath, workspaces, owner).catch((error: unknown) => {
      if (error instanceof ForbiddenException) {
        throw new ForbiddenException(`The path ${requestedPath} is outside this namespace's workspace (${workspaces[0]}); uploads go only to the caller's own namespace.`);
      }
      throw error;
    });
    const folder = await this.openFolder(dirname(target), workspaces, requestedPath);
    const base = folder ? `/proc/self/fd/${folder.fd}` : dirname(target);
    const temporary = join(base, `.${basename(target)}.${randomHexId(8)}.upload`);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      // O_CREAT|O_EXCL|O_NOFOLLOW: never follows a symlink planted under the temporary name; ownership and mode are
      // set on the open descriptor, never by path (a path could be swapped for a link by a sandboxed command).
      const file = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      try {
        if (owner) await file.chown(owner.uid, owner.gid);
        await file.chmod(0o644);
      } catch (error) {
        await file.close();
        throw error;
      }
      await pipeline(
        createReadStream(upload.path),
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            bytes += chunk.length;
            done(null, chunk);
          },
        }),
        file.createWriteStream(),
      );
      // rename replaces a symlink at the target itself instead of following it.
      await rename(temporary, join(base, basename(target)));
    } catch (error) {
      await rm(temporary, { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'ENOTEMPTY') throw new ForbiddenException(`The target ${requestedPath} exists and is not a regular file.`);
      throw error;
    } finally {
      await folder?.close();
    }
    const result = { path: target, bytes, sha256: hash.digest('hex') };
    await this.audit.record(caller, { action: 'upload', outcome: 'allowed', status: 201, target, detail: `${bytes} bytes sha256=${result.sha256}` });
    return result;
  }

  /**
   * Opens the checked target folder (not following a symlink put in its place) and checks again where the open
   * folder really is. Undefined where `/proc/self/fd` is missing (then the path is used as checked).
   * @throws ForbiddenException (403) the folder was replaced by a link or now lies outside the workspaces
   */
  private async openFolder(folder: string, workspaces: string[], requestedPath: string): Promise<FileHandle | undefined> {
    if (!PROC_FD) return undefined;
    const outside = () => new ForbiddenException(`The path ${requestedPath} is outside this namespace's workspace.`);
    const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP' || error.code === 'ENOTDIR' || error.code === 'ENOENT') throw outside();
      throw error;
    });
    const real = await readlink(`/proc/self/fd/${handle.fd}`);
    const realWorkspaces = await Promise.all(workspaces.map((workspace) => realpath(workspace)));
    if (!realWorkspaces.some((workspace) => isWithin(workspace, real))) {
      await handle.close();
      throw outside();
    }
    return handle;
  }
}
