import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, PayloadTooLargeException } from '@nestjs/common';
import { Observable, catchError } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { fileTooLarge } from './files.service';

/**
 * Turns multer's terse "File too large" (its LIMIT_FILE_SIZE, a 413) into a reason naming the limit
 * (EVAL_FILE_MAX_BYTES). Place it between UploadedFileCleanupInterceptor and the FileInterceptor. multer has
 * already removed the partial temporary file by then, so nothing is stored.
 */
@Injectable()
export class FileSizeLimitInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        const cause = (error as { cause?: { code?: unknown } }).cause;
        if (error instanceof PayloadTooLargeException && cause?.code === 'LIMIT_FILE_SIZE') throw fileTooLarge(this.config.evaluation.fileMaxBytes);
        throw error;
      }),
    );
  }
}
