import { evaluateSeccomp, seccompProgram } from './sandbox-seccomp';

const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const CLONE_NEWUSER = 0x10000000;
const CLONE_THREAD_FLAGS = 0x003d0f00; // what glibc's pthread_create passes
const SIGCHLD = 17;

describe('seccompProgram (issue 12 item 1, defence in depth)', () => {
  const x64 = seccompProgram('x64')!;
  const arm64 = seccompProgram('arm64')!;

  it('allows everyday syscalls: read, write, openat, execve, fork-style and thread clone', () => {
    for (const nr of [0, 1, 257, 59, 231, 60]) expect(evaluateSeccomp(x64, { arch: X86_64, nr })).toBe('allow');
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 56, arg0: SIGCHLD })).toBe('allow');
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 56, arg0: CLONE_THREAD_FLAGS })).toBe('allow');
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 272, arg0: 0x00020000 })).toBe('allow'); // unshare(CLONE_NEWNS)
    expect(evaluateSeccomp(arm64, { arch: AARCH64, nr: 63 })).toBe('allow'); // read
  });

  it('refuses new user namespaces through clone and unshare, and sends clone3 back to clone', () => {
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 272, arg0: CLONE_NEWUSER })).toBe('errno:1');
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 56, arg0: CLONE_NEWUSER | SIGCHLD })).toBe('errno:1');
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 435 })).toBe('errno:38');
    expect(evaluateSeccomp(arm64, { arch: AARCH64, nr: 97, arg0: CLONE_NEWUSER })).toBe('errno:1');
    expect(evaluateSeccomp(arm64, { arch: AARCH64, nr: 220, arg0: CLONE_NEWUSER })).toBe('errno:1');
  });

  it('refuses keyrings, bpf, perf, userfaultfd, io_uring, modules and kexec', () => {
    for (const nr of [248, 249, 250, 321, 298, 323, 425, 426, 427, 175, 313, 176, 246, 320]) {
      expect(evaluateSeccomp(x64, { arch: X86_64, nr })).toBe('errno:1');
    }
    for (const nr of [217, 218, 219, 280, 241, 282, 425, 105, 273, 106, 104, 294]) {
      expect(evaluateSeccomp(arm64, { arch: AARCH64, nr })).toBe('errno:1');
    }
  });

  it('refuses other ABIs (i386 int 0x80, x32), which would walk around the numbers', () => {
    expect(evaluateSeccomp(x64, { arch: I386, nr: 0 })).toBe('errno:1');
    expect(evaluateSeccomp(x64, { arch: X86_64, nr: 0x40000000 | 1 })).toBe('errno:1');
    expect(evaluateSeccomp(arm64, { arch: X86_64, nr: 0 })).toBe('errno:1');
  });

  it('has no filter for an unknown architecture (the sandbox runs without it)', () => {
    expect(seccompProgram('riscv64')).toBeUndefined();
  });
});
