import { loadConfiguration } from '../../config/config-variable';
import { coreConfig } from '../../config/core.config';
import { type ObjectStorageSettings, storageConfig } from './storage.config';

describe('object storage configuration (issue 20 item 4)', () => {
  const load = (env: Record<string, string>) => loadConfiguration<{ objectStorage: ObjectStorageSettings }>(env, [coreConfig, storageConfig]).objectStorage;

  it('keeps the local driver by default', () => {
    expect(load({})).toEqual({ driver: 'local', s3: undefined });
  });

  it('reads the S3 settings', () => {
    expect(load({ STORAGE_DRIVER: 's3', S3_BUCKET: 'atrium-files', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's', S3_FORCE_PATH_STYLE: 'true' })).toEqual({
      driver: 's3',
      s3: { endpoint: 'http://minio:9000', bucket: 'atrium-files', region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true },
    });
  });

  it('refuses s3 without a bucket, half a key pair, an unknown driver, a bad bucket name', () => {
    expect(() => load({ STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET: required with STORAGE_DRIVER=s3/);
    expect(() => load({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'k' })).toThrow(/set both or neither/);
    expect(() => load({ STORAGE_DRIVER: 'gcs' })).toThrow(/STORAGE_DRIVER/);
    expect(() => load({ STORAGE_DRIVER: 's3', S3_BUCKET: 'Bad_Bucket' })).toThrow(/S3_BUCKET must be a valid bucket name/);
    expect(() => load({ S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE/);
  });
});
