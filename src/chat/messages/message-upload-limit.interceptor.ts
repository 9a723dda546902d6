import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, PayloadTooLargeException } from '@nestjs/common';
import { Observable, catchError } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { largestAttachmentLimit } from './message-send.rules';

/**
 * Turns multer's terse "File too large" (LIMIT_FILE_SIZE, a 413 at the largest per-type limit, before the message
 * type is known) into a reason naming the limits. Place it between UploadedFileCleanupInterceptor and the
 * FileInterceptor; multer has already removed the partial temporary file, so nothing is stored.
 */
@Injectable()
export class MessageUploadLimitInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        const cause = (error as { cause?: { code?: unknown } }).cause;
        if (error instanceof PayloadTooLargeException && cause?.code === 'LIMIT_FILE_SIZE') {
          const max = this.config.chatMessages.maxBytes;
          throw new PayloadTooLargeException(
            `The attachment is over ${largestAttachmentLimit(max)} bytes, more than any message type accepts (image ${max.image}, video ${max.video}, file ${max.file}, emotion ${max.emotion} bytes).`,
          );
        }
        throw error;
      }),
    );
  }
}
