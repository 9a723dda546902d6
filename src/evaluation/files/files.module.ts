import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { join } from 'node:path';
import { StorageModule } from '../../common/storage/storage.module';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { FileCategoriesController } from './file-categories.controller';
import { FileCategoriesService } from './file-categories.service';
import { FileCategoryEntity } from './file-category.entity';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { StoredFileEntity } from './stored-file.entity';

/**
 * Evaluation file management (issue 4: Files), imported by EvaluationModule. A module of its own so that its multer
 * options (limit EVAL_FILE_MAX_BYTES, UTF-8 file names) apply to its routes only. multer keeps each upload in
 * `$DATA_DIR/tmp/uploads` until the handler has copied it into the file storage port (StorageModule); the
 * UploadedFileCleanupInterceptor then removes it, whatever the outcome.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([FileCategoryEntity, StoredFileEntity]),
    StorageModule,
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        dest: join(config.dataDir, 'tmp', 'uploads'),
        // Browsers send file names as raw UTF-8 in `filename="…"`; multer's default would read them as Latin-1.
        defParamCharset: 'utf8',
        // multer 2 treats fileSize as the largest allowed size: one byte more is LIMIT_FILE_SIZE (413).
        limits: { fileSize: config.evaluation.fileMaxBytes, files: 1, fields: 8, fieldSize: 64 * 1024, parts: 10 },
      }),
    }),
  ],
  controllers: [FileCategoriesController, FilesController],
  providers: [FilesService, FileCategoriesService],
})
export class EvaluationFilesModule {}
