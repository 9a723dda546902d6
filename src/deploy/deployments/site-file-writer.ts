import { Worker } from 'node:worker_threads';

/**
 * Writes the small files of an archive being unpacked on a worker thread (issue 14 item 2, acceptance 2), so the
 * event loop only parses while the file-creating system calls run beside it: unpacking then costs about
 * max(parse, write) instead of their sum, as `tar -xzf` does with its gzip child.
 *
 * Files are sent in batches (one transferred buffer and a list of `[path, offset, length]` each); the worker opens
 * each path with O_CREAT|O_EXCL|O_NOFOLLOW (never following or reusing anything at the path), writes it and closes
 * it, in order, and answers once per batch. One worker serves every deploy of the process; it is started on first use,
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
    parentPort.postMessage({ id });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code, path } });
  }
});
`;

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
  worker.on('message', (message: { id: number; error?: { message: string; code?: string; path: string } }) => {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (pending.size === 0) {
      clearTimeout(state.idle);
      state.idle = setTimeout(() => {
        if (shared === state) shared = undefined;
        void worker.terminate();
      }, IDLE_STOP_MS).unref();
    }
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

/**
 * Collects small new files and writes them on the writer thread in batches. Create one per unpack.
 * The caller creates each file's parent directory before {@link add}ing it, and awaits every {@link flush} promise
 * (each settles once its batch is written, or with the first fs error of the batch: code kept, as `fs` gives it).
 */
export class SiteFileBatcher {
  private files: [string, number, number][] = [];
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly mode: number,
    /** A batch is sent once it holds this many bytes or files (memory held, number of messages). */
    private readonly maxBatchBytes = 1024 * 1024,
    private readonly maxBatchFiles = 256,
  ) {}

  /** Bytes queued and not yet sent. */
  get queuedBytes(): number {
    return this.bytes;
  }

  /**
   * Queues `data` to be written as the new file `path`.
   * @returns the batch's promise when this file filled a batch and it was sent, else undefined
   */
  add(path: string, data: Buffer): Promise<void> | undefined {
    this.files.push([path, this.bytes, data.length]);
    this.chunks.push(data);
    this.bytes += data.length;
    return this.bytes >= this.maxBatchBytes || this.files.length >= this.maxBatchFiles ? this.flush() : undefined;
  }

  /** Sends what is queued (nothing when empty). */
  flush(): Promise<void> | undefined {
    if (this.files.length === 0) return undefined;
    // One buffer the batch owns outright, so it can be transferred rather than copied again.
    const buffer = Buffer.allocUnsafeSlow(this.bytes);
    let offset = 0;
    for (const chunk of this.chunks) offset += chunk.copy(buffer, offset);
    const files = this.files;
    this.files = [];
    this.chunks = [];
    this.bytes = 0;
    const { worker, pending } = writer();
    const id = (nextId += 1);
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, buffer: buffer.buffer, files, mode: this.mode }, [buffer.buffer]);
    });
  }
}
