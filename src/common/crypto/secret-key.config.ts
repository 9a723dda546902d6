import { IsOptional, IsString } from 'class-validator';
import { ConfigVariable, declareConfig, toList } from '../../config/config-variable';
import { Transform } from 'class-transformer';
import { parseSealingKey } from './secret-sealer';

const GROUP = 'Secrets at rest';

/** Variables of the key that seals third-party secrets in the database (issue 19, item 6). */
export class SecretKeyVariables {
  @ConfigVariable({
    group: GROUP,
    description:
      'AES-256-GCM key sealing third-party secrets in the database (tool provider, corp, channel and robot secrets, model and target API keys): 64 hex characters or 43 base64url (`openssl rand -hex 32`). Unset: read from, or generated once into, `$DATA_DIR/secret.key` (mode 0600). Required when several instances share one database',
    unit: 'text',
    secret: true,
    defaultText: '$DATA_DIR/secret.key',
  })
  @IsOptional() @IsString()
  ATRIUM_SECRET_KEY?: string;

  @ConfigVariable({
    group: GROUP,
    description: 'comma-separated earlier keys, kept during a rotation so rows sealed under them still open; drop them after `atrium-admin secrets reseal` (docs/secrets.md)',
    unit: 'list',
    secret: true,
  })
  @IsOptional() @Transform(toList) @IsString({ each: true })
  ATRIUM_SECRET_KEY_PREVIOUS: string[] = [];
}

/** The core's `secretKey` slice: the configured keys as text (the key file is read at start-up, not here). */
export const secretKeyConfig = declareConfig({
  wing: 'core',
  variables: SecretKeyVariables,
  check: (vars) => {
    const problems: string[] = [];
    const valid = (text: string) => {
      try {
        parseSealingKey(text);
        return true;
      } catch {
        return false;
      }
    };
    if (vars.ATRIUM_SECRET_KEY !== undefined && !valid(vars.ATRIUM_SECRET_KEY)) problems.push('ATRIUM_SECRET_KEY: must be 32 bytes as 64 hex characters or 43 base64url characters');
    if (vars.ATRIUM_SECRET_KEY_PREVIOUS.some((key) => !valid(key))) problems.push('ATRIUM_SECRET_KEY_PREVIOUS: each key must be 32 bytes as 64 hex characters or 43 base64url characters');
    return problems;
  },
  resolve: (vars) => ({
    secretKey: { current: vars.ATRIUM_SECRET_KEY, previous: vars.ATRIUM_SECRET_KEY_PREVIOUS },
  }),
});

declare module '../../config/app-config' {
  interface AppConfig extends ReturnType<typeof secretKeyConfig.resolve> {}
}
