import { APP_CONFIG_DECLARATIONS, loadConfig } from './app.config';
import { ConfigurationError } from './config/app-config';
import { describeConfiguration } from './config/config-variable';

describe('loadConfig', () => {
  it('fills every default from an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.deploy.defaultPermissions).toEqual(['deploy', 'exec', 'list', 'delete']);
    expect(config.deploy.publicUrl).toBe('http://localhost:3000');
    expect(config.deploy.sitesDir).toMatch(/\.data\/sites$/);
    expect(config.exec.defaultTimeoutMs).toBe(30_000);
  });

  it('parses numbers, lists and trims a trailing slash off the public URL', () => {
    const config = loadConfig({
      PORT: '8080',
      DEPLOY_DEFAULT_PERMISSIONS: 'deploy, list',
      DEPLOY_ALLOWED_DIRS: '/srv/a,/srv/b',
      DEPLOY_PUBLIC_URL: 'https://sites.example.com/',
    });
    expect(config.port).toBe(8080);
    expect(config.deploy.defaultPermissions).toEqual(['deploy', 'list']);
    expect(config.deploy.allowedDirs).toEqual(['/srv/a', '/srv/b']);
    expect(config.deploy.publicUrl).toBe('https://sites.example.com');
  });

  it.each([
    ['PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://x'],
    ['DEPLOY_DEFAULT_PERMISSIONS', 'deploy,root'],
    ['DEPLOY_REGISTRATION_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
  ])('names the variable when %s=%s is invalid', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigurationError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('refuses a default exec timeout above the maximum', () => {
    expect(() => loadConfig({ EXEC_DEFAULT_TIMEOUT_MS: '5000', EXEC_MAX_TIMEOUT_MS: '1000' })).toThrow(/EXEC_DEFAULT_TIMEOUT_MS/);
  });

  it('refuses a workspace root that is DATA_DIR or contains it (a namespace would get DATA_DIR folders mounted writable)', () => {
    expect(() => loadConfig({ DATA_DIR: '/srv/atrium', DEPLOY_ALLOWED_DIRS: '/srv/atrium' })).toThrow(/DEPLOY_ALLOWED_DIRS: \/srv\/atrium is DATA_DIR or contains it/);
    expect(() => loadConfig({ DATA_DIR: '/srv/atrium/data', DEPLOY_ALLOWED_DIRS: '/srv/work,/srv' })).toThrow(/DEPLOY_ALLOWED_DIRS: \/srv is DATA_DIR/);
    expect(loadConfig({ DATA_DIR: '/srv/atrium', DEPLOY_ALLOWED_DIRS: '/srv/atrium/workspace,/srv/work' }).deploy.allowedDirs).toEqual(['/srv/atrium/workspace', '/srv/work']);
  });

  it('reports every broken variable at once, not only the first', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', EVAL_FILE_MAX_BYTES: '0' })).toThrow(/PORT: [^\n]+\n  LOG_LEVEL: [^\n]+\n  EVAL_FILE_MAX_BYTES: /);
  });

  it('lists each variable once, every one with a group, a description and a unit', () => {
    const described = describeConfiguration(APP_CONFIG_DECLARATIONS);
    expect(new Set(described.map((variable) => variable.name)).size).toBe(described.length);
    expect(described.map((variable) => variable.name)).toEqual(expect.arrayContaining(['PORT', 'CHAT_PLATFORM_MODE', 'DEPLOY_PUBLIC_URL', 'EXEC_MAX_TIMEOUT_MS', 'EVAL_API_KEYS']));
    expect(new Set(described.map((variable) => variable.wing))).toEqual(new Set(['core', 'chat', 'deploy', 'evaluation']));
    expect(described.filter((variable) => !variable.group || !variable.description || !variable.unit).map((variable) => variable.name)).toEqual([]);
  });

  it('marks credentials as secrets', () => {
    const secrets = describeConfiguration(APP_CONFIG_DECLARATIONS)
      .filter((variable) => variable.secret)
      .map((variable) => variable.name);
    expect(secrets).toEqual(expect.arrayContaining(['DEPLOY_REGISTRATION_KEY', 'DEPLOY_OWNER_TOKEN', 'EVAL_API_KEYS', 'EVAL_ADMIN_PASSWORD', 'EVAL_SESSION_SECRET', 'EVAL_WEBHOOK_SECRET', 'CHAT_LLM_API_KEY']));
    const unmarked = describeConfiguration(APP_CONFIG_DECLARATIONS).filter((variable) => /_(KEY|KEYS|TOKEN|PASSWORD|SECRET)$/.test(variable.name) && !variable.secret);
    expect(unmarked.map((variable) => variable.name)).toEqual([]);
  });
});
