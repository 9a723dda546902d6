import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import type { Request } from 'express';
import getRawBody from 'raw-body';

/**
 * Reads the body of a platform callback (XML, any content type but JSON or a form) as UTF-8 text, at most
 * `maxBytes`. The app's JSON and form parsers leave other content types unread, so the stream is still readable.
 * A body over the limit (by Content-Length, or while reading) stops the read; the connection is closed after the
 * 413 answer so the rest is never read.
 * @param maxBytes largest body, bytes (CHAT_CALLBACK_MAX_BYTES)
 * @returns the body text ('' when there is none)
 * @throws PayloadTooLargeException (413) over `maxBytes`; BadRequestException (400) the body was sent as JSON or a
 *   form (already consumed by the app's parsers), or the client aborted
 */
export async function readCallbackBody(request: Request, maxBytes: number): Promise<string> {
  if ((request as Request & { _body?: boolean })._body || request.readableEnded) {
    throw new BadRequestException('Send the callback body as XML (Content-Type: text/xml), not as JSON or a form.');
  }
  try {
    // raw-body checks Content-Length against the limit before reading and counts bytes while reading.
    return await getRawBody(request, { limit: maxBytes, length: request.headers['content-length'] ?? null, encoding: 'utf8' });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      request.res?.setHeader('Connection', 'close');
      throw new PayloadTooLargeException(`The callback body is larger than ${maxBytes} bytes (CHAT_CALLBACK_MAX_BYTES).`);
    }
    throw new BadRequestException('The callback body could not be read.');
  }
}
