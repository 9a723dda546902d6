import { gzipSync } from 'node:zlib';

/** One entry of a hand-written tar archive; `type` is the ustar typeflag ('0' file, '1' hardlink, '2' symlink, '3' char device, '5' dir, '6' FIFO). */
export interface RawTarEntry {
  name: string;
  type?: '0' | '1' | '2' | '3' | '4' | '5' | '6';
  content?: Buffer | string;
  linkName?: string;
  /** Size written in the header when it should differ from the content (a lying header). */
  declaredSize?: number;
}

function header(entry: RawTarEntry, size: number): Buffer {
  const block = Buffer.alloc(512, 0);
  block.write(entry.name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(size.toString(8).padStart(11, '0') + '\0', 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(entry.type ?? '0', 156, 'ascii');
  if (entry.linkName) block.write(entry.linkName, 157, 100, 'utf8');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return block;
}

/**
 * Writes a tar archive byte by byte, so tests can build the hostile archives that the `tar` package refuses to
 * create (`..` paths, absolute paths, links, devices, FIFOs, lying sizes).
 * @returns the uncompressed tar bytes
 */
export function rawTar(entries: RawTarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    const hasData = (entry.type ?? '0') === '0';
    parts.push(header(entry, entry.declaredSize ?? (hasData ? content.length : 0)));
    if (hasData && content.length > 0) {
      parts.push(content, Buffer.alloc((512 - (content.length % 512)) % 512, 0));
    }
  }
  parts.push(Buffer.alloc(1024, 0));
  return Buffer.concat(parts);
}

/** {@link rawTar}, gzipped. */
export function rawTarGz(entries: RawTarEntry[]): Buffer {
  return gzipSync(rawTar(entries));
}
