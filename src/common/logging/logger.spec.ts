import pino from 'pino';
import { Writable } from 'node:stream';
import { createRootLogger, REDACTED_PATHS, PinoNestLogger, wantsPrettyLogs } from './logger';
import { requestContextMiddleware } from './request-context';

function capture(): { lines: string[]; logger: pino.Logger } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink) };
}

describe('logging', () => {
  it('never writes tokens, keys or passwords', () => {
    const { lines, logger } = capture();
    logger.info({ req: { headers: { authorization: 'Bearer atr_secret' } }, body: { token: 't0p', registrationKey: 'k3y' }, password: 'pw' }, 'x');
    const out = lines.join('');
    expect(out).not.toMatch(/atr_secret|t0p|k3y|"pw"/);
    expect(out).toContain('[redacted]');
  });

  it('maps Nest log calls to pino levels with their context', () => {
    const { lines, logger } = capture();
    new PinoNestLogger(logger).warn('disk almost full', 'Storage');
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ level: 40, msg: 'disk almost full', context: 'Storage' });
  });

  it("sends Nest's module-by-module start-up lines to debug, and keeps other info lines at info (issue 15 item 4)", () => {
    const { lines, logger } = capture();
    logger.level = 'debug';
    const nest = new PinoNestLogger(logger);
    nest.log('ChatModule dependencies initialized', 'InstanceLoader');
    nest.log('Mapped {/api/runs, POST} route', 'RouterExplorer');
    nest.log('RunsController {/api/runs}:', 'RoutesResolver');
    nest.log('Job workers started', 'Jobs');
    expect(lines.map((line) => JSON.parse(line).level)).toEqual([20, 20, 20, 30]);
  });

  it('pretty only in development on a terminal', () => {
    expect(wantsPrettyLogs('development', true)).toBe(true);
    expect(wantsPrettyLogs('development', false)).toBe(false);
    expect(wantsPrettyLogs('development', undefined)).toBe(false);
    expect(wantsPrettyLogs('production', true)).toBe(false);
    expect(wantsPrettyLogs('test', true)).toBe(false);
  });

  it("stamps every line written while serving a request with that request's id, and none outside", (done) => {
    const lines: string[] = [];
    const logger = createRootLogger('info', new Writable({ write: (chunk, _encoding, next) => { lines.push(String(chunk)); next(); } }));
    logger.info('before');
    requestContextMiddleware({ id: 'req-42' } as never, {} as never, () => {
      setImmediate(() => {
        logger.info('inside, later on the same async path');
        const [outside, inside] = lines.map((line) => JSON.parse(line));
        expect(outside.requestId).toBeUndefined();
        expect(inside.requestId).toBe('req-42');
        done();
      });
    });
  });
});
