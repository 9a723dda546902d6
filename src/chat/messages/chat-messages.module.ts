import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { join } from 'node:path';
import { StorageModule } from '../../common/storage/storage.module';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobsModule } from '../../jobs/jobs.module';
import { ChatPlatformModule } from '../platform/chat-platform.module';
import { ChatMessageEntity } from './chat-message.entity';
import { ChatMessagesController } from './chat-messages.controller';
import { ChatMessagesService } from './chat-messages.service';
import { MessageCommentEntity } from './message-comment.entity';
import { MessageDelivery } from './message-delivery';
import { ChatDeliverySweeper } from './chat-delivery.sweeper';
import { MessageOptimizerService } from './message-optimizer.service';
import { DELIVER_CHAT_MESSAGE } from './message-delivery.job';
import { MessageUploadLimitInterceptor } from './message-upload-limit.interceptor';
import { largestAttachmentLimit } from './message-send.rules';

/**
 * Contact messages of the chat wing (issue 6, "Messages"), imported by ChatModule. A module of its own so that its
 * multer options (limit = the largest per-type attachment limit, UTF-8 file names) apply to its routes only. multer
 * keeps each upload in `$DATA_DIR/tmp/uploads` until the service has copied it into the file storage port; the
 * UploadedFileCleanupInterceptor then removes it, whatever the outcome. Exports {@link ChatMessagesService} for the
 * inbound pipeline.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ChatMessageEntity, MessageCommentEntity]),
    StorageModule,
    ChatPlatformModule,
    JobsModule.forFeature([DELIVER_CHAT_MESSAGE]),
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        dest: join(config.dataDir, 'tmp', 'uploads'),
        defParamCharset: 'utf8',
        // multer 2 treats fileSize as the largest allowed size: one byte more is LIMIT_FILE_SIZE (413).
        limits: { fileSize: largestAttachmentLimit(config.chatMessages.maxBytes), files: 1, fields: 8, fieldSize: 64 * 1024, parts: 10 },
      }),
    }),
  ],
  controllers: [ChatMessagesController],
  providers: [ChatMessagesService, MessageOptimizerService, MessageDelivery, ChatDeliverySweeper, MessageUploadLimitInterceptor],
  exports: [ChatMessagesService],
})
export class ChatMessagesModule {}
