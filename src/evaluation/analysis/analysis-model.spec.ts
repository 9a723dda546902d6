import { NO_ANALYSIS_MODEL, resolveAnalysisModel, snapshotModelConfig } from './analysis-model';

const config = (overrides: Partial<{ id: string; name: string; enabled: boolean; type: 'chat' | 'embedding' }> = {}) => ({
  id: 'c-1',
  name: 'analyst',
  enabled: true,
  type: 'chat' as const,
  ...overrides,
});

describe('resolveAnalysisModel (issue 4: the campaign\'s reference, else the analysis default)', () => {
  it('uses the campaign\'s configuration when it is an enabled chat one, even with a default', () => {
    const own = config({ id: 'own' });
    expect(resolveAnalysisModel('own', own, config({ id: 'default' }))).toEqual({ config: own });
  });

  it('refuses a referenced configuration that is gone, disabled or not chat, with why', () => {
    expect(resolveAnalysisModel('gone', null, config())).toEqual({ refusal: expect.stringMatching(/configuration gone no longer exists/) });
    expect(resolveAnalysisModel('c-1', config({ enabled: false }), null)).toEqual({ refusal: expect.stringMatching(/"analyst" \(c-1\) is disabled/) });
    expect(resolveAnalysisModel('c-1', config({ type: 'embedding' }), null)).toEqual({ refusal: expect.stringMatching(/has type "embedding"; analysis needs a chat model/) });
  });

  it('falls back to the analysis default, else says there is no analysis model', () => {
    const fallback = config({ id: 'default' });
    expect(resolveAnalysisModel(null, null, fallback)).toEqual({ config: fallback });
    expect(resolveAnalysisModel(null, null, null)).toEqual({ refusal: NO_ANALYSIS_MODEL });
    expect(NO_ANALYSIS_MODEL).toMatch(/^No analysis model: set analysis_model_config_id on the campaign or mark a model configuration as the analysis default/);
  });
});

describe('snapshotModelConfig', () => {
  it('keeps what identifies the model and never the key', () => {
    const snapshot = snapshotModelConfig({ id: 'i', name: 'n', provider: 'openai_compatible', baseUrl: 'http://x/v1', model: 'm', type: 'chat', purpose: 'analysis', apiKey: 'secret' } as never);
    expect(snapshot).toEqual({ id: 'i', name: 'n', provider: 'openai_compatible', base_url: 'http://x/v1', model: 'm', type: 'chat', purpose: 'analysis' });
    expect(JSON.stringify(snapshot)).not.toContain('secret');
  });
});
