import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** A real HTTP server on 127.0.0.1 started by a test, and what it received. */
export interface LocalPeer {
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: unknown }[];
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/**
 * Starts a JSON HTTP server on 127.0.0.1 (a port the OS picks). `handle` gets the parsed body and returns
 * `{ status, body, delayMs }`; every request is recorded.
 */
export async function startLocalPeer(
  handle: (request: { method: string; path: string; body: unknown; headers: IncomingMessage['headers'] }) => Promise<{ status?: number; body: unknown; delayMs?: number; headers?: Record<string, string> }> | { status?: number; body: unknown; delayMs?: number; headers?: Record<string, string> },
): Promise<LocalPeer> {
  const requests: LocalPeer['requests'] = [];
  const server: Server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readJson(request);
    const entry = { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body };
    requests.push(entry);
    const answer = await handle(entry);
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The body of an OpenAI-compatible chat completion answering `content`. */
export function chatCompletion(content: string, model = 'local-model') {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/**
 * The body of an OpenAI-compatible chat completion asking for tool calls (`finish_reason: tool_calls`): each call
 * names a function and its arguments (an object, sent as JSON text, or the raw text as given).
 */
export function toolCallCompletion(calls: { name: string; arguments: unknown; id?: string }[], model = 'local-model', content: string | null = null) {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          tool_calls: calls.map((call, index) => ({
            id: call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 8)}`,
            type: 'function',
            function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
          })),
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}
