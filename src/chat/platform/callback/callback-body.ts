import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import type { Request } from 'express';

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
  const tooLarge = () => {
    request.res?.setHeader('Connection', 'close');
    return new PayloadTooLargeException(`The callback body is larger than ${maxBytes} bytes (CHAT_CALLBACK_MAX_BYTES).`);
  };
  if ((request as Request & { _body?: boolean })._body || request.readableEnded) {
    throw new BadRequestException('Send the callback body as XML (Content-Type: text/xml), not as JSON or a form.');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.pause();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise<string>((resolve, reject) => {
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        request.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = () => {
      cleanup();
      reject(new BadRequestException('The callback body could not be read.'));
    };
    const onAborted = onError;
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}
