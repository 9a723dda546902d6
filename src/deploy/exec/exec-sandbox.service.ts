import { HttpStatus, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { chown, lstat, mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ProblemException } from '../../common/http/problem-details';
import { namespaceWorkspaces } from '../workspace';
import { checkSandbox, SandboxStatus } from './exec-sandbox';
import { buildSandboxInvocation, Invocation } from './sandbox-invocation';

/**
 * The exec sandbox's state for this process (issue 12 items 1–2): checked once at start-up; logs one warning when the
 * sandbox is off or can't be set up, and then refuses commands with 503 instead of running them unconfined.
 */
@Injectable()
export class ExecSandboxService implements OnModuleInit {
  private readonly logger = new Logger('ExecSandbox');
  private current: SandboxStatus = { kind: 'unavailable', reason: 'The sandbox has not been checked yet.', fix: 'Wait for the start-up to finish.' };

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Runs the start-up probe ({@link checkSandbox}) and logs one warning when commands can't be confined. */
  onModuleInit(): void {
    this.current = checkSandbox(this.config.execSandbox, join(this.config.dataDir, 'tmp'));
    if (this.current.kind === 'off') {
      this.logger.warn('DEPLOY_EXEC_SANDBOX=off: POST /api/exec runs commands WITHOUT the OS sandbox, as the server\'s own user, with its file and network access. Do not give the exec permission to untrusted agents.');
    } else if (this.current.kind === 'unavailable') {
      this.logger.warn(`The exec sandbox can't be set up, so POST /api/exec answers 503: ${this.current.reason} Fix: ${this.current.fix}`);
    } else {
      this.logger.log(`Exec sandbox ready (bubblewrap, commands run as uid ${this.current.identity.uid}, network off).`);
    }
  }

  /** The state found at start-up. */
  status(): SandboxStatus {
    return this.current;
  }

  /**
   * The owner that files the server writes into a workspace should get so sandboxed commands can change them (uploads:
   * `fchown` the new file before its rename): the sandbox user when the server is root and the sandbox is ready, else
   * undefined (the server's own user already matches).
   */
  workspaceOwner(): { uid: number; gid: number } | undefined {
    if (this.current.kind !== 'ready' || this.current.identity.mode !== 'root') return undefined;
    return { uid: this.current.identity.uid, gid: this.current.identity.gid };
  }

  /**
   * Refuses when commands must be confined but can't be.
   * @throws ProblemException (503, `fix`) the sandbox is wanted and unavailable
   */
  assertUsable(): void {
    if (this.current.kind !== 'unavailable') return;
    throw new ProblemException(HttpStatus.SERVICE_UNAVAILABLE, `Exec is unavailable: the OS sandbox can't be set up. ${this.current.reason}`, {
      fix: this.current.fix,
    });
  }

  /**
   * Creates the namespace's workspace folders (`<root>/<namespace>` per DEPLOY_ALLOWED_DIRS root) and, when commands
   * run as another user (server is root), hands each folder itself (not its contents) to that user so commands can
   * write there. The roots stay root-owned, so a command can't swap its folder for a link.
   * @param namespace a valid namespace (the caller's contactId)
   * @returns the folders' real absolute paths (mounted at the same path inside), the first being the default cwd
   */
  async prepareWorkspaces(namespace: string): Promise<string[]> {
    const folders: string[] = [];
    for (const folder of namespaceWorkspaces(this.config.deploy.allowedDirs, namespace)) {
      await mkdir(folder, { recursive: true });
      if (this.current.kind === 'ready' && this.current.identity.mode === 'root') {
        const { uid, gid } = this.current.identity;
        const stats = await lstat(folder);
        if (stats.isDirectory() && (stats.uid !== uid || stats.gid !== gid)) await chown(folder, uid, gid);
      }
      folders.push(await realpath(folder));
    }
    return folders;
  }

  /**
   * The process that runs `command` for a namespace: inside the sandbox when it is ready, else (`off`) `/bin/sh -c`
   * directly (see command-runner).
   * @param workspaces from {@link prepareWorkspaces}
   * @param cwd resolved real path in one of them
   * @returns the invocation, or undefined when the sandbox is off
   * @throws ProblemException (503) when it is unavailable
   */
  invocationFor(command: string, workspaces: readonly string[], cwd: string): Invocation | undefined {
    this.assertUsable();
    if (this.current.kind !== 'ready') return undefined;
    const { execSandbox } = this.config;
    return buildSandboxInvocation({
      bwrapPath: execSandbox.bwrapPath,
      prlimitPath: execSandbox.prlimitPath,
      identity: this.current.identity,
      limits: execSandbox,
      system: this.current.system,
      extraReadOnly: this.current.extraReadOnly,
      extraPath: this.current.extraPath,
      seccompFile: this.current.seccompFile,
      workspaces,
      cwd,
      command,
    });
  }
}
