import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { rm } from 'node:fs/promises';
import { Observable, catchError, concatMap } from 'rxjs';

/** Removes every multer temporary file of `request`. */
async function removeUploadedFiles(request: Request): Promise<void> {
  const files = [request.file, ...(Array.isArray(request.files) ? request.files : Object.values(request.files ?? {}).flat())];
  await Promise.all(files.map((file) => (file?.path ? rm(file.path, { force: true }) : undefined)));
}

/**
 * Deletes multer's temporary files before the response goes out, whether the handler succeeded or failed, so
 * refused uploads leave nothing on disk. Place it before the FileInterceptor in `@UseInterceptors`.
 */
@Injectable()
export class UploadedFileCleanupInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      concatMap(async (value) => {
        await removeUploadedFiles(request);
        return value;
      }),
      catchError(async (error: unknown) => {
        await removeUploadedFiles(request);
        throw error;
      }),
    );
  }
}
