import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, Optional, PayloadTooLargeException } from '@nestjs/common';
import type { MulterModuleOptions } from '@nestjs/platform-express';
import { applyDefaultLimits, closeArrayGaps, mergeMulterOptions, transformException } from '@nestjs/platform-express/multer/multer/multer.utils.js';
import type { Request, Response } from 'express';
import multer from 'multer';
import { catchError, concatMap, from, Observable, switchMap } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { DeployAgentPrincipal } from '../auth/deploy-principal';
import { DeployMetrics } from '../deploy-metrics';
import { announcedBodyTooLarge, archiveTooLargeDetail, type DeployBodyLimits } from './site-archive-upload.rules';
import { SiteArchiveStorage } from './site-archive.storage';

/** The multipart field that carries the archive (deployment-gateway.md: `POST /api/deploy`). */
export const ARCHIVE_FIELD = 'archive';
/** The token MulterModule provides its options under (`@nestjs/platform-express`'s MULTER_MODULE_OPTIONS). */
const MULTER_MODULE_OPTIONS = 'MULTER_MODULE_OPTIONS';
/** multer's own default of `limits.fieldSize`, bytes, when the module sets none. */
const DEFAULT_FIELD_SIZE_BYTES = 1024 * 1024;

/** A deploy request as the interceptor leaves it for the handler and the audit filter. */
type DeployRequest = Request & { principal?: DeployAgentPrincipal; auditTarget?: string };

/**
 * Reads `POST /api/deploy`'s multipart body as a stream and unpacks its archive part while it arrives (issue 14
 * item 2), in place of `FileInterceptor('archive')` + multer's disk storage: same field names, same multer limits
 * (the DeployModule's MulterModule options), same errors (multer's, mapped as FileInterceptor maps them).
 *
 * Runs after the guards, so the token is checked before any byte of the body is read. Then:
 * - a `Content-Length` over what an acceptable form can weigh ({@link announcedBodyTooLarge}) is refused 413 unread;
 * - an archive part passing DEPLOY_MAX_ARCHIVE_BYTES is cut there and answered 413 at once (the rest is not awaited);
 * - `request.file` is a {@link StreamedArchive}; whatever was unpacked and not published is removed before the answer
 *   leaves, on every outcome (refusal, failure, client gone).
 * The response carries `Connection: close` while the body may be unread, so a refusal ends the upload.
 * 413s raised here count as refused deploys (`too_large`) like the handler's, and name the target for the audit.
 */
@Injectable()
export class SiteArchiveInterceptor implements NestInterceptor {
  private readonly bodyLimits: DeployBodyLimits;
  private readonly moduleOptions: MulterModuleOptions;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: DeployMetrics,
    @Optional() @Inject(MULTER_MODULE_OPTIONS) moduleOptions: MulterModuleOptions | null,
  ) {
    this.moduleOptions = moduleOptions ?? {};
    const limits = typeof this.moduleOptions.limits === 'object' ? this.moduleOptions.limits : {};
    this.bodyLimits = {
      maxArchiveBytes: config.deploy.maxArchiveBytes,
      fields: limits.fields ?? 1000,
      fieldSizeBytes: limits.fieldSize ?? DEFAULT_FIELD_SIZE_BYTES,
    };
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<DeployRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    let storage: SiteArchiveStorage | undefined;
    const cleanUp = async (): Promise<void> => {
      await storage?.discard();
    };
    return from(this.receive(request, response, (created) => (storage = created))).pipe(
      switchMap(() => next.handle()),
      concatMap(async (value: unknown) => {
        await cleanUp();
        return value;
      }),
      catchError(async (error: unknown) => {
        await cleanUp();
        throw error;
      }),
    );
  }

  /** Reads the form (fields into `request.body`, the archive unpacked into `request.file`); throws what it answers. */
  private async receive(request: DeployRequest, response: Response, created: (storage: SiteArchiveStorage) => void): Promise<void> {
    const isMultipart = /^multipart\//i.test(request.headers['content-type'] ?? '');
    // Until the whole body is read, an answer must end the connection rather than wait for the rest of the upload.
    if (isMultipart) response.setHeader('Connection', 'close');
    if (isMultipart && announcedBodyTooLarge(request.headers['content-length'], this.bodyLimits)) {
      throw this.countedTooLarge(request, new PayloadTooLargeException(archiveTooLargeDetail(this.config.deploy.maxArchiveBytes)));
    }
    let answerCut!: (error: Error) => void;
    const cut = new Promise<never>((_resolve, reject) => (answerCut = reject));
    cut.catch(() => undefined);
    const storage = new SiteArchiveStorage({
      sitesRoot: this.config.deploy.sitesDir,
      limits: { maxEntries: this.config.deploy.maxEntries, maxUnpackedBytes: this.config.deploy.maxUnpackedBytes },
      maxArchiveBytes: this.config.deploy.maxArchiveBytes,
      namespace: request.principal?.namespace,
      onCut: (error) => answerCut(error),
    });
    created(storage);
    const middleware = multer(applyDefaultLimits(mergeMulterOptions(this.moduleOptions, { storage })) as multer.Options).single(ARCHIVE_FIELD);
    const read = new Promise<void>((resolveRead, rejectRead) =>
      middleware(request, response, (error?: unknown) => (error ? rejectRead(transformException(error as Error)) : resolveRead())),
    );
    try {
      // A cut answers at once; multer's own callback comes when the connection is gone, and then changes nothing.
      await Promise.race([read, cut]);
    } catch (error) {
      read.catch(() => undefined);
      await storage.settled();
      throw error instanceof PayloadTooLargeException ? this.countedTooLarge(request, error) : error;
    }
    const body: unknown = request.body;
    if (body && typeof body === 'object' && !Object.getPrototypeOf(body)) closeArrayGaps(body);
    // The body was read whole: the connection may be kept alive again.
    if (isMultipart) response.removeHeader('Connection');
  }

  /** The 413 of an archive over DEPLOY_MAX_ARCHIVE_BYTES, counted and audited with its target as the handler's was. */
  private countedTooLarge(request: DeployRequest, error: PayloadTooLargeException): PayloadTooLargeException {
    const body = request.body as Record<string, unknown> | undefined;
    if (typeof body?.contactId === 'string' && typeof body.projectName === 'string') request.auditTarget = `${body.contactId}/${body.projectName}`;
    void this.metrics.deploy(() => Promise.reject(error)).catch(() => undefined);
    return error;
  }
}
