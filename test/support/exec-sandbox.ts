import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecSandboxVariables, execSandboxConfig } from '../../src/deploy/exec/exec-sandbox.config';
import { checkSandbox, SandboxStatus } from '../../src/deploy/exec/exec-sandbox';

let probed: SandboxStatus | undefined;

/**
 * Whether the exec sandbox (issue 12) can run on this machine, probed once per test file with the app's own start-up
 * check and default settings (bubblewrap at /usr/bin/bwrap). Synchronous, so suites can choose `describe` or
 * `describe.skip` at load time.
 */
export function execSandboxProbe(): SandboxStatus {
  if (!probed) {
    // The probe's filter file goes to a private temp folder, removed at once: the suites' apps write their own.
    const stateDir = mkdtempSync(join(tmpdir(), 'atrium-exec-probe-'));
    try {
      probed = checkSandbox(execSandboxConfig.resolve(new ExecSandboxVariables(), { port: 0, dataDir: '' }).execSandbox, stateDir);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }
  return probed;
}

/**
 * For the functional exec suites: the environment that runs them in the sandbox when it can run, else with
 * DEPLOY_EXEC_SANDBOX=off, saying so on the console (never a silent downgrade).
 * @param suite name printed with the notice
 */
export function execSandboxEnv(suite: string): Record<string, string> {
  const status = execSandboxProbe();
  if (status.kind === 'ready') return {};
  const reason = status.kind === 'unavailable' ? status.reason : 'disabled';
  console.warn(`${suite}: the exec sandbox can't run here (${reason}); running these functional tests with DEPLOY_EXEC_SANDBOX=off. Install the Debian package "bubblewrap" to run them sandboxed.`);
  return { DEPLOY_EXEC_SANDBOX: 'off' };
}
