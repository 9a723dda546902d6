import { buildSandboxInvocation, nodeInstallMounts, SandboxPlan, SETPRIV_PATH, SystemMount } from './sandbox-invocation';

const SYSTEM: SystemMount[] = [
  { kind: 'ro-bind', path: '/usr' },
  { kind: 'symlink', target: 'usr/bin', path: '/bin' },
  { kind: 'ro-bind', path: '/etc/passwd' },
];

const plan = (overrides: Partial<SandboxPlan> = {}): SandboxPlan => ({
  bwrapPath: '/usr/bin/bwrap',
  prlimitPath: '/usr/bin/prlimit',
  identity: { mode: 'root', uid: 999, gid: 998 },
  limits: { cpuSeconds: 60, memoryBytes: 2 ** 31, maxProcesses: 128, maxFileBytes: 2 ** 20, tmpBytes: 2 ** 24 },
  system: SYSTEM,
  extraReadOnly: [],
  extraPath: [],
  workspaces: ['/data/workspace/ns-a'],
  cwd: '/data/workspace/ns-a/app',
  command: 'echo hi',
  ...overrides,
});

/** The values following each occurrence of `flag`. */
function valuesOf(args: string[], flag: string, count = 1): string[][] {
  return args.flatMap((arg, index) => (arg === flag ? [args.slice(index + 1, index + 1 + count)] : []));
}

