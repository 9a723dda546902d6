import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, configFromEnv, readConfig, resolveConfigPath, writeConfig } from './client-config';

describe('client-config (deployment-gateway.md, Resources)', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-config-spec-'));
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('resolves the path: ATRIUM_DEPLOY_CONFIG, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(resolveConfigPath({ ATRIUM_DEPLOY_CONFIG: '/x/c.json', XDG_CONFIG_HOME: '/xdg' }, '/home/u')).toBe('/x/c.json');
    expect(resolveConfigPath({ XDG_CONFIG_HOME: '/xdg' }, '/home/u')).toBe('/xdg/atrium-deploy/config.json');
    expect(resolveConfigPath({}, '/home/u')).toBe('/home/u/.config/atrium-deploy/config.json');
  });

  it('builds the config from env with token null and optional fields', () => {
    const config = configFromEnv({
      DEPLOY_API_URL: 'https://gw.example.com/',
      DEPLOY_REGISTRATION_KEY: 'rk-1',
      DEPLOY_INSTANCE_NAME: 'box-1',
    });
    expect(config).toEqual({
      apiUrl: 'https://gw.example.com',
      registrationKey: 'rk-1',
      token: null,
      agentId: '',
      instanceName: 'box-1',
    });
  });

  it.each([
    [{ DEPLOY_REGISTRATION_KEY: 'k' }, 'DEPLOY_API_URL'],
    [{ DEPLOY_API_URL: 'http://localhost:1', DEPLOY_REGISTRATION_KEY: '  ' }, 'DEPLOY_REGISTRATION_KEY'],
  ])('names the missing variable %#', (env, name) => {
    expect(() => configFromEnv(env)).toThrow(ConfigError);
    expect(() => configFromEnv(env)).toThrow(new RegExp(`${name} is required`));
  });

  it('rejects a non-http apiUrl', () => {
    expect(() => configFromEnv({ DEPLOY_API_URL: 'file:///etc/passwd', DEPLOY_REGISTRATION_KEY: 'k' })).toThrow(
      /http or https/,
    );
  });

  it('writes atomically with mode 0600 in a new 0700 directory and reads back', async () => {
    const file = path.join(tmp, 'nested', 'atrium-deploy', 'config.json');
    const config = { apiUrl: 'http://127.0.0.1:9', registrationKey: 'rk', token: null, agentId: 'a1' };
    await writeConfig(file, config);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect(await readConfig(file)).toEqual(config);

    await writeConfig(file, { ...config, token: 'tok-2' });
    expect((await readConfig(file)).token).toBe('tok-2');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    // No temp files left behind by the write + rename.
    expect(await fs.readdir(path.dirname(file))).toEqual(['config.json']);
  });

  it('explains a missing file and invalid content', async () => {
    const file = path.join(tmp, 'missing.json');
    await expect(readConfig(file)).rejects.toThrow(/run "atrium-deploy init-config"/);
    await fs.writeFile(file, '{not json');
    await expect(readConfig(file)).rejects.toThrow(/not valid JSON/);
    await fs.writeFile(file, JSON.stringify({ apiUrl: 'http://x' }));
    await expect(readConfig(file)).rejects.toThrow(/lacks "registrationKey"/);
  });
});
