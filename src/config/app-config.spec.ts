import { loadConfig } from '../app.config';
import { ConfigurationError } from './app-config';

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
});
