import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import {
  type ConfigDeclaration,
  ConfigurationError,
  ConfigVariable,
  declareConfig,
  describeConfiguration,
  loadConfiguration,
  readableQuantity,
  renderConfigurationDoc,
  renderEnvExample,
  toList,
} from './config-variable';

class BaseVariables {
  @ConfigVariable({ group: 'Server', description: 'HTTP port', unit: 'port' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT: number = 3000;

  @ConfigVariable({ group: 'Server', description: 'data folder', unit: 'path' })
  @IsOptional() @IsString()
  DATA_DIR: string = '/data';
}
const base = declareConfig({ wing: 'core', variables: BaseVariables, resolve: (vars) => ({ port: vars.PORT, dataDir: vars.DATA_DIR }) });

class WingVariables {
  @ConfigVariable({ group: 'Wing limits', description: 'largest upload', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  WING_MAX_BYTES: number = 16 * 1024 * 1024;

  @ConfigVariable({ group: 'Wing limits', description: 'default timeout', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  WING_TIMEOUT_MS: number = 60_000;

  @ConfigVariable({ group: 'Wing limits', description: 'longest timeout', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  WING_MAX_TIMEOUT_MS: number = 600_000;

  @ConfigVariable({ group: 'Wing access', description: 'mode: a | b', unit: 'text' })
  @IsOptional() @IsIn(['a', 'b'])
  WING_MODE: string = 'a';

  @ConfigVariable({ group: 'Wing access', description: 'permissions', unit: 'list' })
  @IsOptional() @Transform(toList) @IsIn(['read', 'write'], { each: true })
  WING_PERMISSIONS: string[] = ['read', 'write'];

  @ConfigVariable({ group: 'Wing access', description: 'the key', unit: 'text', secret: true, defaultText: 'generated at first start' })
  @IsOptional() @IsString() @MinLength(16)
  WING_KEY?: string;

  @ConfigVariable({ group: 'Wing access', description: 'public URL', unit: 'url', defaultText: 'http://localhost:$PORT' })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true })
  WING_PUBLIC_URL?: string;
}
const wing = declareConfig({
  wing: 'wing',
  variables: WingVariables,
  check: (vars) => (vars.WING_TIMEOUT_MS > vars.WING_MAX_TIMEOUT_MS ? ['WING_TIMEOUT_MS: must not exceed WING_MAX_TIMEOUT_MS'] : []),
  resolve: (vars, resolved) => ({
    wing: { publicUrl: vars.WING_PUBLIC_URL ?? `http://localhost:${resolved.port}`, folder: `${resolved.dataDir}/wing`, permissions: vars.WING_PERMISSIONS },
  }),
});

const load = (env: NodeJS.ProcessEnv, declarations: readonly ConfigDeclaration<any, any>[] = [base, wing]) => loadConfiguration<Record<string, any>>(env, declarations);
const failure = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigurationError) return error.message;
    throw error;
  }
  throw new Error('no ConfigurationError');
};

describe('loadConfiguration', () => {
  it('merges the slices; wings derive defaults from the first (core) slice', () => {
    expect(load({ PORT: '4000', WING_PERMISSIONS: 'read, ,read' })).toEqual({
      port: 4000,
      dataDir: '/data',
      wing: { publicUrl: 'http://localhost:4000', folder: '/data/wing', permissions: ['read', 'read'] },
    });
  });

  it('treats an empty value as unset', () => {
    expect(load({ PORT: '', WING_PUBLIC_URL: '' }).wing.publicUrl).toBe('http://localhost:3000');
  });

  it('names every invalid variable in one error', () => {
    const message = failure(() => load({ PORT: 'eighty', WING_MODE: 'c', WING_PERMISSIONS: 'read,root', WING_KEY: 'short' }));
    expect(message).toMatch(/^Invalid configuration:\n {2}PORT: /);
    for (const name of ['WING_MODE', 'WING_PERMISSIONS', 'WING_KEY']) expect(message).toMatch(new RegExp(`\\n  ${name}: `));
  });

  it('runs check() after validation and reports its lines', () => {
    expect(failure(() => load({ WING_TIMEOUT_MS: '5000', WING_MAX_TIMEOUT_MS: '1000' }))).toBe('Invalid configuration:\n  WING_TIMEOUT_MS: must not exceed WING_MAX_TIMEOUT_MS');
    // With an invalid value the rules are not run (they would read a value that failed validation).
    expect(failure(() => load({ WING_TIMEOUT_MS: '5000', WING_MAX_TIMEOUT_MS: 'x' }))).not.toMatch(/must not exceed/);
  });

  it('refuses a variable without @ConfigVariable', () => {
    class Undocumented {
      @ConfigVariable({ group: 'G', description: 'documented', unit: 'count' })
      @IsOptional() @Type(() => Number) @IsInt()
      DOCUMENTED: number = 1;

      @IsOptional() @IsString()
      SECRET_HANDSHAKE?: string;
    }
    const declaration = declareConfig({ wing: 'odd', variables: Undocumented, resolve: () => ({}) });
    expect(failure(() => load({}, [base, declaration]))).toMatch(/SECRET_HANDSHAKE: declared without @ConfigVariable \(odd\)/);
  });

  it('refuses a variable declared by two declarations', () => {
    class Again {
      @ConfigVariable({ group: 'G', description: 'port again', unit: 'port' })
      @IsOptional() @Type(() => Number) @IsInt()
      PORT: number = 1;
    }
    expect(failure(() => load({}, [base, declareConfig({ wing: 'again', variables: Again, resolve: () => ({}) })]))).toMatch(/PORT: declared twice/);
  });

  it('refuses two declarations resolving the same slice key', () => {
    class Other {}
    const clash = declareConfig({ wing: 'clash', variables: Other, resolve: () => ({ wing: {} }) });
    expect(() => load({}, [base, wing, clash])).toThrow('configuration slice wing is resolved by both wing and clash');
  });

  it('needs the core first', () => {
    expect(() => load({}, [wing, base])).toThrow(/first configuration declaration \(wing\) must resolve port and dataDir/);
  });
});

describe('describeConfiguration and renderConfigurationDoc', () => {
  const described = describeConfiguration([base, wing]);
  const row = (name: string) => described.find((variable) => variable.name === name);

  it('lists every variable in declaration order with its wing', () => {
    expect(described.map((variable) => `${variable.wing}:${variable.name}`)).toEqual([
      'core:PORT',
      'core:DATA_DIR',
      'wing:WING_MAX_BYTES',
      'wing:WING_TIMEOUT_MS',
      'wing:WING_MAX_TIMEOUT_MS',
      'wing:WING_MODE',
      'wing:WING_PERMISSIONS',
      'wing:WING_KEY',
      'wing:WING_PUBLIC_URL',
    ]);
  });

  it('derives defaults and accepted values from the initializers and validators', () => {
    expect(row('PORT')).toMatchObject({ defaultValue: '3000', allowed: '0..65535' });
    expect(row('WING_MAX_BYTES')).toMatchObject({ defaultValue: '16777216', allowed: '≥ 1024', readable: '16 MiB' });
    expect(row('WING_MODE')).toMatchObject({ defaultValue: 'a', allowed: 'one of: a, b' });
    expect(row('WING_PERMISSIONS')).toMatchObject({ defaultValue: 'read,write', allowed: 'each one of: read, write' });
    expect(row('WING_KEY')).toMatchObject({ defaultValue: 'generated at first start', allowed: '≥ 16 chars', secret: true });
    expect(row('WING_PUBLIC_URL')).toMatchObject({ defaultValue: 'http://localhost:$PORT', allowed: 'URL' });
  });

  it('renders one section per wing and group, escaping pipes, marking secrets', () => {
    const page = renderConfigurationDoc([base, wing]);
    expect(page.endsWith('\n')).toBe(true);
    expect(page).toContain('## Core\n\n### Server\n\n| variable | default | unit | accepted | meaning |');
    expect(page).toContain('\n- [Core](#core): [Server](#server)\n- [wing](#wing): [Wing limits](#wing-limits) · [Wing access](#wing-access)\n');
    expect(page).toContain('### Wing limits');
    expect(page).toContain('| `WING_MODE` | `a` | text | one of: a, b | mode: a \\| b |');
    expect(page).toContain('| `WING_MAX_BYTES` | `16777216` (16 MiB) | bytes | ≥ 1024 | largest upload |');
    expect(page).toContain('| `WING_TIMEOUT_MS` | `60000` (1 min) | ms | ≥ 1 | default timeout |');
    expect(page).toContain('| `WING_KEY` | generated at first start | text | ≥ 16 chars | the key (secret) |');
    expect(page).toContain('| `WING_PUBLIC_URL` | `http://localhost:$PORT` | url | URL | public URL |');
  });

  it('renders .env.example with every line commented out, secrets and derived defaults left empty', () => {
    const text = renderEnvExample([base, wing]);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).toEqual([]);
    expect(text).toContain('\n## Server\n# HTTP port\n# PORT=3000\n');
    expect(text).toContain('# permissions\n# WING_PERMISSIONS=read,write\n');
    expect(text).toContain('# the key; default: generated at first start (secret)\n# WING_KEY=\n');
    expect(text).toContain('# public URL; default: http://localhost:$PORT\n# WING_PUBLIC_URL=\n');
  });

  it('gives a readable form only to round sizes and durations', () => {
    expect(readableQuantity(43_200_000, 'ms')).toBe('12 h');
    expect(readableQuantity(1_048_576, 'bytes')).toBe('1 MiB');
    expect(readableQuantity(1500, 'ms')).toBeUndefined();
    expect(readableQuantity(500, 'bytes')).toBeUndefined();
    expect(readableQuantity(3600, 's')).toBe('1 h');
    expect(readableQuantity(3600, 'count')).toBeUndefined();
  });
});
