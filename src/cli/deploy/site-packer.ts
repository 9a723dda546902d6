import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Pack } from 'tar';

/** Directory names never packed, at any depth: VCS metadata and installed dependencies are not site content. */
export const EXCLUDED_DIR_NAMES: readonly string[] = ['.git', 'node_modules'];

/** Result of {@link packSiteDirectory}. */
export interface PackResult {
  /** Absolute path of the written .tar.gz. */
  file: string;
  /** Size of the archive in bytes. */
  bytes: number;
  /** Number of regular files stored (directories and links not counted). */
  fileCount: number;
}

/**
 * Packs a project directory into a gzip-compressed tar archive (deployment-gateway.md, Client scripts: "pack (tar.gz)").
 * Entry paths are relative to `dir` (e.g. `index.html`, `assets/app.js`); `.git` and `node_modules` are skipped at
 * any depth, and so is `outFile` itself when it lies inside `dir`. Uses tar's portable mode (no uid/gid/owner names).
 * No shell is involved: the `tar` package walks the tree itself.
 * @param dir directory to pack
 * @param outFile archive path to write (overwritten if present)
 * @returns the archive path, its size in bytes and the number of files stored
 * @throws Error when `dir` is missing or not a directory, or on any read/write failure
 */
export async function packSiteDirectory(dir: string, outFile: string): Promise<PackResult> {
  const root = path.resolve(dir);
  const out = path.resolve(outFile);
  const stat = await fs.stat(root).catch(() => null);
  if (!stat?.isDirectory()) throw new Error(`not a directory: ${dir}`);

  let fileCount = 0;
  const pack = new Pack({
    cwd: root,
    gzip: true,
    portable: true,
    filter: (entryPath) => {
      if (entryPath.split('/').some((part) => EXCLUDED_DIR_NAMES.includes(part))) return false;
      return path.resolve(root, entryPath) !== out;
    },
    onWriteEntry: (entry) => {
      if (entry.type === 'File') fileCount += 1;
    },
  });
  // Add top-level names directly on the Pack (not tar.create's file list), so a name starting with '@'
  // is packed as a file instead of being read as an archive to concatenate; paths get no './' prefix.
  const names = (await fs.readdir(root)).sort();
  for (const name of names) pack.add(name);
  pack.end();

  await fs.mkdir(path.dirname(out), { recursive: true });
  try {
    await pipeline(pack, createWriteStream(out));
  } catch (err) {
    await fs.rm(out, { force: true });
    throw err;
  }
  const { size } = await fs.stat(out);
  return { file: out, bytes: size, fileCount };
}
