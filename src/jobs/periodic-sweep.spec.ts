import type { Logger } from '@nestjs/common';
import { PeriodicSweep } from './periodic-sweep';

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
    await new Promise((resolve) => setTimeout(resolve, 40));
    await sweep.stop();
    expect(passes).toBeGreaterThan(1);
    expect(log.error).toHaveBeenCalledWith('Test sweep failed: database away', expect.any(String));
  });
});
