import { ConfigurationError, loadConfiguration } from '../../config/config-variable';
import { coreConfig } from '../../config/core.config';
import { execSandboxConfig, ExecSandboxConfig } from './exec-sandbox.config';

const load = (env: Record<string, string>) => loadConfiguration<{ execSandbox: ExecSandboxConfig }>(env, [coreConfig, execSandboxConfig]).execSandbox;

describe('execSandboxConfig (issue 12 items 1–2)', () => {
  it('defaults to the sandbox on, network off and the documented limits', () => {
    expect(load({})).toEqual({
      enabled: true,
      network: false,
      bwrapPath: '/usr/bin/bwrap',
      prlimitPath: '/usr/bin/prlimit',
      user: 'atrium-sandbox',
      cpuSeconds: 300,
      memoryBytes: 4 * 1024 ** 3,
      maxProcesses: 256,
      maxFileBytes: 1024 ** 3,
      tmpBytes: 256 * 1024 ** 2,
    });
  });

  it('turns the sandbox off only for the explicit value "off"', () => {
    expect(load({ DEPLOY_EXEC_SANDBOX: 'off' }).enabled).toBe(false);
    expect(() => load({ DEPLOY_EXEC_SANDBOX: 'no' })).toThrow(/DEPLOY_EXEC_SANDBOX/);
    expect(() => load({ DEPLOY_EXEC_SANDBOX: 'false' })).toThrow(ConfigurationError);
  });

  it('refuses DEPLOY_EXEC_NETWORK=on at start-up, saying only off is offered', () => {
    expect(() => load({ DEPLOY_EXEC_NETWORK: 'on' })).toThrow(/DEPLOY_EXEC_NETWORK: only "off" is offered/);
    expect(load({ DEPLOY_EXEC_NETWORK: 'off' }).network).toBe(false);
  });

  it('reads the limits and refuses nonsense', () => {
    expect(load({ EXEC_CPU_SECONDS: '5', EXEC_MEMORY_BYTES: String(2 ** 30), EXEC_MAX_PROCESSES: '32', EXEC_MAX_FILE_BYTES: '4096', EXEC_TMP_BYTES: String(2 ** 20) })).toMatchObject({
      cpuSeconds: 5,
      memoryBytes: 2 ** 30,
      maxProcesses: 32,
      maxFileBytes: 4096,
      tmpBytes: 2 ** 20,
    });
    for (const [name, value] of [['EXEC_CPU_SECONDS', '0'], ['EXEC_MEMORY_BYTES', '1000'], ['EXEC_MAX_PROCESSES', '2'], ['EXEC_MAX_FILE_BYTES', 'x']]) {
      expect(() => load({ [name]: value })).toThrow(new RegExp(name));
    }
  });

  it('takes a user name or uid:gid, never root or a path', () => {
    expect(load({ EXEC_SANDBOX_USER: '2000:2000' }).user).toBe('2000:2000');
    for (const user of ['0:0', 'root:0', '../x', 'a b']) expect(() => load({ EXEC_SANDBOX_USER: user })).toThrow(/EXEC_SANDBOX_USER/);
    expect(() => load({ EXEC_SANDBOX_BWRAP_PATH: 'bwrap' })).toThrow(/EXEC_SANDBOX_BWRAP_PATH/);
  });
});