describe('buildSandboxInvocation (issue 12 item 1)', () => {
  it('sets the resource limits with prlimit, then starts bubblewrap with an empty environment', () => {
    const invocation = buildSandboxInvocation(plan());
    expect(invocation.file).toBe('/usr/bin/prlimit');
    expect(invocation.env).toEqual({});
    const split = invocation.args.indexOf('--');
    expect(invocation.args.slice(0, split)).toEqual([`--cpu=60`, `--as=${2 ** 31}`, '--nproc=128', `--fsize=${2 ** 20}`, '--core=0']);
    expect(invocation.args[split + 1]).toBe('/usr/bin/bwrap');
  });

  it('isolates PID, network, IPC and UTS, starts a new session, dies with the server and clears the environment', () => {
    const { args } = buildSandboxInvocation(plan());
    for (const flag of ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--clearenv']) {
      expect(args).toContain(flag);
    }
    expect(args).not.toContain('--share-net');
    const env = Object.fromEntries(valuesOf(args, '--setenv', 2));
    expect(env).toEqual({ PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8', TERM: 'dumb' });
  });

  it('mounts the system read-only, the workspace read-write at its own path, and private tmpfs /tmp and /dev/shm of the set size', () => {
    const { args } = buildSandboxInvocation(plan({ workspaces: ['/data/workspace/ns-a', '/srv/ws/ns-a'] }));
    expect(valuesOf(args, '--ro-bind', 2)).toEqual([
      ['/usr', '/usr'],
      ['/etc/passwd', '/etc/passwd'],
    ]);
    expect(valuesOf(args, '--symlink', 2)).toEqual([['usr/bin', '/bin']]);
    expect(valuesOf(args, '--bind', 2)).toEqual([
      ['/data/workspace/ns-a', '/data/workspace/ns-a'],
      ['/srv/ws/ns-a', '/srv/ws/ns-a'],
    ]);
    expect(valuesOf(args, '--tmpfs')).toEqual([['/dev/shm'], ['/tmp']]);
    expect(valuesOf(args, '--size')).toEqual([[String(2 ** 24)], [String(2 ** 24)]]);
    expect(valuesOf(args, '--chdir')).toEqual([['/data/workspace/ns-a/app']]);
    // The workspace bind comes after the /tmp tmpfs, so a workspace under /tmp is not hidden by it.
    expect(args.indexOf('/data/workspace/ns-a')).toBeGreaterThan(args.lastIndexOf('--tmpfs'));
  });

  it('first makes the missing parents of every mount point world-readable (bubblewrap would make them root-only)', () => {
    const { args } = buildSandboxInvocation(
      plan({ system: [...SYSTEM, { kind: 'ro-bind', path: '/etc/ssl/certs' }], workspaces: ['/tmp/e2e-x/workspace/ns-a'], cwd: '/tmp/e2e-x/workspace/ns-a' }),
    );
    expect(valuesOf(args, '--dir')).toEqual([['/etc'], ['/etc/ssl'], ['/tmp/e2e-x'], ['/tmp/e2e-x/workspace']]);
    expect(valuesOf(args, '--perms')).toEqual([['0755'], ['0755'], ['1777'], ['1777'], ['0755'], ['0755']]);
    expect(args.indexOf('/etc/ssl')).toBeLessThan(args.indexOf('/etc/ssl/certs'));
    expect(args.indexOf('/tmp/e2e-x')).toBeGreaterThan(args.lastIndexOf('--tmpfs'));
  });

  it('as root: no user namespace, only the capabilities setpriv needs, then setpriv drops to the sandbox user with none', () => {
    const { args } = buildSandboxInvocation(plan());
    expect(args).not.toContain('--unshare-user');
    expect(valuesOf(args, '--cap-drop')).toEqual([['ALL']]);
    expect(valuesOf(args, '--cap-add').flat()).toEqual(['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP']);
    const tail = args.slice(args.indexOf(SETPRIV_PATH));
    expect(tail).toEqual([SETPRIV_PATH, '--reuid=999', '--regid=998', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--', '/bin/sh', '-c', 'echo hi']);
  });

  it('as another user: an unprivileged user namespace with the same uid, every capability dropped, no nested namespaces', () => {
    const { args } = buildSandboxInvocation(plan({ identity: { mode: 'user', uid: 1000, gid: 1000 } }));
    expect(args).toEqual(expect.arrayContaining(['--unshare-user', '--disable-userns']));
    expect(valuesOf(args, '--uid')).toEqual([['1000']]);
    expect(valuesOf(args, '--cap-drop')).toEqual([['ALL']]);
    expect(args).not.toContain('--cap-add');
    expect(args.slice(-3)).toEqual(['/bin/sh', '-c', 'echo hi']);
  });

  it('passes the command as one argument, never through a shell string of its own', () => {
    const command = `echo "$(id)"; rm -rf ./x -- '--bind' / /`;
    const { args } = buildSandboxInvocation(plan({ command }));
    expect(args[args.length - 1]).toBe(command);
    expect(valuesOf(args, '--bind', 2)).toHaveLength(1);
  });
});

describe('nodeInstallMounts', () => {
  it('adds nothing when node lies in the mounted system', () => {
    expect(nodeInstallMounts('/usr/bin/node', SYSTEM)).toEqual({ readOnly: [], path: [] });
    expect(nodeInstallMounts('/usr/local/bin/node', SYSTEM)).toEqual({ readOnly: [], path: [] });
  });

  it('mounts an install outside the system (nvm, /opt) by its prefix and puts its bin first in PATH', () => {
    expect(nodeInstallMounts('/opt/node-v20/bin/node', SYSTEM)).toEqual({ readOnly: ['/opt/node-v20'], path: ['/opt/node-v20/bin'] });
    const { args } = buildSandboxInvocation(plan({ extraReadOnly: ['/opt/node-v20'], extraPath: ['/opt/node-v20/bin'] }));
    expect(valuesOf(args, '--ro-bind', 2)).toContainEqual(['/opt/node-v20', '/opt/node-v20']);
    expect(Object.fromEntries(valuesOf(args, '--setenv', 2)).PATH).toMatch(/^\/opt\/node-v20\/bin:/);
  });
});

describe('seccomp filter wiring', () => {
  it('passes the filter as fd 3 with --seccomp, only when there is one', () => {
    const withFilter = buildSandboxInvocation(plan({ seccompFile: '/tmp/x/filter.bpf' }));
    expect(valuesOf(withFilter.args, '--seccomp')).toEqual([['3']]);
    expect(withFilter.fd3File).toBe('/tmp/x/filter.bpf');
    const without = buildSandboxInvocation(plan());
    expect(without.args).not.toContain('--seccomp');
    expect(without.fd3File).toBeUndefined();
  });
});
