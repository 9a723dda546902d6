import { planFingerprint } from './plan-fingerprint';

const A = '0f8fad5b-d9cb-469f-a165-70867728950e';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

describe('planFingerprint', () => {
  it('is 64 lower-case hex characters and stable', () => {
    const fingerprint = planFingerprint([{ scenarioId: A, scenarioVersion: 1 }]);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(planFingerprint([{ scenarioId: A, scenarioVersion: 1 }])).toBe(fingerprint);
  });

  it('does not depend on the order of the plan', () => {
    expect(planFingerprint([{ scenarioId: A, scenarioVersion: 1 }, { scenarioId: B, scenarioVersion: 3 }])).toBe(
      planFingerprint([{ scenarioId: B, scenarioVersion: 3 }, { scenarioId: A, scenarioVersion: 1 }]),
    );
  });

  it('does not depend on the case of the scenario id or on fields other than id and version', () => {
    const withExtras = [{ scenarioId: A.toUpperCase(), scenarioVersion: 2, scenarioName: 'x', repeatCount: 5 }];
    expect(planFingerprint(withExtras)).toBe(planFingerprint([{ scenarioId: A, scenarioVersion: 2 }]));
  });

  it('changes when a scenario version changes', () => {
    expect(planFingerprint([{ scenarioId: A, scenarioVersion: 1 }])).not.toBe(planFingerprint([{ scenarioId: A, scenarioVersion: 2 }]));
  });

  it('changes when a scenario is added, removed or repeated', () => {
    const one = planFingerprint([{ scenarioId: A, scenarioVersion: 1 }]);
    expect(planFingerprint([{ scenarioId: A, scenarioVersion: 1 }, { scenarioId: B, scenarioVersion: 1 }])).not.toBe(one);
    expect(planFingerprint([{ scenarioId: A, scenarioVersion: 1 }, { scenarioId: A, scenarioVersion: 1 }])).not.toBe(one);
    expect(planFingerprint([])).not.toBe(one);
  });
});
