import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The bits of http-proxy 1.18 (no type declarations installed) the balancer uses. */
interface HttpProxy {
  web(request: IncomingMessage, response: ServerResponse, options: { target: string }): void;
  on(event: 'error', listener: (error: Error, request: IncomingMessage, response: ServerResponse) => void): void;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const httpProxy = require('http-proxy') as { createProxyServer(options: { xfwd?: boolean }): HttpProxy };

/** A round-robin HTTP load balancer on 127.0.0.1 in front of app instances, started by a test. */
export interface LoadBalancer {
  url: string;
  /** How many requests went to each upstream, by upstream URL. */
  counts: Map<string, number>;
  /** Replaces the upstream list (a killed instance taken out, as a health-checking balancer would). */
  setUpstreams(upstreams: string[]): void;
  close(): Promise<void>;
}

/**
 * Starts the balancer (ISSUE-NOTES 20 / issue 20 acceptance 3: "behind a small load balancer the test starts"). Each
 * request goes to the next upstream in turn; an upstream that refuses the connection answers 502 (no retry, so the
 * test sees what a client would).
 */
export async function startLoadBalancer(upstreams: string[]): Promise<LoadBalancer> {
  const proxy = httpProxy.createProxyServer({ xfwd: true });
  let list = [...upstreams];
  let next = 0;
  const counts = new Map<string, number>();
  proxy.on('error', (_error, _request, response) => {
    if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
    response.end('bad gateway');
  });
  const server: Server = createServer((request, response) => {
    const target = list[next++ % list.length];
    counts.set(target, (counts.get(target) ?? 0) + 1);
    proxy.web(request, response, { target });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    setUpstreams: (replacement) => {
      list = [...replacement];
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
    },
  };
}
