import pino from 'pino';
import { Writable } from 'node:stream';
import { REDACTED_PATHS, PinoNestLogger } from './logger';

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
});
