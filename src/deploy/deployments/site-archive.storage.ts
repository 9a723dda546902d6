import { PayloadTooLargeException } from '@nestjs/common';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { performance } from 'node:perf_hooks';
import { finished, type Readable } from 'node:stream';
import { ArchiveRejectedError, discardUnpackedSite, unpackSiteStream, type ArchiveLimits, type UnpackedSite } from './site-publisher';
import { archiveTooLargeDetail } from './site-archive-upload.rules';

/**
 * The archive part of a `POST /api/deploy` as {@link SiteArchiveStorage} leaves it in `request.file`: already unpacked
 * into a staging directory while it arrived (issue 14 item 2), or refused, with the refusal kept for the handler so
 * that the answer's status and order stay those of the staged-on-disk upload (403, then 413, then 400).
 */
export interface StreamedArchive {
  /** Bytes of the archive part received. */
  size: number;
  /** `performance.now()` when the part began to arrive (ms): the start of "unpacking and publishing". */
  startedAt: number;
  /** The unpacked site, not yet named or published; absent when refused or not unpacked. */
  site?: UnpackedSite;
  /** Why the archive can't be published (answered 400 by the handler); nothing of it is left on disk. */
  rejection?: ArchiveRejectedError;
}

/** What one deploy request's storage engine needs. */
export interface SiteArchiveStorageOptions {
  sitesRoot: string;
  limits: ArchiveLimits;
  /** DEPLOY_MAX_ARCHIVE_BYTES: the part is cut the moment it passes this, bytes. */
  maxArchiveBytes: number;
  /** The caller's namespace: when `contactId` arrived first and differs, the archive is only counted (403 follows). */
  namespace?: string;
  /**
   * Called once when the part passed `maxArchiveBytes` and its unpacking has been undone (staging removed), with the
   * 413 to answer at once: the rest of the body is not waited for.
   */
  onCut(error: PayloadTooLargeException): void;
}

/**
 * A multer storage engine for one deploy request (issue 14 item 2): it pipes the file part straight into the vetted
 * tar parser ({@link unpackSiteStream}), so the archive is never staged on disk; the unpacked files land in
 * `<sitesRoot>/.staging/<random>` as they arrive. Create one per request.
 *
 * - Bytes of the part are counted as they arrive; past `maxArchiveBytes` the unpacking is aborted, its staging
 *   removed, and `onCut` answers 413 without reading further; multer then gets the same error.
 * - A hostile or corrupt archive stops the unpacking at the first violation (staging removed); the rest of the part
 *   is drained and still counted, and the refusal travels in `request.file.rejection`.
 * - A client that goes away mid-upload fails the unpacking (staging removed) and multer's callback gets the error.
 * - {@link settled} resolves once nothing this engine started is still writing; {@link discard} removes what it
 *   unpacked and is safe after the site was published (the staging directory is gone by then).
 */
export class SiteArchiveStorage implements StorageEngine {
  private unpacked?: UnpackedSite;
  private work: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SiteArchiveStorageOptions) {}

  _handleFile(request: Request, file: Express.Multer.File, callback: (error?: Error | null, info?: Partial<Express.Multer.File>) => void): void {
    const task = this.receive(request, file.stream);
    this.work = Promise.allSettled([this.work, task]);
    task.then(
      (archive) => callback(null, archive as unknown as Partial<Express.Multer.File>),
      async (error: Error) => {
        // After a cut, multer would read (and discard) the rest of the body as soon as it hears of it: tell it only
        // once the 413 is out and the connection closing, so the upload stalls at the cut meanwhile.
        if (error instanceof PayloadTooLargeException) await answered(request);
        callback(error);
      },
    );
  }

  _removeFile(_request: Request, _file: Express.Multer.File, callback: (error: Error | null) => void): void {
    this.discard().then(() => callback(null), callback);
  }

  /** Resolves once every unpack this engine started has finished or been undone. Never rejects. */
  async settled(): Promise<void> {
    await this.work;
  }

  /** Removes the unpacked staging directory, if any is left (not after it was published: it no longer exists). */
  async discard(): Promise<void> {
    await this.settled();
    await this.removeUnpacked();
  }

  private async removeUnpacked(): Promise<void> {
    const unpacked = this.unpacked;
    this.unpacked = undefined;
    if (unpacked) await discardUnpackedSite(unpacked);
  }

  private async receive(request: Request, stream: Readable): Promise<StreamedArchive> {
    const archive: StreamedArchive = { size: 0, startedAt: performance.now() };
    const cut = new AbortController();
    const tooLarge = new PayloadTooLargeException(archiveTooLargeDetail(this.options.maxArchiveBytes));
    // Paused until the parser is piped in (the staging folder is made first): no chunk may flow past it.
    stream.pause();
    const counted = new Promise<void>((resolveCount, rejectCount) => {
      stream.on('data', (chunk: Buffer) => {
        archive.size += chunk.length;
        if (archive.size > this.options.maxArchiveBytes && !cut.signal.aborted) {
          cut.abort(tooLarge);
          stream.pause();
          rejectCount(tooLarge);
        }
      });
      stream.once('end', () => resolveCount());
      stream.once('error', rejectCount);
      stream.once('close', () => {
        if (!stream.readableEnded) rejectCount(new Error('the upload was interrupted'));
      });
    });
    counted.catch(() => undefined);

    const contactId = (request.body as Record<string, unknown> | undefined)?.contactId;
    const foreign = typeof contactId === 'string' && this.options.namespace !== undefined && contactId !== this.options.namespace;
    if (!foreign) {
      try {
        this.unpacked = await unpackSiteStream({ source: stream, sitesRoot: this.options.sitesRoot, limits: this.options.limits, signal: cut.signal });
        archive.site = this.unpacked;
      } catch (error) {
        if (!(error instanceof ArchiveRejectedError) || cut.signal.aborted) {
          // Cut for its size or interrupted: the staging is gone; answer now, read no more.
          if (cut.signal.aborted) this.options.onCut(tooLarge);
          throw cut.signal.aborted ? tooLarge : error;
        }
        archive.rejection = error;
      }
    }
    // Drain what is left of the part (a refused archive's rest, bytes after the gzip member) while counting it.
    stream.resume();
    try {
      await counted;
    } catch (error) {
      await this.removeUnpacked();
      if (error === tooLarge) this.options.onCut(tooLarge);
      throw error;
    }
    return archive;
  }
}

/** Resolves once the request's response has been sent, or its connection closed. */
function answered(request: Request): Promise<void> {
  return new Promise((resolveAnswered) => {
    const response = request.res;
    if (!response || response.writableFinished || response.destroyed) return resolveAnswered();
    finished(response, () => resolveAnswered());
  });
}
