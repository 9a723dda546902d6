import request from 'supertest';

/** Run statuses after which a run never changes. */
const TERMINAL = ['completed', 'failed', 'cancelled'];

/**
 * Polls `GET /api/runs/{id}` every `intervalMs` until the run is terminal, as a client would.
 * @returns the last run body
 * @throws Error when it is still running after `timeoutMs`
 */
export async function waitForRun(baseUrl: string, apiKey: string, id: string, { intervalMs = 100, timeoutMs = 60_000 } = {}): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await request(baseUrl).get(`/api/runs/${id}`).set('X-API-Key', apiKey).expect(200);
    if (TERMINAL.includes(run.body.status)) return run.body;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
