import { nearestRank } from '../rules/run-summary';
import { nearestRankOf } from './run-summary.query';

describe('nearestRankOf', () => {
  it('takes the rank nearestRank takes, for every count up to 500', () => {
    for (let count = 1; count <= 500; count++) {
      const values = Array.from({ length: count }, (_, index) => index + 1);
      for (const p of [50, 95]) expect(nearestRankOf(count, p)).toBe(nearestRank(values, p));
    }
  });
});
