import { Inject, Injectable, PayloadTooLargeException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { randomHexId } from '../../common/crypto/secrets';
import { prepareAllowedFileTarget } from '../allowed-paths';
import { AuditCaller, AuditService } from '../audit/audit.service';
import type { UploadResultDto } from './uploads.dto';

/** Writes uploaded files into the allowed directories (deployment-gateway.md, Endpoints: POST /api/upload). */
@Injectable()
export class UploadsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {}

  /**
   * Copies the temporary upload to `requestedPath` atomically (a temp file beside the target, then one rename),
   * hashing it on the way.
   * @throws ForbiddenException (403) the path resolves outside DEPLOY_ALLOWED_DIRS or is not a regular file
   * @throws PayloadTooLargeException (413) over DEPLOY_MAX_UPLOAD_BYTES
   */
  async write(upload: { path: string; size: number }, requestedPath: string, caller: AuditCaller): Promise<UploadResultDto> {
    if (upload.size > this.config.deploy.maxUploadBytes) {
      throw new PayloadTooLargeException(`The file is over ${this.config.deploy.maxUploadBytes} bytes.`);
    }
    const target = await prepareAllowedFileTarget(requestedPath, this.config.deploy.allowedDirs);
    const temporary = join(dirname(target), `.${basename(target)}.${randomHexId(8)}.upload`);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      await pipeline(
        createReadStream(upload.path),
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            bytes += chunk.length;
            done(null, chunk);
          },
        }),
        createWriteStream(temporary, { flags: 'wx', mode: 0o644 }),
      );
      await chmod(temporary, 0o644);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    const result = { path: target, bytes, sha256: hash.digest('hex') };
    await this.audit.record(caller, { action: 'upload', outcome: 'allowed', status: 201, target, detail: `${bytes} bytes sha256=${result.sha256}` });
    return result;
  }
}
