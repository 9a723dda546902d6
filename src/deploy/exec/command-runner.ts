import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Invocation } from './sandbox-invocation';

/** What a finished command produced. Output is decoded as UTF-8 after capping. */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** Environment variables a command inherits; everything else (database URLs, tokens, keys) stays in the server. */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR', 'NODE_EXTRA_CA_CERTS'];

/** The unsandboxed command's environment: {@link INHERITED_ENV} only. */
function minimalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { TERM: 'dumb' };
  for (const name of INHERITED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** Spawns a sandbox invocation; its `fd3File` (the seccomp filter) is opened for the child only and closed here after. */
function spawnSandbox(invocation: Invocation) {
  const fd3 = invocation.fd3File ? openSync(invocation.fd3File, 'r') : 'ignore';
  try {
    return spawn(invocation.file, invocation.args, { cwd: '/', env: invocation.env, detached: true, stdio: ['ignore', 'pipe', 'pipe', fd3] });
  } finally {
    if (typeof fd3 === 'number') closeSync(fd3);
  }
}

/** Collects a stream up to `cap` bytes, counting the rest. */
class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.kept;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Runs `command` with `/bin/sh -c` in its own process group (deployment-gateway.md, Endpoints: POST /api/exec).
 * With `options.sandbox` (issue 12 item 1) the given process (prlimit → bubblewrap → the command) is spawned instead,
 * with exactly its environment; the sandbox's PID namespace ends when the command does, and on timeout killing
 * bubblewrap ends it too, so nothing the command started outlives the call. Unsandboxed, the command gets a minimal
 * environment, never the server's secrets, and on timeout the whole process group gets SIGKILL.
 * @param options.cwd working directory (unsandboxed only; the sandbox carries its own `--chdir`)
 * @param options.timeoutMs wall-clock limit in ms
 * @param options.maxOutputBytes cap per stream in bytes; more is dropped and marked truncated
 * @param options.sandbox the sandbox invocation built for this command, when the sandbox is on
 */
export function runCommand(
  command: string,
  options: { cwd: string; timeoutMs: number; maxOutputBytes: number; sandbox?: Invocation },
): Promise<CommandResult> {
  const started = performance.now();
  const child = options.sandbox ? spawnSandbox(options.sandbox) : spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env: minimalEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout = new CappedBuffer(options.maxOutputBytes);
  const stderr = new CappedBuffer(options.maxOutputBytes);
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  let timedOut = false;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'close' waits for the pipes: a background child still holding them keeps the command running until the timeout.
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (timedOut) killGroup();
      resolve({
        exitCode,
        signal,
        timedOut,
        durationMs: Math.round(performance.now() - started),
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
      });
    });
  });
}
