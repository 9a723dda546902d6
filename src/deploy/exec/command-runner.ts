import { spawn } from 'node:child_process';

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
 * On timeout the whole group gets SIGKILL, so children and grandchildren die with it. The command gets a minimal
 * environment, never the server's secrets.
 * @param options.timeoutMs wall-clock limit in ms
 * @param options.maxOutputBytes cap per stream in bytes; more is dropped and marked truncated
 */
export function runCommand(command: string, options: { cwd: string; timeoutMs: number; maxOutputBytes: number }): Promise<CommandResult> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { TERM: 'dumb' };
  for (const name of INHERITED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  const child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout = new CappedBuffer(options.maxOutputBytes);
  const stderr = new CappedBuffer(options.maxOutputBytes);
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
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
