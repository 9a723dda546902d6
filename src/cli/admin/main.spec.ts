import { EXIT_CODES, run } from './main';

describe('atrium-admin CLI usage (no database needed)', () => {
  let out: string;
  let err: string;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    out = '';
    err = '';
    return run(['node', 'atrium-admin', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env });
  };

  it('prints help naming the reseal command and the exit codes', async () => {
    expect(await cli(['--help'])).toBe(EXIT_CODES.ok);
    expect(out).toContain('secrets');
    expect(out).toContain('Exit codes: 0 done, 1 values left unopened, 2 usage or database error.');
    expect(await cli(['secrets', '--help'])).toBe(EXIT_CODES.ok);
    expect(out).toContain('reseal');
  });

  it('refuses unknown commands and an invalid key before touching a database, never echoing the key', async () => {
    expect(await cli(['rotate-everything'])).toBe(EXIT_CODES.error);
    const badKey = 'not-a-key-but-maybe-a-password';
    expect(await cli(['secrets', 'reseal'], { ATRIUM_SECRET_KEY: badKey })).toBe(EXIT_CODES.error);
    expect(err).toMatch(/^atrium-admin: Invalid configuration: ATRIUM_SECRET_KEY: must be 32 bytes/);
    expect(err).not.toContain(badKey);
    expect(await cli(['secrets', 'reseal'], { ATRIUM_SECRET_KEY: 'a'.repeat(64), ATRIUM_SECRET_KEY_PREVIOUS: 'short' })).toBe(EXIT_CODES.error);
    expect(err).toMatch(/ATRIUM_SECRET_KEY_PREVIOUS: each key must be 32 bytes/);
  });
});
