import { Worker } from 'node:worker_threads';

/**
 * Writes the small files of an archive being unpacked on a worker thread (issue 14 item 2, acceptance 2), so the
 * event loop only parses while the file-creating system calls run beside it: unpacking then costs about
 * max(parse, write) instead of their sum, as `tar -xzf` does with its gzip child.
 *
 * Files are sent in batches (one transferred buffer and a list of `[path, offset, length]` each); the worker opens
 * each path with O_CREAT|O_EXCL|O_NOFOLLOW (never following or reusing anything at the path), writes it and closes
 * it, in order, and answers once per batch, handing the buffer back for the next batch. One worker serves every deploy of the process; it is started on first use,
 * ends after IDLE_STOP_MS without work (it must not hold the process open), and is started again when needed or if it
 * ever dies.
 */

/** The worker's code (plain CommonJS, evaluated: it works the same from `dist` and from the TypeScript test runs). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
parentPort.on('message', ({ id, buffer, files, mode }) => {
  const data = Buffer.from(buffer);
  let path = '';
  try {
    for (const file of files) {
      path = file[0];
      const fd = fs.openSync(path, FLAGS, mode);
      try {
        const end = file[1] + file[2];
        for (let offset = file[1]; offset < end; ) offset += fs.writeSync(fd, data, offset, end - offset);
      } finally {
        fs.closeSync(fd);
      }
    }
    parentPort.postMessage({ id, buffer }, [buffer]);
  } catch (error) {
    parentPort.postMessage({ id, buffer, error: { message: String(error && error.message), code: error && error.code, path } }, [buffer]);
  }
});
`;

/** Size of a batch's buffer, bytes: a small file (at most 1 MiB, MAX_BUFFERED_FILE_BYTES) always fits an empty one. */
const BATCH_BUFFER_BYTES = 1024 * 1024;
/** Batch buffers kept for reuse once the writer hands them back (at most this many MiB held between deploys). */
const MAX_RETURNED_BUFFERS = 8;
const returnedBuffers: ArrayBuffer[] = [];

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** An idle writer thread ends after this long, ms (it must not hold a process or a test run open). */
const IDLE_STOP_MS = 2000;

interface WriterState {
  worker: Worker;
  pending: Map<number, Pending>;
  idle?: NodeJS.Timeout;
}

let shared: WriterState | undefined;
let nextId = 0;

function writer(): WriterState {
  if (shared) {
    clearTimeout(shared.idle);
    return shared;
  }
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const pending = new Map<number, Pending>();
  const state: WriterState = { worker, pending };
  worker.unref();
  worker.on('message', (message: { id: number; buffer?: ArrayBuffer; error?: { message: string; code?: string; path: string } }) => {
    keepReturnedBuffer(message.buffer);
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (pending.size === 0) stopWhenIdle(state);
    if (!waiting) return;
    if (!message.error) return waiting.resolve();
    waiting.reject(Object.assign(new Error(`${message.error.message}`), { code: message.error.code, path: message.error.path }));
  });
  const lost = (error: Error) => {
    if (shared === state) shared = undefined;
    clearTimeout(state.idle);
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  worker.on('error', lost);
  worker.on('exit', (code) => lost(new Error(`the site file writer stopped (exit code ${code})`)));
  shared = state;
  return state;
}

/** Ends the writer thread after IDLE_STOP_MS unless it is used again meanwhile ({@link writer} cancels this). */
function stopWhenIdle(state: WriterState): void {
  clearTimeout(state.idle);
  state.idle = setTimeout(() => {
    if (shared === state) shared = undefined;
    void state.worker.terminate();
  }, IDLE_STOP_MS).unref();
}

/**
 * Starts the writer thread, when it is not running, at the start of an unpack: it boots (a few ms) while the first batch
 * is received, inflated and parsed, rather than after. Unused, it stops after IDLE_STOP_MS as always.
 */
export function startSiteFileWriter(): void {
  const state = writer();
  if (state.pending.size === 0) stopWhenIdle(state);
}

/**
 * Collects small new files and writes them on the writer thread in batches. Create one per unpack.
 * The caller creates each file's parent directory before {@link add}ing it, and awaits every {@link flush} promise
 * (each settles once its batch is written, or with the first fs error of the batch: code kept, as `fs` gives it).
 */
export class SiteFileBatcher {
  private files: [string, number, number][] = [];
  private buffer?: Buffer<ArrayBuffer>;
  private bytes = 0;

  constructor(
    private readonly mode: number,
    /** A batch is sent once it holds this many bytes or files (memory held, number of messages). */
    private readonly maxBatchBytes = BATCH_BUFFER_BYTES,
    private readonly maxBatchFiles = 256,
  ) {}

  /** Bytes queued and not yet sent. */
  get queuedBytes(): number {
    return this.bytes;
  }

  /**
   * Queues the new file `path`, its content being `data` (one buffer, or the pieces it arrived in, in order). The
   * content is copied at once: the caller may reuse what it passed.
   * @returns the promise of the batch(es) this file made full and sent, else undefined
   */
  add(path: string, data: Buffer | readonly Buffer[]): Promise<void> | undefined {
    const pieces = Buffer.isBuffer(data) ? [data] : data;
    let length = 0;
    for (const piece of pieces) length += piece.length;
    // A file that does not fit what is left of the batch's buffer goes into the next one.
    const before = this.buffer && this.bytes + length > this.buffer.length ? this.flush() : undefined;
    this.buffer ??= takeBatchBuffer(Math.max(this.maxBatchBytes, length));
    const offset = this.bytes;
    for (const piece of pieces) this.bytes += piece.copy(this.buffer, this.bytes);
    this.files.push([path, offset, length]);
    const after = this.bytes >= this.maxBatchBytes || this.files.length >= this.maxBatchFiles ? this.flush() : undefined;
    return before && after ? Promise.all([before, after]).then(() => undefined) : (before ?? after);
  }

  /** Sends what is queued (nothing when empty). */
  flush(): Promise<void> | undefined {
    const buffer = this.buffer;
    if (this.files.length === 0 || !buffer) return undefined;
    const files = this.files;
    this.files = [];
    this.buffer = undefined;
    this.bytes = 0;
    const { worker, pending } = writer();
    const id = (nextId += 1);
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      // Transferred, not copied; the writer hands it back with its answer, for the next batch (takeBatchBuffer).
      worker.postMessage({ id, buffer: buffer.buffer, files, mode: this.mode }, [buffer.buffer]);
    });
  }
}

/**
 * A batch's buffer, at least `bytes` long and owning its whole ArrayBuffer (so it can be transferred): one the writer
 * handed back when there is one, else a new one. Reusing them spares the garbage collector 50 MiB of external memory per
 * 50 MiB deploy, each megabyte of which counts towards its next full collection of the app's whole heap.
 */
function takeBatchBuffer(bytes: number): Buffer<ArrayBuffer> {
  const reused = bytes <= BATCH_BUFFER_BYTES ? returnedBuffers.pop() : undefined;
  return reused ? Buffer.from(reused) : Buffer.allocUnsafeSlow(Math.max(bytes, BATCH_BUFFER_BYTES));
}

/** Keeps a batch buffer the writer handed back, up to MAX_RETURNED_BUFFERS (memory held while idle). */
function keepReturnedBuffer(buffer: ArrayBuffer | undefined): void {
  if (buffer && buffer.byteLength === BATCH_BUFFER_BYTES && returnedBuffers.length < MAX_RETURNED_BUFFERS) returnedBuffers.push(buffer);
}
