import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { LocalDirectoryStorage } from './local-directory.storage';
import { BLOB_STORAGE } from './storage.port';

/**
 * Provides the file storage port as {@link BLOB_STORAGE} (DESIGN.md, External peers: file storage). Wing-neutral:
 * a wing imports this module and injects `@Inject(BLOB_STORAGE) storage: BlobStorage`. The binding is the local
 * folder STORAGE_DIR (default `$DATA_DIR/files`); an object-store adapter replaces it here, behind the same token.
 */
@Module({
  providers: [
    {
      provide: BLOB_STORAGE,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const storage = new LocalDirectoryStorage(config.storage.root);
        await storage.init();
        return storage;
      },
    },
  ],
  exports: [BLOB_STORAGE],
})
export class StorageModule {}
