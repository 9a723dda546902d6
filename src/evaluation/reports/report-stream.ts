import type { Response } from 'express';

/** Thrown into a report's producer when its client went away: nothing more is read or written. */
export class ReportClientGoneError extends Error {
  constructor() {
    super('The client closed the connection before the report was sent whole.');
  }
}

/**
 * Writes a streamed report (issue 23 item 3): the status and headers go out only once the first chunk was produced
 * (so a failure before it — unknown run, database away — is still an ordinary problem+json answer), then each chunk
 * as it comes, waiting for `drain` whenever the socket's buffer is full (a slow client slows the producer instead of
 * the server buffering the report). A failure after the headers destroys the socket: the client sees an aborted
 * response, never a body that looks complete (a chunked response without its last chunk).
 * @param chunks the body, produced lazily; it is told to stop (`return()`) when the client goes away
 * @param onFailure called with an error that struck mid-stream (for the log)
 * @throws the error of producing the first chunk (before anything was sent)
 */
export async function streamReport(
  response: Response,
  headers: Record<string, string>,
  chunks: AsyncIterator<string>,
  onFailure: (error: unknown) => void,
): Promise<void> {
  const first = await chunks.next();
  response.status(200);
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  let gone = false;
  const markGone = () => (gone = true);
  response.once('close', markGone);
  try {
    for (let result = first; !result.done; result = await chunks.next()) {
      if (gone || response.destroyed) throw new ReportClientGoneError();
      if (!response.write(result.value)) await waitForDrain(response);
    }
    response.end();
  } catch (error) {
    await chunks.return?.(undefined)?.catch(() => undefined);
    if (!(error instanceof ReportClientGoneError)) onFailure(error);
    response.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    response.off('close', markGone);
  }
}

/** Resolves once the response can take more, or rejects when the connection closed first. */
function waitForDrain(response: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      response.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      response.off('drain', onDrain);
      reject(new ReportClientGoneError());
    };
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}
