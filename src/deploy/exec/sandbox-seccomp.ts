/**
 * A small seccomp filter for sandboxed commands (issue 12 item 1, defence in depth beside bubblewrap's namespaces):
 * it keeps the kernel's riskiest doors shut to code that has no business with them. Refused with EPERM: new user
 * namespaces (`unshare`/`clone` with CLONE_NEWUSER — a user namespace hands out capabilities over fresh namespaces
 * and is the usual first step of kernel exploits; as root-started bubblewrap can't forbid them otherwise), the
 * kernel keyrings (not namespaced), `bpf`, `perf_event_open`, `userfaultfd`, io_uring, module and kexec loading.
 * `clone3` answers ENOSYS (its flags sit behind a pointer a filter can't read), so libc falls back to `clone`.
 * Syscalls of another ABI (i386 `int 0x80`, x32) are refused, or they would walk around the numbers below.
 * Format: classic BPF `struct sock_filter` array (8 bytes each, little-endian), as bubblewrap's `--seccomp FD` reads.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_NEWUSER = 0x10000000;
/** x32 syscalls on x86_64 carry this bit in their number. */
const X32_SYSCALL_BIT = 0x40000000;

/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
/** Low 32 bits of args[0] (little-endian). */
const ARG0_LOW = 16;

/** Syscall numbers per architecture (uapi asm/unistd.h; io_uring, clone3 are the same on all). */
interface SyscallTable {
  auditArch: number;
  clone: number;
  clone3: number;
  unshare: number;
  denied: Record<string, number>;
  x32Bit: boolean;
}

const COMMON_DENIED = { io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427 };

const TABLES: Record<string, SyscallTable> = {
  x64: {
    auditArch: 0xc000003e,
    clone: 56,
    clone3: 435,
    unshare: 272,
    x32Bit: true,
    denied: {
      ...COMMON_DENIED,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
    },
  },
  arm64: {
    auditArch: 0xc00000b7,
    clone: 220,
    clone3: 435,
    unshare: 97,
    x32Bit: false,
    denied: {
      ...COMMON_DENIED,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
    },
  },
};

type Instruction = [code: number, jt: number, jf: number, k: number];

/**
 * The filter for `arch` (Node's `process.arch`).
 * @returns the BPF program bytes, or undefined for an architecture without a table (the sandbox then runs without it)
 */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  const table = TABLES[arch];
  if (!table) return undefined;
  const denied = Object.values(table.denied);
  // Layout: header, then one JEQ per denied number jumping to DENY, then clone/unshare to CHECK_FLAGS, then ALLOW.
  const program: Instruction[] = [];
  const header: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, ARCH],
    [BPF_JEQ_K, 1, 0, table.auditArch], // our ABI: go on; anything else: deny
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM],
    [BPF_LD_W_ABS, 0, 0, NR],
  ];
  program.push(...header);
  if (table.x32Bit) program.push([BPF_JSET_K, 0, 1, X32_SYSCALL_BIT], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  program.push([BPF_JEQ_K, 0, 1, table.clone3], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]);
  // From here: N denied checks, 2 flag-checked syscalls, then ALLOW, DENY, CHECK_FLAGS (3 instructions).
  const checks = denied.length + 2;
  for (let index = 0; index < denied.length; index++) {
    const remaining = checks - index - 1; // checks after this one
    program.push([BPF_JEQ_K, remaining + 1, 0, denied[index]]); // → DENY (skip remaining checks and ALLOW)
  }
  program.push([BPF_JEQ_K, 3, 0, table.clone]); // → CHECK_FLAGS (skip unshare check, ALLOW, DENY)
  program.push([BPF_JEQ_K, 2, 0, table.unshare]); // → CHECK_FLAGS (skip ALLOW, DENY)
  program.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]); // ALLOW
  program.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]); // DENY
  program.push([BPF_LD_W_ABS, 0, 0, ARG0_LOW], [BPF_JSET_K, 0, 1, CLONE_NEWUSER], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM], [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jt, index * 8 + 2);
    bytes.writeUInt8(jf, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}

/**
 * Runs the filter in JS on one syscall, for tests: what the kernel would answer.
 * @returns `allow`, or `errno:<n>`
 */
export function evaluateSeccomp(program: Buffer, call: { arch: number; nr: number; arg0?: number }): string {
  let accumulator = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === BPF_LD_W_ABS) {
      accumulator = k === NR ? call.nr : k === ARCH ? call.arch : k === ARG0_LOW ? (call.arg0 ?? 0) >>> 0 : 0;
      pc += 1;
    } else if (code === BPF_JEQ_K) pc += 1 + (accumulator >>> 0 === k ? jt : jf);
    else if (code === BPF_JSET_K) pc += 1 + ((accumulator & k) !== 0 ? jt : jf);
    else if (code === BPF_RET_K) return k === SECCOMP_RET_ALLOW ? 'allow' : `errno:${k & 0xffff}`;
    else throw new Error(`unknown BPF code ${code}`);
  }
  throw new Error('the program fell off its end');
}
