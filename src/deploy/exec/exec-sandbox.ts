import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecSandboxConfig } from './exec-sandbox.config';
import { buildSandboxInvocation, ETC_ALLOW_LIST, Invocation, nodeInstallMounts, SandboxIdentity, SYSTEM_PATHS, SystemMount } from './sandbox-invocation';
import { seccompProgram } from './sandbox-seccomp';

/**
 * State of the exec sandbox after the start-up check (issue 12 item 2):
 * - `ready`: every command runs in bubblewrap as `identity`;
 * - `off`: the operator set DEPLOY_EXEC_SANDBOX=off, commands run unconfined;
 * - `unavailable`: the sandbox is wanted but can't be set up; exec answers 503 with `fix`.
 */
export type SandboxStatus =
  | { kind: 'ready'; identity: SandboxIdentity; system: SystemMount[]; extraReadOnly: string[]; extraPath: string[]; seccompFile?: string }
  | { kind: 'off' }
  | { kind: 'unavailable'; reason: string; fix: string };

/** What a bare machine or a container needs; the 503 and the start-up warning both say it. */
export const SANDBOX_FIX =
  'Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`) and util-linux (prlimit, setpriv), and let it create namespaces: ' +
  'as root it needs CAP_SYS_ADMIN; as another user, unprivileged user namespaces (sysctl user.max_user_namespaces > 0). ' +
  "Docker's default seccomp and AppArmor profiles block it (docs/exec-sandbox.md says what to set). " +
  'Or set DEPLOY_EXEC_SANDBOX=off to run commands unconfined (not for untrusted agents).';

/** Thrown by {@link resolveSandboxIdentity}; `reason` is one sentence. */
export class SandboxSetupError extends Error {}

/**
 * The host's read-only system as bubblewrap should show it: each of {@link SYSTEM_PATHS} that exists (a symlink on a
 * merged-/usr system stays a symlink), then the {@link ETC_ALLOW_LIST} entries of /etc that exist.
 */
export function hostSystemMounts(): SystemMount[] {
  const mounts: SystemMount[] = [];
  for (const path of [...SYSTEM_PATHS, ...ETC_ALLOW_LIST.map((name) => join('/etc', name))]) {
    try {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink() && !path.startsWith('/etc/')) mounts.push({ kind: 'symlink', target: readlinkSync(path), path });
      else mounts.push({ kind: 'ro-bind', path });
    } catch {
      // absent on this host: nothing to show
    }
  }
  return mounts;
}

function lookupUser(name: string): { uid: number; gid: number } | undefined {
  try {
    const [, , uid, gid] = execFileSync('getent', ['passwd', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

/**
 * Who runs commands (see {@link SandboxIdentity}). Not root: the server's own uid/gid. Root: `user` as `uid:gid`, or
 * a user name, created as a system user without home or shell when missing (as the embedded PostgreSQL's `postgres`).
 * @param user EXEC_SANDBOX_USER
 * @throws SandboxSetupError the user can't be found or created, or it is root
 */
export function resolveSandboxIdentity(user: string): SandboxIdentity {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { mode: 'user', uid, gid: process.getgid?.() ?? uid };
  const numeric = /^(\d+):(\d+)$/.exec(user);
  let ids = numeric ? { uid: Number(numeric[1]), gid: Number(numeric[2]) } : lookupUser(user);
  if (!ids) {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', user], { stdio: 'pipe' });
    } catch (error) {
      throw new SandboxSetupError(`The sandbox user "${user}" does not exist and useradd failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
    }
    ids = lookupUser(user);
    if (!ids) throw new SandboxSetupError(`The sandbox user "${user}" was created but can't be read back.`);
  }
  if (ids.uid === 0 || ids.gid === 0) throw new SandboxSetupError(`The sandbox user "${user}" is root; choose an unprivileged user.`);
  return { mode: 'root', ...ids };
}

/**
 * Writes this architecture's seccomp filter ({@link seccompProgram}) to `<stateDir>/exec-seccomp.bpf` (written aside
 * and renamed in, mode 0600) for bubblewrap to read as fd 3 on every exec. `stateDir` must be writable only by the
 * server (the app uses `$DATA_DIR/tmp`, which no sandbox mounts), so nobody can swap the filter.
 * @returns the file, or undefined on an architecture without a filter table
 */
function writeSeccompFile(stateDir: string): string | undefined {
  const program = seccompProgram();
  if (!program) return undefined;
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = join(stateDir, 'exec-seccomp.bpf');
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, program, { mode: 0o600 });
  renameSync(aside, file);
  return file;
}

/**
 * The `true` command run exactly as exec runs commands, minus the workspace: what the start-up probe spawns.
 * @param config the `execSandbox` slice
 * @param ready the identity and mounts to probe
 */
export function probeInvocation(config: ExecSandboxConfig, ready: Extract<SandboxStatus, { kind: 'ready' }>): Invocation {
  return buildSandboxInvocation({
    bwrapPath: config.bwrapPath,
    prlimitPath: config.prlimitPath,
    identity: ready.identity,
    limits: config,
    system: ready.system,
    extraReadOnly: ready.extraReadOnly,
    extraPath: ready.extraPath,
    seccompFile: ready.seccompFile,
    workspaces: [],
    cwd: '/tmp',
    command: 'test -w /tmp && test ! -w /usr && test "$(id -u)" != 0',
  });
}

/**
 * Checks once, at start-up, that the sandbox can run (issue 12 item 2: fail closed). Synchronous (a few ms; one
 * `bwrap … true`), so tests can decide at load time whether to skip the sandbox suites.
 * @param config the `execSandbox` slice
 * @param stateDir a folder only the server can write, for the seccomp filter file (the app: `$DATA_DIR/tmp`)
 * @returns `off` when disabled, `ready` when a probe command ran inside the sandbox as a non-root user with a
 *   read-only system, else `unavailable` with the probe's own reason and {@link SANDBOX_FIX}
 */
export function checkSandbox(config: ExecSandboxConfig, stateDir: string): SandboxStatus {
  if (!config.enabled) return { kind: 'off' };
  for (const binary of [config.bwrapPath, config.prlimitPath]) {
    try {
      accessSync(binary, constants.X_OK);
    } catch {
      return { kind: 'unavailable', reason: `${binary} is missing or not executable.`, fix: SANDBOX_FIX };
    }
  }
  let identity: SandboxIdentity;
  try {
    identity = resolveSandboxIdentity(config.user);
  } catch (error) {
    return { kind: 'unavailable', reason: (error as Error).message, fix: SANDBOX_FIX };
  }
  const system = hostSystemMounts();
  const node = nodeInstallMounts(process.execPath, system);
  const ready: Extract<SandboxStatus, { kind: 'ready' }> = { kind: 'ready', identity, system, extraReadOnly: node.readOnly, extraPath: node.path, seccompFile: writeSeccompFile(stateDir) };
  const probe = probeInvocation(config, ready);
  const fd3 = probe.fd3File ? openSync(probe.fd3File, 'r') : 'ignore';
  const result = spawnSync(probe.file, probe.args, { env: probe.env, cwd: '/', timeout: 10_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', fd3] });
  if (typeof fd3 === 'number') closeSync(fd3);
  if (result.status === 0) return ready;
  const said = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-3).join(' ');
  const why = result.error ? result.error.message : result.signal ? `killed by ${result.signal}` : `exit code ${result.status}`;
  return { kind: 'unavailable', reason: `The sandbox probe failed (${why})${said ? `: ${said}` : ''}.`, fix: SANDBOX_FIX };
}
