import { EXIT_CODES, run } from './main';

describe('atrium-chat CLI usage (no database needed)', () => {
  let out: string;
  let err: string;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    out = '';
    err = '';
    return run(['node', 'atrium-chat', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env });
  };

  it('prints help with the commands and exit codes', async () => {
    expect(await cli(['--help'])).toBe(EXIT_CODES.ok);
    expect(out).toContain('tenant');
    expect(out).toContain('client');
    expect(out).toContain('Exit codes: 0 done, 1 refused, 2 usage or database error.');
    expect(await cli(['client', 'create', '--help'])).toBe(EXIT_CODES.ok);
    expect(out).toContain('--platform-admin');
  });

  it('refuses client create without exactly one of --tenant and --platform-admin, before touching a database', async () => {
    expect(await cli(['client', 'create'])).toBe(EXIT_CODES.error);
    expect(err).toBe('atrium-chat: give either --tenant <id> or --platform-admin\n');
    expect(await cli(['client', 'create', '--tenant', 'acme', '--platform-admin'])).toBe(EXIT_CODES.error);
    expect(await cli(['client', 'create', '--platform-admin', '--scopes', 'chat:read'])).toBe(EXIT_CODES.error);
    expect(err).toBe('atrium-chat: --scopes applies to tenant clients only (a platform-admin client has platform:admin)\n');
  });

  it('refuses unknown scopes, unknown commands and bad options', async () => {
    expect(await cli(['client', 'create', '--tenant', 'acme', '--scopes', 'chat:read,everything'])).toBe(EXIT_CODES.error);
    expect(err).toBe('atrium-chat: Unknown scope(s): everything; allowed: chat:read, chat:write.\n');
    expect(await cli(['tenant', 'list', '--status', 'gone'])).toBe(EXIT_CODES.error);
    expect(err).toContain("argument 'gone' is invalid");
    expect(await cli(['tenant', 'create', 'acme', '--name', ' '])).toBe(EXIT_CODES.error);
    expect(err).toBe('atrium-chat: --name must be 1..200 characters\n');
    expect(await cli(['teleport'])).toBe(EXIT_CODES.error);
  });

  it('reports an invalid environment as a usage error naming the variable', async () => {
    expect(await cli(['tenant', 'list'], { CHAT_OAUTH_ALGORITHMS: 'HS256' })).toBe(EXIT_CODES.error);
    expect(err).toMatch(/^atrium-chat: Invalid configuration: CHAT_OAUTH_ALGORITHMS: each of CHAT_OAUTH_ALGORITHMS must be one of RS256/);
  });
});
