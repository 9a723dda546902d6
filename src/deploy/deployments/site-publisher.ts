import { randomBytes } from 'node:crypto';
import {
  close,
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  mkdirSync,
  open,
  openSync,
  write,
  writeSync,
  type WriteStream,
} from 'node:fs';
import { performance } from 'node:perf_hooks';
import { chmod, lstat, mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { SiteFileBatcher, startSiteFileWriter } from './site-file-writer';

/**
 * Limits applied while unpacking one deployment archive (spec: Limits, "archive size" is left to the server).
 * `maxEntries` counts every tar entry that is not pax/GNU metadata (files, directories, and anything rejected);
 * `maxUnpackedBytes` is in bytes and caps the sum of the entries' sizes once unpacked.
 */
export interface ArchiveLimits {
  maxEntries: number;
  maxUnpackedBytes: number;
}

/**
 * The archive itself is unacceptable: corrupt, not gzip, hostile (absolute or `..` paths, links, devices),
 * empty, or over an {@link ArchiveLimits} limit. The caller maps it to HTTP 400; anything else thrown by this
 * module is a server-side failure (disk full, permissions, a clashing target directory).
 */
export class ArchiveRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveRejectedError';
  }
}

/** A site now being served: absolute `path` of its directory, number of regular files, their total size in bytes. */
export interface PublishedSite {
  path: string;
  fileCount: number;
  bytes: number;
}

/** Sub-directory of sitesRoot where archives are unpacked before the final rename (never a valid namespace). */
export const STAGING_DIR = '.staging';
/** Prefix of a withdrawn site's name in the staging directory: `removed~<namespace>~<directoryName>~<random>`. */
export const TRASH_PREFIX = 'removed~';
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
/** Tar framing around each entry (header, padding, a pax/long-name header) allowed on top of maxUnpackedBytes. */
const FRAMING_BYTES_PER_ENTRY = 8 * 1024;
/** Fixed framing allowance: end-of-archive blocks and record padding (GNU tar pads to 10 KiB records). */
const FRAMING_SLACK_BYTES = 1024 * 1024;
/** Read and inflate in large chunks: fewer parser calls and fewer, larger writes. */
const READ_CHUNK_BYTES = 1024 * 1024;
const INFLATE_CHUNK_BYTES = 1024 * 1024;
/**
 * The source's chunks (64 KiB socket reads for an upload) are joined up to this size before inflating: each write to
 * gunzip is a round trip to the libuv pool and back, and on a busy machine every such thread hand-off costs a wait
 * for a core; 800 of them for 50 MiB cost more than inflating (issue 14 acceptance 2).
 */
const INFLATE_INPUT_BYTES = 1024 * 1024;
/** Inflated chunks waiting to be parsed; inflating pauses at this many (bounds memory, with the zip-bomb guard). */
const MAX_INFLATED_QUEUED = 2;
/** Files up to this size are collected in memory and written with one call; larger ones are streamed. */
const MAX_BUFFERED_FILE_BYTES = 1024 * 1024;
/**
 * Small files are written on a writer thread (site-file-writer.ts) while the event loop parses: unpacking then costs
 * about max(parse, write) rather than their sum (issue 14 acceptance 2). Off: written inline, as below.
 */
