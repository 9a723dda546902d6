import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, IsUrl, Matches } from 'class-validator';
import { ConfigVariable, declareConfig, toFlag } from '../../config/config-variable';

const GROUP = 'Object storage';

/** The storage drivers: a local folder (also a shared mount) or an S3-compatible object store. */
export const STORAGE_DRIVERS = ['local', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

/**
 * Where published sites and evaluation files live (issue 20 item 4). `local` keeps them under DEPLOY_SITES_DIR and
 * STORAGE_DIR (one machine, or a filesystem every replica mounts); `s3` keeps them in one bucket of an S3-compatible
 * store (AWS S3, Cloudflare R2, MinIO), so any replica serves what another one wrote. Exec/upload workspaces stay on
 * the local filesystem either way (ISSUE-NOTES 12).
 */
export class StorageVariables {
  @ConfigVariable({
    group: GROUP,
    description: '`local` (sites in DEPLOY_SITES_DIR, evaluation files in STORAGE_DIR; a shared mount works for several replicas) or `s3` (both in S3_BUCKET, needed for replicas without a shared filesystem)',
    unit: 'text',
  })
  @IsIn(STORAGE_DRIVERS)
  STORAGE_DRIVER: StorageDriver = 'local';

  @ConfigVariable({
    group: GROUP,
    description: 'S3 endpoint URL for a non-AWS store (MinIO, R2, s3rver), e.g. `http://minio:9000`. Unset: AWS S3 of S3_REGION',
    unit: 'url',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  @ConfigVariable({ group: GROUP, description: 'bucket holding sites (`sites/<namespace>/<directory>/…`) and evaluation files (`blobs/<key>`); must exist. Required with STORAGE_DRIVER=s3', unit: 'text' })
  @IsOptional() @IsString() @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'S3_BUCKET must be a valid bucket name (3..63 of a-z 0-9 . -)' })
  S3_BUCKET?: string;

  @ConfigVariable({ group: GROUP, description: 'region of the bucket (MinIO and s3rver accept any)', unit: 'text' })
  @IsString()
  S3_REGION: string = 'us-east-1';

  @ConfigVariable({ group: GROUP, description: 'access key id. Unset: the AWS SDK\'s default chain (AWS_ACCESS_KEY_ID, instance role, …)', unit: 'text', secret: true })
  @IsOptional() @IsString()
  S3_ACCESS_KEY_ID?: string;

  @ConfigVariable({ group: GROUP, description: 'secret access key, with S3_ACCESS_KEY_ID', unit: 'text', secret: true })
  @IsOptional() @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @ConfigVariable({ group: GROUP, description: 'address the bucket in the path (`endpoint/bucket/key`) rather than the host name; MinIO and s3rver need it', unit: 'flag' })
  @IsOptional() @Transform(toFlag) @IsBoolean()
  S3_FORCE_PATH_STYLE: boolean = false;
}

/** The resolved object-storage settings (`objectStorage` slice of AppConfig). */
export interface ObjectStorageSettings {
  driver: StorageDriver;
  /** Present when `driver` is `s3`. */
  s3?: { endpoint?: string; bucket: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean };
}

/** Declaration of the object-storage variables (issue 20 item 4); refuses `s3` without a bucket or half a key pair. */
export const storageConfig = declareConfig({
  wing: 'core',
  variables: StorageVariables,
  check: (vars) => {
    const problems: string[] = [];
    if (vars.STORAGE_DRIVER === 's3' && !vars.S3_BUCKET) problems.push('S3_BUCKET: required with STORAGE_DRIVER=s3');
    if (Boolean(vars.S3_ACCESS_KEY_ID) !== Boolean(vars.S3_SECRET_ACCESS_KEY)) problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither');
    return problems;
  },
  resolve: (vars) => ({
    objectStorage: {
      driver: vars.STORAGE_DRIVER,
      s3:
        vars.STORAGE_DRIVER === 's3'
          ? {
              endpoint: vars.S3_ENDPOINT,
              bucket: vars.S3_BUCKET!,
              region: vars.S3_REGION,
              accessKeyId: vars.S3_ACCESS_KEY_ID,
              secretAccessKey: vars.S3_SECRET_ACCESS_KEY,
              forcePathStyle: vars.S3_FORCE_PATH_STYLE,
            }
          : undefined,
    } as ObjectStorageSettings,
  }),
});

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppConfig extends ReturnType<typeof storageConfig.resolve> {}
}
