import { eventually } from '../../../test/support/async';
import { processesWith } from '../../../test/support/processes';
import { tmpdir } from 'node:os';
import { runCommand } from './command-runner';

describe('runCommand', () => {
  const options = { cwd: tmpdir(), timeoutMs: 5_000, maxOutputBytes: 1024 };

  it('captures output and exit code', async () => {
    const result = await runCommand('echo out; echo err >&2; exit 3', options);
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, stdout: 'out\n', stderr: 'err\n', stdoutTruncated: false });
  });

  it('caps output and marks it truncated', async () => {
    const result = await runCommand('head -c 5000 /dev/zero | tr "\\0" a', { ...options, maxOutputBytes: 100 });
    expect(result.stdout).toHaveLength(100);
    expect(result.stdoutTruncated).toBe(true);
  });

  it('kills the whole process group on timeout', async () => {
    const marker = `61.${process.pid}${Date.now() % 1000}`;
    const started = Date.now();
    const result = await runCommand(`sleep ${marker} & sleep ${marker}`, { ...options, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    // Killed processes leave the process table shortly after; an orphan never would, and fails here after 5 s.
    await eventually('the killed commands to leave the process table', async () => (processesWith(marker).length === 0 ? true : undefined), { intervalMs: 50, timeoutMs: 5_000 });
  });

  it('does not pass the server\'s secrets to the command', async () => {
    process.env.ATRIUM_TEST_SECRET = 'do-not-leak';
    const result = await runCommand('env', options);
    delete process.env.ATRIUM_TEST_SECRET;
    expect(result.stdout).not.toContain('do-not-leak');
    expect(result.stdout).toContain('PATH=');
  });
});
