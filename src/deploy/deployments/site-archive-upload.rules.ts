/**
 * Rules of the deploy upload read as a stream (issue 14 item 2): how much of a `POST /api/deploy` body may be read at
 * all, and when an announced body is refused unread. No I/O here.
 */

/** busboy's largest part header block, bytes (its MAX_HEADER_SIZE, Node's own default). */
export const MULTIPART_PART_HEADER_BYTES = 16 * 1024;
/** Boundary lines, the closing boundary and line breaks of a whole form, bytes (generous). */
export const MULTIPART_FRAMING_BYTES = 4 * 1024;

/** The multipart limits of the deploy route, as given to multer. */
export interface DeployBodyLimits {
  /** DEPLOY_MAX_ARCHIVE_BYTES: the largest archive part, bytes. */
  maxArchiveBytes: number;
  /** Most text fields (multer `limits.fields`). */
  fields: number;
  /** Largest text field value, bytes (multer `limits.fieldSize`). */
  fieldSizeBytes: number;
}

/**
 * The largest `POST /api/deploy` body that can still be acceptable, bytes: the archive at its limit, every allowed text
 * field at its limit, a header block per part and the form's framing. A `Content-Length` above it is refused with 413
 * before anything is read; a body within it is still cut the moment its archive part passes `maxArchiveBytes`.
 */
export function maxDeployBodyBytes(limits: DeployBodyLimits): number {
  return limits.maxArchiveBytes + limits.fields * (limits.fieldSizeBytes + MULTIPART_PART_HEADER_BYTES) + MULTIPART_PART_HEADER_BYTES + MULTIPART_FRAMING_BYTES;
}

/**
 * Whether a request announcing `contentLength` (the raw header, if any) must be refused unread. A missing or
 * unparsable header (chunked upload) is read and counted instead.
 */
export function announcedBodyTooLarge(contentLength: string | undefined, limits: DeployBodyLimits): boolean {
  if (contentLength === undefined || !/^\d+$/.test(contentLength.trim())) return false;
  return Number(contentLength.trim()) > maxDeployBodyBytes(limits);
}

/** The 413 detail of an archive over DEPLOY_MAX_ARCHIVE_BYTES (the same words whether found by header, count or size). */
export function archiveTooLargeDetail(maxArchiveBytes: number): string {
  return `The archive is over ${maxArchiveBytes} bytes.`;
}
