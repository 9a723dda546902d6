import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const SANDBOX = 'Exec sandbox';

/**
 * Environment variables of the exec sandbox (issue 12 items 1–2; docs/exec-sandbox.md). Every command of
 * `POST /api/exec` runs in bubblewrap under these limits unless the operator sets `DEPLOY_EXEC_SANDBOX=off`.
 */
export class ExecSandboxVariables {
  @ConfigVariable({
    group: SANDBOX,
    description:
      '`on`: every exec runs in a bubblewrap sandbox, and exec answers 503 when the sandbox can\'t be set up. `off`: commands run unconfined as the server\'s user (an explicit operator choice, warned at every start)',
    unit: 'text',
  })
  @IsOptional() @IsIn(['on', 'off'])
  DEPLOY_EXEC_SANDBOX: 'on' | 'off' = 'on';

  @ConfigVariable({
    group: SANDBOX,
    description:
      'network inside the sandbox; only `off` is offered (bubblewrap alone can\'t keep the database and the app\'s port out of reach of a networked command), so `on` stops the start',
    unit: 'text',
  })
  @IsOptional() @IsIn(['off'], { message: 'DEPLOY_EXEC_NETWORK: only "off" is offered; exec commands have no network (docs/exec-sandbox.md)' })
  DEPLOY_EXEC_NETWORK: 'off' = 'off';

  @ConfigVariable({ group: SANDBOX, description: 'the bubblewrap binary (Debian package `bubblewrap`)', unit: 'path' })
  @IsOptional() @IsString() @Matches(/^\//, { message: 'EXEC_SANDBOX_BWRAP_PATH must be an absolute path' })
  EXEC_SANDBOX_BWRAP_PATH: string = '/usr/bin/bwrap';

  @ConfigVariable({ group: SANDBOX, description: 'util-linux `prlimit`, which sets the resource limits before bubblewrap starts', unit: 'path' })
  @IsOptional() @IsString() @Matches(/^\//, { message: 'EXEC_SANDBOX_PRLIMIT_PATH must be an absolute path' })
  EXEC_SANDBOX_PRLIMIT_PATH: string = '/usr/bin/prlimit';

  @ConfigVariable({
    group: SANDBOX,
    description:
      'when the server runs as root: the unprivileged OS user commands run as (a name, created as a system user when missing, or `uid:gid`); ignored otherwise (commands then run as the server\'s own user)',
    unit: 'text',
  })
  @IsOptional() @IsString() @Matches(/^([a-z_][a-z0-9_-]{0,31}|[1-9][0-9]{0,9}:[1-9][0-9]{0,9})$/, { message: 'EXEC_SANDBOX_USER must be a user name or uid:gid (not root)' })
  EXEC_SANDBOX_USER: string = 'atrium-sandbox';

  @ConfigVariable({ group: SANDBOX, description: 'CPU time of each process of a command (RLIMIT_CPU); past it the process is killed', unit: 's' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(86_400)
  EXEC_CPU_SECONDS: number = 300;

  @ConfigVariable({ group: SANDBOX, description: 'address space of each process of a command (RLIMIT_AS); allocations past it fail', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(256 * 1024 * 1024)
  EXEC_MEMORY_BYTES: number = 4 * 1024 * 1024 * 1024;

  @ConfigVariable({
    group: SANDBOX,
    description: 'processes and threads the sandbox user may have at once (RLIMIT_NPROC), shared by all running commands; fork fails past it',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(8) @Max(1_000_000)
  EXEC_MAX_PROCESSES: number = 256;

  @ConfigVariable({ group: SANDBOX, description: 'largest file a command may write (RLIMIT_FSIZE); a write past it fails', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  EXEC_MAX_FILE_BYTES: number = 1024 * 1024 * 1024;

  @ConfigVariable({ group: SANDBOX, description: 'size of the command\'s private `/tmp` and `/dev/shm` (tmpfs, in memory, gone after the call)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024 * 1024)
  EXEC_TMP_BYTES: number = 256 * 1024 * 1024;
}

/** The sandbox's resolved settings (`config.execSandbox`); sizes in bytes, CPU in seconds. */
export interface ExecSandboxConfig {
  /** False only when the operator set `DEPLOY_EXEC_SANDBOX=off`. */
  enabled: boolean;
  /** Always false: only "network off" is offered. */
  network: false;
  bwrapPath: string;
  prlimitPath: string;
  /** User name or `uid:gid`, used only when the server runs as root. */
  user: string;
  cpuSeconds: number;
  memoryBytes: number;
  maxProcesses: number;
  maxFileBytes: number;
  tmpBytes: number;
}

/** The exec sandbox's slice of AppConfig: `execSandbox` (issue 12 items 1–2). */
export const execSandboxConfig = declareConfig({
  wing: 'deploy',
  variables: ExecSandboxVariables,
  resolve: (vars): { execSandbox: ExecSandboxConfig } => ({
    execSandbox: {
      enabled: vars.DEPLOY_EXEC_SANDBOX !== 'off',
      network: false,
      bwrapPath: vars.EXEC_SANDBOX_BWRAP_PATH,
      prlimitPath: vars.EXEC_SANDBOX_PRLIMIT_PATH,
      user: vars.EXEC_SANDBOX_USER,
      cpuSeconds: vars.EXEC_CPU_SECONDS,
      memoryBytes: vars.EXEC_MEMORY_BYTES,
      maxProcesses: vars.EXEC_MAX_PROCESSES,
      maxFileBytes: vars.EXEC_MAX_FILE_BYTES,
      tmpBytes: vars.EXEC_TMP_BYTES,
    },
  }),
});

declare module '../../config/app-config' {
  /** The exec sandbox's slice: `execSandbox`. */
  interface AppConfig extends ReturnType<typeof execSandboxConfig.resolve> {}
}
