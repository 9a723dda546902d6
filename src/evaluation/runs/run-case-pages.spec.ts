import type { Pulled } from './bounded-pool';
import { pendingRunItems, RUN_CASE_WINDOW_SQL, STORED_POSITIONS_SQL } from './run-case-pages';

/** A fake database: `cases` snapshot positions, `stored` keys `position:repeat`; records each window read. */
function fakeQuery(cases: number, stored: Set<string>) {
  const reads: [number, number][] = [];
  const query = async (sql: string, parameters: unknown[]) => {
    const [, after, until, repeatIndex] = parameters as [string, number, number, number];
    const positions = Array.from({ length: cases }, (_, position) => position).filter((position) => position > after && position <= until);
    if (sql === RUN_CASE_WINDOW_SQL) {
      reads.push([after, until]);
      return positions.map((position) => ({ position, content: { id: `c${position}`, input: `m${position}`, rules: [] } }));
    }
    if (sql === STORED_POSITIONS_SQL) return positions.filter((position) => stored.has(`${position}:${repeatIndex}`)).map((position) => ({ position }));
    throw new Error(`unexpected SQL ${sql}`);
  };
  return { query, reads };
}

async function drain(next: () => Pulled<{ position: number; repeatIndex: number }>) {
  const items: string[] = [];
  for (let item = await next(); item; item = await next()) items.push(`${item.position}:${item.repeatIndex}`);
  return items;
}

describe('pendingRunItems', () => {
  it('hands out every (case, repetition) in order, window by window of positions', async () => {
    const { query, reads } = fakeQuery(7, new Set());
    expect(await drain(pendingRunItems(query, 'run', 7, 2, 3))).toEqual(['0:0', '1:0', '2:0', '3:0', '4:0', '5:0', '6:0', '0:1', '1:1', '2:1', '3:1', '4:1', '5:1', '6:1']);
    expect(reads).toEqual([[-1, 2], [2, 5], [5, 8], [-1, 2], [2, 5], [5, 8]]);
  });

  it('skips what a resumed run already stored, and whole windows of it', async () => {
    const stored = new Set(['0:0', '1:0', '2:0', '3:0', '5:0', '1:1']);
    const { query } = fakeQuery(6, stored);
    expect(await drain(pendingRunItems(query, 'run', 6, 2, 2))).toEqual(['4:0', '0:1', '2:1', '3:1', '4:1', '5:1']);
  });

  it('reads one window ahead at most, and nothing for an empty run', async () => {
    const { query, reads } = fakeQuery(100, new Set());
    const next = pendingRunItems(query, 'run', 100, 1, 10);
    await next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(2);
    const empty = fakeQuery(0, new Set());
    expect(await pendingRunItems(empty.query, 'run', 0, 3, 10)()).toBeUndefined();
    expect(empty.reads).toEqual([]);
  });

  it('hands an item of the page at hand out at once, a read as a promise', async () => {
    const { query } = fakeQuery(5, new Set());
    const next = pendingRunItems(query, 'run', 5, 1, 3);
    const first = next();
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ position: 0 });
    expect(next()).toMatchObject({ position: 1 });
    expect(next()).toMatchObject({ position: 2 });
    expect(await next()).toMatchObject({ position: 3 });
  });
});
