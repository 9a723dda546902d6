import { loadConfig } from '../../app.config';
import { sitesBaseUrl, sitesOriginProblem } from './sites.config';

describe('site serving configuration (issue 12 item 4)', () => {
  it('defaults: sites on the API origin, Swagger UI not persisting credentials', () => {
    const config = loadConfig({});
    expect(config.deploySites.origin).toBeUndefined();
    expect(config.docs.persistAuthorization).toBe(false);
    expect(sitesBaseUrl(config)).toBe(config.deploy.publicUrl);
  });

  it('DEPLOY_SITES_ORIGIN becomes the base of site URLs; DOCS_PERSIST_AUTHORIZATION=true is read', () => {
    const config = loadConfig({ DEPLOY_SITES_ORIGIN: 'https://sites.example.com/', DOCS_PERSIST_AUTHORIZATION: 'true' });
    expect(sitesBaseUrl(config)).toBe('https://sites.example.com');
    expect(config.docs.persistAuthorization).toBe(true);
  });

  it('refuses a sites origin with a path, query or another scheme, and a flag that is not true/false', () => {
    for (const origin of ['https://sites.example.com/sub', 'https://sites.example.com/?x=1', 'ftp://sites.example.com', 'sites.example.com']) {
      expect(() => loadConfig({ DEPLOY_SITES_ORIGIN: origin })).toThrow(/DEPLOY_SITES_ORIGIN/);
    }
    expect(() => loadConfig({ DOCS_PERSIST_AUTHORIZATION: 'yes' })).toThrow(/DOCS_PERSIST_AUTHORIZATION/);
  });

  it('refuses a sites origin on the API host (the API would become unreachable there)', () => {
    expect(sitesOriginProblem('https://api.example.com', 'https://API.example.com:8443')).toMatch(/DEPLOY_SITES_ORIGIN/);
    expect(sitesOriginProblem('https://sites.example.com', 'https://api.example.com')).toBeUndefined();
    expect(sitesOriginProblem(undefined, 'https://api.example.com')).toBeUndefined();
  });
});
