import { Module } from '@nestjs/common';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { LocalDirectoryStorage } from './local-directory.storage';
import { createS3Client, S3BlobStorage, S3Bucket } from './s3.storage';
import { BLOB_STORAGE } from './storage.port';

/** Injection token of the {@link S3Bucket} when STORAGE_DRIVER=s3 (null with the local driver). */
export const OBJECT_BUCKET = Symbol('OBJECT_BUCKET');

/**
 * Provides the file storage port as {@link BLOB_STORAGE} (DESIGN.md, External peers: file storage) and, with
 * STORAGE_DRIVER=s3, the bucket as {@link OBJECT_BUCKET} (issue 20 item 4). Wing-neutral: a wing imports this module
 * and injects `@Inject(BLOB_STORAGE) storage: BlobStorage`. The local driver keeps blobs in STORAGE_DIR (default
 * `$DATA_DIR/files`); the s3 driver in the bucket under `blobs/`, with uploads in progress in `STORAGE_DIR/.tmp`.
 */
@Module({
  providers: [
    {
      provide: OBJECT_BUCKET,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.objectStorage?.s3 ? new S3Bucket(createS3Client(config.objectStorage.s3), config.objectStorage.s3.bucket) : null,
    },
    {
      provide: BLOB_STORAGE,
      inject: [APP_CONFIG, OBJECT_BUCKET],
      useFactory: async (config: AppConfig, bucket: S3Bucket | null) => {
        if (bucket) return new S3BlobStorage(bucket, join(config.storage.root, '.tmp'));
        const storage = new LocalDirectoryStorage(config.storage.root);
        await storage.init();
        return storage;
      },
    },
  ],
  exports: [BLOB_STORAGE, OBJECT_BUCKET],
})
export class StorageModule {}
