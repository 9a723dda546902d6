import { ifNoneMatchHits, reportEtag } from './report-etag';

const run = (status: string, results = 10) => ({ id: '0b1e4a4c-3c36-4c8e-9a57-1f1fd0b0a001', status, finishedAt: new Date('2026-01-01T00:00:00Z'), results });

describe('reportEtag', () => {
  it('is absent while a run can still change', () => {
    expect(reportEtag('json', [run('running')], {})).toBeNull();
    expect(reportEtag('compare', [run('completed'), run('queued')], {})).toBeNull();
  });

  it('is stable for the same runs and query, in any key or list order', () => {
    const etag = reportEtag('json', [run('completed')], { status: ['failed', 'errored'], tag: 'a', size: undefined });
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(reportEtag('json', [run('completed')], { tag: 'a', status: ['errored', 'failed'] })).toBe(etag);
  });

  it('changes with the representation, the query, a late result or the status', () => {
    const base = reportEtag('json', [run('cancelled')], {});
    expect(reportEtag('markdown', [run('cancelled')], {})).not.toBe(base);
    expect(reportEtag('json', [run('cancelled')], { status: ['failed'] })).not.toBe(base);
    expect(reportEtag('json', [run('cancelled', 11)], {})).not.toBe(base);
    expect(reportEtag('json', [run('completed')], {})).not.toBe(base);
  });
});

describe('ifNoneMatchHits', () => {
  it('compares weakly and reads lists and *', () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"x", "abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('*', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"abd"', '"abc"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"abc"')).toBe(false);
  });
});
