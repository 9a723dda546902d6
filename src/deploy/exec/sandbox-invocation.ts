import { dirname, isAbsolute, relative, sep } from 'node:path';

/**
 * Who runs a sandboxed command (issue 12 item 1; docs/exec-sandbox.md):
 * - `root`: the server is root. bubblewrap runs as root without a user namespace (so it can mount folders only root can
 *   reach), keeps only CAP_SETUID/SETGID/SETPCAP, and `setpriv` then switches to `uid:gid`, a real unprivileged user:
 *   no capabilities, `no_new_privs`, and RLIMIT_NPROC applies (it does nothing for root).
 * - `user`: the server is not root. bubblewrap makes an unprivileged user namespace mapping the server's own uid, drops
 *   every capability and forbids further user namespaces.
 */
export interface SandboxIdentity {
  mode: 'root' | 'user';
  uid: number;
  gid: number;
}

/** One read-only piece of the host system shown inside the sandbox: a bind mount, or a symlink (merged /usr). */
export type SystemMount = { kind: 'ro-bind'; path: string } | { kind: 'symlink'; target: string; path: string };

/** Resource limits per command (EXEC_* variables); bytes and CPU seconds. */
export interface SandboxLimits {
  cpuSeconds: number;
  memoryBytes: number;
  maxProcesses: number;
  maxFileBytes: number;
  tmpBytes: number;
}

/** Everything {@link buildSandboxInvocation} needs; all paths absolute and already resolved. */
export interface SandboxPlan {
  bwrapPath: string;
  prlimitPath: string;
  identity: SandboxIdentity;
  limits: SandboxLimits;
  /** The read-only system (see {@link hostSystemMounts}). */
  system: readonly SystemMount[];
  /** Extra read-only folders (the Node.js install when it lives outside /usr). */
  extraReadOnly: readonly string[];
  /** Extra PATH entries inside, searched first. */
  extraPath: readonly string[];
  /** The namespace's workspace folders, mounted read-write at the same path. Empty for the start-up probe. */
  workspaces: readonly string[];
  /** Working directory inside; must be one of `workspaces` or beneath one (or `/tmp` when there is none). */
  cwd: string;
  command: string;
  /** A file holding the seccomp filter (see sandbox-seccomp.ts); the spawner opens it as fd 3. */
  seccompFile?: string;
}

/** A process to spawn: `file` with `args`, with exactly `env`. */
export interface Invocation {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Open this file read-only as the child's fd 3 (bubblewrap reads its seccomp filter there). */
  fd3File?: string;
}

/** util-linux `setpriv`, run inside the sandbox (root mode) to become the sandbox user. */
export const SETPRIV_PATH = '/usr/bin/setpriv';

/** Host folders that make up the read-only system (binaries and libraries). /etc is mounted by file, see below. */
export const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/**
 * The /etc entries a shell, coreutils and Node.js need. Anything else in /etc (shadow, ssh keys, the app's own files)
 * stays out: a secret is safe because it is not mounted, not because of its mode.
 */
export const ETC_ALLOW_LIST = [
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'nsswitch.conf',
  'passwd',
  'group',
  'hosts',
  'os-release',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
] as const;

/** True when `child` is `parent` or beneath it (absolute paths). */
function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * bubblewrap creates the missing parents of a mount point as root-only (0700) folders, which the unprivileged command
 * could not pass through. So each parent is made first, world-readable: `--perms 0755 --dir` for every ancestor of
 * `paths` (outermost first), except `/`, the mount points themselves and anything in `skip`.
 */
function parentFolders(paths: readonly string[], skip: readonly string[]): string[] {
  const folders: string[] = [];
  for (const path of paths) {
    for (let parent = dirname(path); parent !== '/' && parent !== '.'; parent = dirname(parent)) folders.unshift(parent);
  }
  return [...new Set(folders)].filter((folder) => !paths.includes(folder) && !skip.includes(folder)).flatMap((folder) => ['--perms', '0755', '--dir', folder]);
}

