import type { Logger } from '@nestjs/common';
import { eventually } from '../../test/support/async';
import { PeriodicSweep } from './periodic-sweep';

/** Waits for `count()` to reach `atLeast` passes; counts passes, not milliseconds, so a loaded machine only makes it slower. */
const passesReach = (count: () => number, atLeast: number) =>
  eventually(`${atLeast} passes`, async () => (count() >= atLeast ? true : undefined), { intervalMs: 2, timeoutMs: 10_000 });

describe('PeriodicSweep', () => {
  const logger = () => ({ error: jest.fn() }) as unknown as Logger & { error: jest.Mock };

  it('runs a pass at once, never two at a time, and stop waits for the pass in progress', async () => {
    let release!: () => void;
    let passes = 0;
    let finished = false;
    const sweep = new PeriodicSweep('Test sweep', () => {
      passes += 1;
      return new Promise<void>((resolve) => (release = () => { finished = true; resolve(); }));
    }, logger());
    sweep.start(5);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(passes).toBe(1); // the ticks during the pass were skipped
    const stopped = sweep.stop();
    release();
    await stopped;
    expect(finished).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toBe(1); // no pass after stop
  });

  it('logs a failed pass and tries again at the next tick', async () => {
    const log = logger();
    let passes = 0;
    const sweep = new PeriodicSweep('Test sweep', async () => {
      passes += 1;
      throw new Error('database away');
    }, log);
    sweep.start(5);
    await passesReach(() => passes, 2);
    await sweep.stop();
    expect(passes).toBeGreaterThan(1);
    expect(log.error).toHaveBeenCalledWith('Test sweep failed: database away', expect.any(String));
  });

  it('tells each pass how long the database has answered since a pass found it unavailable', async () => {
    const seen: number[] = [];
    let down = false;
    const sweep = new PeriodicSweep('Test sweep', async ({ databaseAnsweringForMs }) => {
      seen.push(databaseAnsweringForMs);
      if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    }, logger());
    sweep.start(10);
    await passesReach(() => seen.length, 2);
    expect(seen.every((ms) => ms === Infinity)).toBe(true); // no outage seen yet
    down = true;
    await passesReach(() => seen.length, seen.length + 2);
    down = false;
    const recoveredAt = seen.length;
    await passesReach(() => seen.length, recoveredAt + 5);
    await sweep.stop();
    const after = seen.slice(recoveredAt);
    expect(after[0]).toBe(0); // the first pass after the outage
    expect(after.length).toBeGreaterThan(3);
    expect(after.slice(1).every((ms, index) => ms > 0 && ms >= after[index])).toBe(true); // then counting up
    expect(PeriodicSweep.outageGraceOver({ databaseAnsweringForMs: after[1] }, 1_000)).toBe(false);
    expect(PeriodicSweep.outageGraceOver({ databaseAnsweringForMs: Infinity }, 1_000)).toBe(true);
  });

  it('does not count a failure that is not an outage', async () => {
    const seen: number[] = [];
    const sweep = new PeriodicSweep('Test sweep', async ({ databaseAnsweringForMs }) => {
      seen.push(databaseAnsweringForMs);
      throw new Error('syntax error at or near "SELEC"');
    }, logger());
    sweep.start(5);
    await passesReach(() => seen.length, 3);
    await sweep.stop();
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((ms) => ms === Infinity)).toBe(true);
  });
});