const SMALL_FILES_ON_WRITER_THREAD = true;
/** Longest synchronous stretch of small-file writes per inflated chunk, in ms (bounds the event-loop stall). */
const SYNC_SLICE_MS = 4;
/** Write concurrency and memory held by pending writes; inflating pauses above either. */
const MAX_PARALLEL_WRITES = 32;
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** Linux NAME_MAX and PATH_MAX, so over-long names are refused as bad input rather than failing as an fs error. */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4096;
/** fs error codes that an archive's own names can provoke; any other fs error is a server fault. */
const ARCHIVE_CAUSED_FS_CODES = new Set(['ENAMETOOLONG', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ENOTEMPTY', 'ELOOP', 'EILSEQ']);

/**
 * Unpacks a gzip-compressed tar of a static site and publishes it (spec: Endpoints, `POST /api/deploy`;
 * Resources, Deployment: published under the namespace `<contactId>`).
 *
 * The archive (`archivePath`, already size-limited by the upload layer) is read once, inflated and unpacked
 * into `<sitesRoot>/.staging/<random>`, then that directory is renamed to `<sitesRoot>/<namespace>/<directoryName>`
 * in a single `rename`, so the site appears complete or not at all. `<sitesRoot>/<namespace>` is created if
 * needed. Files get mode 0644 and directories 0755; modes, owners and mtimes stored in the archive are ignored.
 * Entries may carry a leading `./`; a single top-level folder is kept as is.
 *
 * @returns the published directory (absolute path), its regular-file count and total file size in bytes.
 * @throws ArchiveRejectedError for an absolute or `..` path (backslashes count as separators), a link, device,
 *   FIFO or any entry type other than file/directory, a name clash, more than `limits.maxEntries` entries, more
 *   than `limits.maxUnpackedBytes` bytes (checked on declared sizes, on bytes written, and on all inflated
 *   bytes including tar framing, each as soon as it passes, so a zip bomb is cut short), a corrupt,
 *   truncated or non-gzip archive, or an archive without files. Extraction stops at the first violation and
 *   the staging directory is removed; no target directory is created.
 * @throws Error when `namespace`/`directoryName` would resolve outside `sitesRoot`, when the target already
 *   exists (code `EEXIST`), or on a filesystem failure (disk full, permissions).
 */
export async function publishSiteArchive(input: {
  archivePath: string;
  sitesRoot: string;
  namespace: string;
  directoryName: string;
  limits: ArchiveLimits;
}): Promise<PublishedSite> {
  const staged = await stageSiteArchive(input);
  try {
    return await promoteStagedSite(staged);
  } catch (error) {
    await discardStagedSite(staged);
    throw error;
  }
}

/** An archive unpacked into `<sitesRoot>/.staging/<random>`, not yet published. */
export interface StagedSite {
  /** The staging directory (absolute). */
  staging: string;
  /** Where {@link promoteStagedSite} puts it: `<sitesRoot>/<namespace>/<directoryName>` (absolute). */
  target: string;
  namespaceDir: string;
  fileCount: number;
  bytes: number;
}

/**
 * The first half of {@link publishSiteArchive}: checks the names and limits, then unpacks the archive into a fresh
 * staging directory. Nothing is served yet. The caller either promotes it or discards it.
 * @throws as {@link publishSiteArchive} (ArchiveRejectedError, EEXIST, filesystem errors); the staging directory
 *   is removed on any failure
 */
export async function stageSiteArchive(input: { archivePath: string; sitesRoot: string; namespace: string; directoryName: string; limits: ArchiveLimits }): Promise<StagedSite> {
  const { target } = resolveSitePaths(input);
  await assertAbsent(target);
  const source = createReadStream(input.archivePath, { highWaterMark: READ_CHUNK_BYTES });
  try {
    const unpacked = await unpackSiteStream({ source, sitesRoot: input.sitesRoot, limits: input.limits });
    try {
      return await stagedAs(unpacked, input.namespace, input.directoryName);
    } catch (error) {
      await discardUnpackedSite(unpacked);
      throw error;
    }
  } finally {
    source.destroy();
  }
}

/** An archive unpacked into `<sitesRoot>/.staging/<random>` while it arrived, not yet given its site name. */
export interface UnpackedSite {
  /** The staging directory (absolute). */
  staging: string;
  /** `sitesRoot`, resolved. */
  root: string;
  fileCount: number;
  bytes: number;
}

/**
 * Unpacks a gzip-compressed tar read from `source` (a file, or the archive part of a request as it arrives: issue 14
 * item 2) into a fresh `<sitesRoot>/.staging/<random>`, with every check and limit of {@link publishSiteArchive}.
 * The caller names it later ({@link stagedAs}), once the request's fields are known.
 *
 * `source` is only read: on a violation it is unpiped and left paused (the caller destroys or drains it); an error
 * it emits, or its closing before its end, fails the unpack with that error (a client that went away); so does
 * `signal` when aborted (with its reason: the upload was cut for its size).
 * @throws ArchiveRejectedError as {@link publishSiteArchive}; the source's error; a filesystem error. The staging
 *   directory is removed before the promise settles on any failure.
 */
export async function unpackSiteStream(input: { source: Readable; sitesRoot: string; limits: ArchiveLimits; signal?: AbortSignal }): Promise<UnpackedSite> {
  assertLimits(input.limits);
  // An error the source emits while the staging folder is made (the client went away) must not go unhandled: the
  // unpack reads it from `source.errored` once it listens (extractArchive).
  const errorBeforeListening = (): void => undefined;
  input.source.on('error', errorBeforeListening);
  try {
    // The writer thread boots while the staging folder is made and the first files arrive.
    if (SMALL_FILES_ON_WRITER_THREAD) startSiteFileWriter();
    const root = resolve(input.sitesRoot);
    const stagingRoot = await ensureStagingRoot(root);
    const staging = join(stagingRoot, randomBytes(12).toString('hex'));
    await mkdir(staging, { mode: DIR_MODE });
    try {
      const result = await extractArchive(input.source, staging, input.limits, input.signal);
      // Everything is created with the published modes, but the process umask still applies: only a umask
      // stricter than 022 needs the extra chmod pass (one stat tells).
      if (((await stat(staging)).mode & 0o777) !== DIR_MODE) {
        await applyModes(staging, result.kinds);
      }
      return { staging, root, fileCount: result.fileCount, bytes: result.bytes };
    } catch (error) {
      await rm(staging, { recursive: true, force: true, maxRetries: 3 });
      throw error;
    }
  } finally {
    input.source.off('error', errorBeforeListening);
  }
}

/**
 * Names an unpacked site: where {@link promoteStagedSite} will put it, `<sitesRoot>/<namespace>/<directoryName>`.
 * @throws Error when the names would resolve outside `sitesRoot`, or with code `EEXIST` when the target exists
 */
export async function stagedAs(unpacked: UnpackedSite, namespace: string, directoryName: string): Promise<StagedSite> {
  const { namespaceDir, target } = resolveSitePaths({ sitesRoot: unpacked.root, namespace, directoryName });
  await assertAbsent(target);
  return { staging: unpacked.staging, target, namespaceDir, fileCount: unpacked.fileCount, bytes: unpacked.bytes };
}

/** Removes an unpacked site's staging directory. Never throws (a leftover is the reconciler's). */
export async function discardUnpackedSite(unpacked: { staging: string }): Promise<void> {
  await rm(unpacked.staging, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

/**
 * The second half of {@link publishSiteArchive}: publishes a staged site in one `rename`, creating
 * `<sitesRoot>/<namespace>` when needed. DeploymentsService calls it inside the transaction that writes the
 * deployment row, holding the site's advisory lock, so the site reconciler never sees a promoted site whose row is
 * about to commit (issue 19 item 5).
 * @returns the published site
 * @throws Error with code `EEXIST` when the target exists; a filesystem error
 */
export async function promoteStagedSite(staged: StagedSite): Promise<PublishedSite> {
  await mkdir(staged.namespaceDir, { recursive: true, mode: DIR_MODE });
  // rename(2) would silently replace an empty directory, so check again right before it.
  await assertAbsent(staged.target);
  await rename(staged.staging, staged.target);
  return { path: staged.target, fileCount: staged.fileCount, bytes: staged.bytes };
}

/**
 * Undoes {@link stageSiteArchive} and, when it happened, {@link promoteStagedSite}: removes the staging directory, or
 * the published directory when the staging one was already moved there. Never throws (a leftover is the reconciler's).
 */
export async function discardStagedSite(staged: StagedSite): Promise<void> {
  const promoted = await lstat(staged.staging).then(
    () => false,
    () => true,
  );
  await rm(promoted ? staged.target : staged.staging, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

/**
 * Deletes a published site (spec: Endpoints, `DELETE /api/deploy/{id}`: "deployment and its files are removed").
 * The directory is first renamed into `<sitesRoot>/.staging` so it disappears from the web at once, then removed.
 * A directory that is already gone is not an error.
 *
 * @throws Error when `namespace`/`directoryName` would resolve outside `<sitesRoot>/<namespace>/` (for example
 *   `..`, a path separator, an empty name or `.staging`), or on a filesystem failure.
 */
export async function removePublishedSite(input: {
  sitesRoot: string;
  namespace: string;
  directoryName: string;
}): Promise<void> {
  const withdrawn = await withdrawPublishedSite(input);
  if (withdrawn) await rm(withdrawn, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Takes a published site off the web in one rename, into `<sitesRoot>/.staging`, without deleting it yet, so a
 * caller can make the removal part of a database transaction and delete the files after it commits.
 * @returns where the site now lies (to pass to `rm`), or undefined when it was already gone
 * @throws Error as {@link removePublishedSite}
 */
export async function withdrawPublishedSite(input: { sitesRoot: string; namespace: string; directoryName: string }): Promise<string | undefined> {
  const { root, target } = resolveSitePaths(input);
  const stagingRoot = await ensureStagingRoot(root);
  // The name says which site it was, so the reconciler can put it back if the delete never committed.
  const trash = join(stagingRoot, `${TRASH_PREFIX}${input.namespace}~${input.directoryName}~${randomBytes(8).toString('hex')}`);
  try {
    await rename(target, trash);
    return trash;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Reads a withdrawn site's staging name (see {@link withdrawPublishedSite}).
 * @returns its namespace and directory name, or undefined when `name` is not such a name
 */
export function parseTrashName(name: string): { namespace: string; directoryName: string } | undefined {
  const match = /^removed~([A-Za-z0-9][A-Za-z0-9_-]{0,63})~([a-z0-9-]{1,96})~[0-9a-f]+$/.exec(name);
  return match ? { namespace: match[1], directoryName: match[2] } : undefined;
}

/**
 * Builds a deployment directory name `<random_id>-<project_name>-<timestamp>` (spec: Resources, Deployment).
 * `randomId` is 8 lowercase base36 characters (default: 4 random bytes from `crypto`, as hex); the project name
 * is slugged to `[a-z0-9-]` (accents dropped, lower-cased, other runs become `-`, trimmed, at most 48 characters,
 * `site` when nothing is left); the timestamp is `now` in UTC as `YYYYMMDDHHmmss`.
 * Example: `buildSiteDirectoryName('Über Café!', new Date('2025-03-04T05:06:07Z'), '0a1b2c3d')`
 * returns `0a1b2c3d-uber-cafe-20250304050607`.
 *
 * @throws RangeError when `now` is an invalid date or `randomId` is not 8 lowercase base36 characters.
 */
export function buildSiteDirectoryName(projectName: string, now: Date, randomId?: string): string {
  const id = randomId ?? randomBytes(4).toString('hex');
  if (!/^[a-z0-9]{8}$/.test(id)) {
    throw new RangeError('randomId must be 8 lowercase base36 characters');
  }
  const slug =
    projectName
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '') || 'site';
  // toISOString is always UTC and throws RangeError on an invalid date.
  const timestamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  return `${id}-${slug}-${timestamp}`;
}

type EntryKind = 'file' | 'dir';

interface ExtractResult {
  fileCount: number;
  bytes: number;
  /** Every path created, relative with `/` separators, including implied parent directories. */
  kinds: Map<string, EntryKind>;
}

/** Resolves `<root>/<namespace>/<directoryName>` and checks each name is one plain path segment. */
function resolveSitePaths(input: { sitesRoot: string; namespace: string; directoryName: string }) {
  const root = resolve(input.sitesRoot);
  const namespaceDir = resolve(root, input.namespace);
  const target = resolve(namespaceDir, input.directoryName);
  // Callers validate both names; this is defence in depth against a validator gap.
  if (
    dirname(namespaceDir) !== root ||
    namespaceDir === root ||
    dirname(target) !== namespaceDir ||
    target === namespaceDir ||
    basename(namespaceDir) !== input.namespace ||
    basename(target) !== input.directoryName ||
    input.namespace === STAGING_DIR
  ) {
    throw new Error(`refusing a site path outside ${root}: ${JSON.stringify([input.namespace, input.directoryName])}`);
  }
  return { root, namespaceDir, target };
}

function assertLimits(limits: ArchiveLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`limits.${name} must be a positive integer`);
  }
}

/**
 * Creates `<root>/.staging`. It sits under sitesRoot so the final rename stays on one filesystem, and is 0700
 * so half-unpacked sites are never readable by the web server.
 */
async function ensureStagingRoot(root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: DIR_MODE });
  const stagingRoot = join(root, STAGING_DIR);
  try {
    await mkdir(stagingRoot, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return stagingRoot;
}

async function assertAbsent(target: string): Promise<void> {
  try {
    await lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  throw Object.assign(new Error(`site directory already exists: ${target}`), { code: 'EEXIST' });
}

/**
 * One pass: file stream -> gunzip -> node-tar Parser -> our own writes. Every entry is vetted in the parser's
 * `filter` before anything is written for it. node-tar's Unpack is not used for the writes: it handles one
 * entry at a time with ~8 fs round trips each, about 10x slower than `tar -xzf` on 5,000 small files. Writing
 * ourselves is safe here because the staging directory is fresh and private, names are pre-checked, no link
 * is ever created, and files are opened with O_EXCL|O_NOFOLLOW. Small files are buffered and written in one
 * call (synchronously within a short time slice, else concurrently); large ones are streamed.
 * On the first violation the input is torn down and open files are closed; the promise settles only once
 * every write has finished, so the caller can remove the directory safely.
 */
async function extractArchive(source: Readable, cwd: string, limits: ArchiveLimits, signal?: AbortSignal): Promise<ExtractResult> {
  const kinds = new Map<string, EntryKind>();
  const dirsReady = new Map<string, Promise<void>>([['', Promise.resolve()]]);
  const dirsCreated = new Set<string>(['']);
  let syncDeadline = 0;
  const tasks = new Set<Promise<void>>();
  const openStreams = new Set<WriteStream>();
  let entries = 0;
  let fileCount = 0;
  let declaredBytes = 0;
  let writtenBytes = 0;
  let inflatedBytes = 0;
  let bufferedBytes = 0;
  let parserWaiting = false;
  let sawEndOfArchive = false;
  /** Inflated chunks not yet parsed (see parseInflated). */
  const inflated: Buffer[] = [];
  let parseScheduled = false;
  let inflateEnded = false;
  let parserEnded = false;
  let failure: Error | undefined;
  let signalDone!: () => void;
  const done = new Promise<void>((resolveDone) => (signalDone = resolveDone));

  const gunzip = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
  let detachSource = (): void => void source.pause();

  const fail = (error: Error): void => {
    if (failure) return;
    failure = error;
    // The source is the caller's (a request part may still be drained and counted): stop reading it, no more.
    detachSource();
    gunzip.destroy();
    for (const stream of openStreams) stream.destroy();
    signalDone();
  };

  // One backpressure point: inflate only while the parser and the write queue can take more.
  const updateFlow = (): void => {
    if (failure) return;
    if (parserWaiting || inflated.length >= MAX_INFLATED_QUEUED || tasks.size >= MAX_PARALLEL_WRITES || bufferedBytes >= MAX_BUFFERED_BYTES) gunzip.pause();
    else gunzip.resume();
  };

  const track = (task: Promise<void>, heldBytes: number): void => {
    const tracked: Promise<void> = task
      .catch((error: unknown) => fail(classifyFsError(error)))
      .finally(() => {
        tasks.delete(tracked);
        bufferedBytes -= heldBytes;
        updateFlow();
      });
    tasks.add(tracked);
    bufferedBytes += heldBytes;
  };

  /**
   * Small writes run synchronously while the current inflated chunk's time slice lasts (SYNC_SLICE_MS), then
   * asynchronously: thousands of tiny async open/write/close calls cost more main-thread time than the
   * syscalls themselves and crowd gunzip out of the libuv pool, while the slice bounds the event-loop stall.
   */
  const mayWriteSync = (): boolean => performance.now() < syncDeadline;

  /** Small files go to the writer thread in batches (SiteFileBatcher); the event loop only parses. */
  const batcher = SMALL_FILES_ON_WRITER_THREAD ? new SiteFileBatcher(FILE_MODE) : undefined;
  const flushBatch = (): void => {
    const sent = batcher?.flush();
    if (sent) track(sent, 0);
  };

  /**
   * The absolute path of a vetted relative path (see {@link vet}: plain segments joined by `/`, none empty, `.` or
   * `..`) in the staging directory. Concatenated: path.join would only normalise what is already normal, and over
   * thousands of entries its allocations were a tenth of an unpack's garbage.
   */
  const inStaging = (relPath: string): string => `${cwd}/${relPath}`;
  /** Each entry's relative path as vetted in the parser's filter, for its 'entry' event (not vetted twice). */
  const vettedKeys = new WeakMap<ReadEntry, string>();

  /** Creates each directory once, parent first; the staging directory itself ('') already exists. */
  const ensureDir = (relPath: string): Promise<void> => {
    let ready = dirsReady.get(relPath);
    if (!ready) {
      const parent = relPath.includes('/') ? relPath.slice(0, relPath.lastIndexOf('/')) : '';
      // With the writer thread, directories are made here at once, parents first: a batch may name them next.
      if (batcher) void ensureDir(parent);
      if (dirsCreated.has(parent) && (batcher !== undefined || mayWriteSync())) {
        try {
          mkdirSync(inStaging(relPath), { mode: DIR_MODE });
          dirsCreated.add(relPath);
          ready = Promise.resolve();
        } catch (error) {
          ready = Promise.reject(error as Error);
        }
      } else {
        ready = ensureDir(parent)
          .then(() => mkdir(inStaging(relPath), { mode: DIR_MODE }))
          .then(() => void dirsCreated.add(relPath));
      }
      // A failure surfaces through the writes chained on it; this only keeps Node from calling it unhandled
      // while a file that waits on it is still being parsed.
      ready.catch(() => undefined);
      dirsReady.set(relPath, ready);
    }
    return ready;
  };

  /** Counts bytes actually leaving the archive for disk; stops the moment they pass the limit. */
  const countWritten = (chunk: Buffer): boolean => {
    writtenBytes += chunk.length;
    if (writtenBytes > limits.maxUnpackedBytes) {
      fail(new ArchiveRejectedError(`archive unpacks to more than ${limits.maxUnpackedBytes} bytes`));
      return false;
    }
    return true;
  };

  /** Returns the entry's relative path when it may be written, or why it is refused. */
  const vet = (entry: ReadEntry): { key: string } | string => {
    entries += 1;
    if (entries > limits.maxEntries) return `archive has more than ${limits.maxEntries} entries`;
    if (!Number.isSafeInteger(entry.size) || entry.size < 0) return `invalid size for ${entry.path}`;
    declaredBytes += entry.size;
    if (declaredBytes > limits.maxUnpackedBytes) return `archive unpacks to more than ${limits.maxUnpackedBytes} bytes`;
    const isFile = entry.type === 'File' || entry.type === 'OldFile'; // OldFile: pre-POSIX regular file
    if (!isFile && entry.type !== 'Directory') return `unsupported entry type ${entry.type}: ${entry.path}`;
    const segments = pathSegments(entry.path);
    if (typeof segments === 'string') return segments;
    const problem = recordPath(kinds, segments, isFile ? 'file' : 'dir');
    if (problem) return problem;
    if (isFile) fileCount += 1;
    return { key: segments.join('/') };
  };

  const writeFileEntry = (entry: ReadEntry, key: string): void => {
    const slash = key.lastIndexOf('/');
    const parent = slash < 0 ? '' : key.slice(0, slash);
    const parentReady = ensureDir(parent);
    const path = inStaging(key);
    if (entry.size <= MAX_BUFFERED_FILE_BYTES) {
      // Small file: collect it as it is parsed (so the parser moves on at once), then write it in one call.
      const chunks: Buffer[] = [];
      entry.on('end', () => {
        if (failure) return;
        if (batcher) {
          if (!dirsCreated.has(parent)) return track(parentReady, 0); // its folder failed: that failure fails the unpack
          const sent = batcher.add(path, chunks);
          if (sent) track(sent, 0);
          return;
        }
        const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        if (dirsCreated.has(parent) && mayWriteSync()) {
          try {
            writeNewFileSync(path, data);
          } catch (error) {
            fail(classifyFsError(error));
          }
          return;
        }
        track(
          parentReady.then(() => (failure ? undefined : writeNewFile(path, data))),
          entry.size,
        );
      });
      entry.on('data', (chunk: Buffer) => {
        if (countWritten(chunk)) chunks.push(chunk);
      });
      return;
    }
    // Large file: stream it; the entry stays paused (and so does the parser) until the file is open.
    track(
      parentReady.then(
        () =>
          new Promise<void>((resolveFile, rejectFile) => {
            if (failure) return resolveFile();
            // 'wx' is O_CREAT|O_EXCL: like NEW_FILE_FLAGS, it never follows or reuses an existing path.
            const out = createWriteStream(path, { flags: 'wx', mode: FILE_MODE, highWaterMark: READ_CHUNK_BYTES });
            openStreams.add(out);
            out.on('error', rejectFile);
            out.on('close', () => {
              openStreams.delete(out);
              resolveFile();
            });
            out.on('drain', () => entry.resume());
            entry.on('end', () => out.end());
            entry.on('data', (chunk: Buffer) => {
              if (countWritten(chunk) && !out.write(chunk)) entry.pause();
            });
          }),
      ),
      0,
    );
  };

  const parser = new Parser({
    filter: (_path, entry) => {
      if (failure) return false;
      const verdict = vet(entry as ReadEntry);
      if (typeof verdict === 'string') {
        fail(new ArchiveRejectedError(verdict));
        return false;
      }
      vettedKeys.set(entry as ReadEntry, verdict.key);
      return true;
    },
    // Every node-tar warning (bad checksum, truncated body, not a tar at all) fails the deployment.
    onwarn: (code, message) => fail(new ArchiveRejectedError(`invalid archive (${code}): ${message}`)),
    // Input is already inflated; node-tar must not sniff for a second compression layer.
    gzip: false,
    brotli: false,
    zstd: false,
  });
  parser.on('error', (error: Error) => fail(new ArchiveRejectedError(`invalid archive: ${error.message}`)));
  // node-tar skips entries of unknown types (and oversized metadata) before calling filter: refuse those too.
  parser.on('ignoredEntry', (entry: ReadEntry) =>
    fail(new ArchiveRejectedError(`unsupported entry type ${entry.type}: ${entry.path}`)),
  );
  parser.on('entry', (entry: ReadEntry) => {
    if (failure) return;
    const rel = vettedKeys.get(entry);
    if (rel === undefined) return fail(new Error(`unpack: entry ${entry.path} was not vetted`));
    if (entry.type === 'Directory') {
      track(ensureDir(rel), 0);
      entry.resume();
    } else {
      writeFileEntry(entry, rel);
    }
  });
  // Past the end-of-archive blocks node-tar only buffers input; keep inflating (to verify the gzip CRC and
  // count bytes) but stop feeding it.
  parser.on('eof', () => (sawEndOfArchive = true));
  parser.on('drain', () => {
    parserWaiting = false;
    scheduleParse();
  });
  parser.on('end', () => signalDone());

  // Inflated chunks are parsed on the next tick rather than inside gunzip's 'data': zlib then sends the next chunk to
  // the libuv pool before the parse starts, so inflating and parsing overlap as gzip and tar do in `tar -xzf`.
  const scheduleParse = (): void => {
    if (parseScheduled) return;
    parseScheduled = true;
    process.nextTick(parseInflated);
  };
  function parseInflated(): void {
    parseScheduled = false;
    while (!failure && !parserWaiting && inflated.length > 0) {
      const chunk = inflated.shift() as Buffer;
      if (inflatedBytes === 0 && chunk[0] === 0x1f) {
        return fail(new ArchiveRejectedError('archive is compressed twice or is not a tar archive'));
      }
      // Zip-bomb guard on everything inflated (bodies plus tar framing, including metadata and anything after
      // the end-of-archive blocks), checked per chunk against what the entries seen so far can justify. What waits
      // in `inflated` is bounded by MAX_INFLATED_QUEUED.
      inflatedBytes += chunk.length;
      if (inflatedBytes > limits.maxUnpackedBytes + entries * FRAMING_BYTES_PER_ENTRY + FRAMING_SLACK_BYTES) {
        return fail(new ArchiveRejectedError(`archive unpacks to more than ${limits.maxUnpackedBytes} bytes`));
      }
      if (sawEndOfArchive) continue;
      syncDeadline = performance.now() + SYNC_SLICE_MS;
      if (!parser.write(chunk)) parserWaiting = true;
      flushBatch();
    }
    if (failure) return;
    if (inflateEnded && inflated.length === 0 && !parserWaiting && !parserEnded) {
      parserEnded = true;
      parser.end();
    }
    updateFlow();
  }
  gunzip.on('data', (chunk: Buffer) => {
    if (failure) return;
    inflated.push(chunk);
    if (inflated.length >= MAX_INFLATED_QUEUED) gunzip.pause();
    scheduleParse();
  });
  gunzip.on('end', () => {
    inflateEnded = true;
    scheduleParse();
  });
  gunzip.on('error', (error: Error) => fail(new ArchiveRejectedError(`archive is not valid gzip: ${error.message}`)));
  const onSourceError = (error: Error) => fail(error);
  const onSourceClose = () => {
    if (!source.readableEnded) fail(new Error('the archive ended before its end (the upload was interrupted)'));
  };
  const onAbort = () => fail(signal?.reason instanceof Error ? signal.reason : new Error('unpacking was aborted'));
  source.on('error', onSourceError);
  source.on('close', onSourceClose);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  // The client may have gone away while the staging folder was made (before these listeners): its 'close' is past.
  if (source.destroyed && !source.readableEnded) fail(source.errored ?? new Error('the archive ended before its end (the upload was interrupted)'));
  if (!failure) detachSource = feedJoined(source, gunzip, INFLATE_INPUT_BYTES);

  await done;
  if (!failure) flushBatch();
  // Whatever follows the gzip member (trailing bytes) is not the archive's: the caller drains or closes the source.
  detachSource();
  source.off('error', onSourceError);
  source.off('close', onSourceClose);
  signal?.removeEventListener('abort', onAbort);
  // Settle every write (each one closes its file) before reporting, so the caller can clean up safely.
  while (tasks.size > 0) await Promise.allSettled([...tasks]);
  if (failure) throw failure;
  if (fileCount === 0) throw new ArchiveRejectedError('archive contains no files');
  if (writtenBytes !== declaredBytes) throw new ArchiveRejectedError('archive is truncated');
  return { fileCount, bytes: writtenBytes, kinds };
}

/**
 * Pipes `source` into `sink` as `source.pipe(sink)` does (backpressure, `end`), but joins the chunks that arrive
 * together into writes of up to `joinBytes`: what is there now is written once `joinBytes` is reached or on the next
 * turn of the event loop (setImmediate), so nothing waits for more input that may never come.
 * @returns detach: stops reading `source` and leaves it paused (what it holds or sends later is the caller's); idempotent
 */
function feedJoined(source: Readable, sink: Writable, joinBytes: number): () => void {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let scheduled: NodeJS.Immediate | undefined;
  let detached = false;
  let waitingForDrain = false;
  // Join buffers go back here once the sink has consumed them (its write callback): a deploy reuses two or three
  // rather than allocating 50 MiB of external memory the garbage collector must account for.
  const joinCapacity = 2 * joinBytes;
  const spare: Buffer[] = [];
  const writeHeld = (): void => {
    scheduled = undefined;
    if (detached || heldBytes === 0) return;
    let accepted: boolean;
    if (held.length === 1) {
      accepted = sink.write(held[0]);
    } else if (heldBytes <= joinCapacity) {
      const buffer = spare.pop() ?? Buffer.allocUnsafeSlow(joinCapacity);
      let offset = 0;
      for (const chunk of held) offset += chunk.copy(buffer, offset);
      accepted = sink.write(buffer.subarray(0, offset), () => spare.push(buffer));
    } else {
      accepted = sink.write(Buffer.concat(held, heldBytes));
    }
    held = [];
    heldBytes = 0;
    if (!accepted) {
      waitingForDrain = true;
      source.pause();
    }
  };
  const onData = (chunk: Buffer): void => {
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes >= joinBytes) {
      clearImmediate(scheduled);
      writeHeld();
    } else {
      scheduled ??= setImmediate(writeHeld);
    }
  };
  const onEnd = (): void => {
    clearImmediate(scheduled);
    writeHeld();
    if (!detached) sink.end();
  };
  // Only a pause of ours is undone here (as pipe does): the caller may pause the source for its own reasons.
  const onDrain = (): void => {
    if (detached || !waitingForDrain) return;
    waitingForDrain = false;
    source.resume();
  };
  source.on('data', onData);
  source.once('end', onEnd);
  sink.on('drain', onDrain);
  source.resume();
  if (source.readableEnded) process.nextTick(onEnd);
  return () => {
    if (detached) return;
    detached = true;
    clearImmediate(scheduled);
    held = [];
    heldBytes = 0;
    source.off('data', onData);
    source.off('end', onEnd);
    sink.off('drain', onDrain);
    source.pause();
  };
}

/**
 * Splits a tar entry path into plain segments (dropping `.` and empty ones), or returns why it is refused.
 * node-tar would silently strip `/` and skip `..`; a deployment with such names is refused instead.
 */
function pathSegments(rawPath: string): string[] | string {
  if (rawPath.includes('\0')) return `NUL byte in entry name: ${JSON.stringify(rawPath)}`;
  if (rawPath.includes('\uFFFD')) return `entry name is not UTF-8: ${JSON.stringify(rawPath)}`;
  const path = rawPath.includes('\\') ? rawPath.replace(/\\/g, '/') : rawPath;
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return `absolute path in archive: ${rawPath}`;
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return `'..' in archive path: ${rawPath}`;
  // A UTF-16 unit is at most 3 UTF-8 bytes: only names that long need counting.
  const tooLong = (text: string, maxBytes: number) => text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes;
  if (tooLong(path, MAX_PATH_BYTES) || segments.some((segment) => tooLong(segment, MAX_NAME_BYTES))) {
    return `entry name too long: ${rawPath.slice(0, 100)}...`;
  }
  return segments;
}

/**
 * Records an entry and its implied parent directories; refuses duplicates and file/directory clashes, which
 * would make node-tar delete or overwrite what an earlier entry wrote.
 */
function recordPath(kinds: Map<string, EntryKind>, segments: string[], kind: EntryKind): string | undefined {
  if (segments.length === 0) {
    // `./` itself: fine as a directory, meaningless as a file.
    return kind === 'dir' ? undefined : 'file entry without a name';
  }
  let prefix = '';
  for (let i = 0; i < segments.length - 1; i += 1) {
    prefix = prefix ? `${prefix}/${segments[i]}` : segments[i];
    const existing = kinds.get(prefix);
    if (existing === 'file') return `'${prefix}' is both a file and a directory`;
    if (!existing) kinds.set(prefix, 'dir');
  }
  const key = segments.join('/');
  const existing = kinds.get(key);
  if (existing === 'file' || (existing === 'dir' && kind === 'file')) return `duplicate entry: ${key}`;
  kinds.set(key, kind);
  return undefined;
}

/** Exclusive create: never follow or reuse anything already at the path (O_EXCL also refuses symlinks). */
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes a new file with plain open/write/close callbacks: cheaper per file than fs/promises.writeFile (no
 * FileHandle, no promise per step), which adds up over thousands of small files.
 */
function writeNewFile(path: string, data: Buffer): Promise<void> {
  return new Promise((resolveWrite, rejectWrite) => {
    open(path, NEW_FILE_FLAGS, FILE_MODE, (openError, fd) => {
      if (openError) return rejectWrite(openError);
      const finish = (error: Error | null) =>
        close(fd, (closeError) => {
          const failed = error ?? closeError;
          if (failed) rejectWrite(failed);
          else resolveWrite();
        });
      const writeFrom = (offset: number): void => {
        if (offset >= data.length) return finish(null);
        write(fd, data, offset, data.length - offset, null, (writeError, written) =>
          writeError ? finish(writeError) : writeFrom(offset + written),
        );
      };
      writeFrom(0);
    });
  });
}

/** Synchronous twin of {@link writeNewFile}, for the time-sliced fast path. */
function writeNewFileSync(path: string, data: Buffer): void {
  const fd = openSync(path, NEW_FILE_FLAGS, FILE_MODE);
  try {
    for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
  } finally {
    closeSync(fd);
  }
}

/** Keeps server-side fs failures (disk full, permissions) as they are; fs errors an archive's names provoke are its fault. */
function classifyFsError(error: unknown): Error {
  const err = error instanceof Error ? error : new Error(String(error));
  const code = (err as NodeJS.ErrnoException).code;
  return code && ARCHIVE_CAUSED_FS_CODES.has(code) ? new ArchiveRejectedError(`cannot unpack archive: ${err.message}`) : err;
}

/** Forces the published modes when a strict umask (e.g. 077) trimmed them at creation. */
async function applyModes(staging: string, kinds: Map<string, EntryKind>): Promise<void> {
  await chmod(staging, DIR_MODE);
  await Promise.all(
    [...kinds].map(([path, kind]) => chmod(join(staging, path), kind === 'file' ? FILE_MODE : DIR_MODE)),
  );
}