/**
 * Where the Node.js install must be mounted so `node` (and `npm` next to it) run inside: nothing when `execPath`
 * already lies in the mounted system, else its install prefix (the folder above `bin/`).
 * @param execPath absolute path of the node binary (`process.execPath`)
 * @param system the system mounts
 * @returns `{ readOnly, path }`: folders to mount and PATH entries to add
 */
export function nodeInstallMounts(execPath: string, system: readonly SystemMount[]): { readOnly: string[]; path: string[] } {
  const binDir = dirname(execPath);
  const mounted = system.some((mount) => mount.kind === 'ro-bind' && isWithin(mount.path, execPath));
  const prefix = dirname(binDir);
  const path = ['/usr/local/bin', '/usr/bin', '/bin'].includes(binDir) ? [] : [binDir];
  if (mounted) return { readOnly: [], path };
  return { readOnly: [prefix === '/' ? binDir : prefix], path: [binDir] };
}

/**
 * Builds the command line that runs `plan.command` with `/bin/sh -c` inside bubblewrap under resource limits
 * (issue 12 item 1): `prlimit` sets RLIMIT_CPU/AS/NPROC/FSIZE/CORE, then bubblewrap gives the command its own PID,
 * network (none), IPC and UTS namespaces, a read-only system, a private `/tmp` and `/dev/shm`, the namespace's
 * workspaces read-write, a minimal environment and no capabilities; it dies with the server, and the whole sandbox
 * dies with its PID 1. Pure: touches nothing.
 * @returns the process to spawn; its exit code is the command's
 */
export function buildSandboxInvocation(plan: SandboxPlan): Invocation {
  const { identity, limits } = plan;
  const prlimit = [
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileBytes}`,
    '--core=0',
    '--',
  ];
  const namespaces =
    identity.mode === 'user'
      ? ['--unshare-user', '--uid', String(identity.uid), '--gid', String(identity.gid), '--disable-userns']
      : [];
  const capabilities =
    identity.mode === 'root' ? ['--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP'] : ['--cap-drop', 'ALL'];
  const systemPaths = [...plan.system.map((mount) => mount.path), ...plan.extraReadOnly];
  const systemParents = parentFolders(systemPaths, []);
  const workspaceParents = parentFolders(plan.workspaces, ['/tmp', '/dev', '/dev/shm', ...systemPaths]);
  const system = plan.system.flatMap((mount) => (mount.kind === 'symlink' ? ['--symlink', mount.target, mount.path] : ['--ro-bind', mount.path, mount.path]));
  const extra = plan.extraReadOnly.flatMap((path) => ['--ro-bind', path, path]);
  const tmp = String(limits.tmpBytes);
  const workspaces = plan.workspaces.flatMap((path) => ['--bind', path, path]);
  const path = [...plan.extraPath, '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
  const env: Record<string, string> = { PATH: [...new Set(path)].join(':'), HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8', TERM: 'dumb' };
  const command =
    identity.mode === 'root'
      ? [SETPRIV_PATH, `--reuid=${identity.uid}`, `--regid=${identity.gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--', '/bin/sh', '-c', plan.command]
      : ['/bin/sh', '-c', plan.command];
  const bwrap = [
    plan.bwrapPath,
    ...namespaces,
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'atrium-sandbox',
    '--die-with-parent',
    '--new-session',
    ...capabilities,
    ...systemParents,
    ...system,
    ...extra,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    tmp,
    '--tmpfs',
    '/dev/shm',
    '--perms',
    '1777',
    '--size',
    tmp,
    '--tmpfs',
    '/tmp',
    ...workspaceParents,
    ...workspaces,
    '--chdir',
    plan.cwd,
    ...(plan.seccompFile ? ['--seccomp', '3'] : []),
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    ...command,
  ];
  // prlimit and bwrap get no environment at all: the sandbox's PID 1 is bwrap, and its /proc/1/environ is visible inside.
  return { file: plan.prlimitPath, args: [...prlimit, ...bwrap], env: {}, ...(plan.seccompFile ? { fd3File: plan.seccompFile } : {}) };
}
