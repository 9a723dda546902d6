import { parseClusterEvent } from './cluster-events';
import { respawnDelayMs } from './cluster-primary';
import { clusterConfig, workerCount } from './cluster.config';
import { loadConfiguration } from '../../config/config-variable';
import { coreConfig } from '../../config/core.config';

describe('ATRIUM_WORKERS (issue 20 item 7)', () => {
  const load = (value?: string) => loadConfiguration<{ cluster: { workers: number } }>(value === undefined ? {} : { ATRIUM_WORKERS: value }, [coreConfig, clusterConfig]);

  it('defaults to one process, takes 1..64 or auto (one per core)', () => {
    expect(load().cluster.workers).toBe(1);
    expect(load('2').cluster.workers).toBe(2);
    expect(load('64').cluster.workers).toBe(64);
    expect(workerCount('auto', 6)).toBe(6);
    expect(workerCount('auto', 0)).toBe(1);
  });

  it('refuses anything else at start-up', () => {
    for (const bad of ['0', '65', '-1', '1.5', 'all', '2 ', '02']) expect(() => load(bad)).toThrow(/ATRIUM_WORKERS must be auto or a whole number 1\.\.64/);
  });

  it('replaces a dead worker after 1 s, backing off to 30 s while they keep dying young', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map(respawnDelayMs)).toEqual([1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
});

describe('cluster event payloads', () => {
  it('reads a topic and a key, ignores anything malformed (another program on the channel)', () => {
    expect(parseClusterEvent('{"topic":"chat-tenant","key":"acme"}')).toEqual({ topic: 'chat-tenant', key: 'acme' });
    for (const bad of [undefined, '', 'not json', '{"topic":1,"key":"x"}', '{"topic":"t"}', 'null', '[]']) expect(parseClusterEvent(bad)).toBeUndefined();
  });
});
