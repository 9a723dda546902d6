import { loadConfig } from './app.config';
import { startupSummary, withoutPassword } from './app.startup-summary';

describe('start-up summary (issue 15 item 4)', () => {
  it('says where to go, which database, and how each wing authenticates, in one block', () => {
    const config = loadConfig({ PORT: '3000', EVAL_API_KEYS: 'k1-0123456789abcdef,k2-0123456789abcdef', DEPLOY_OWNER_TOKEN: 'owner-token-0123456789abcdefghij' });
    const { lines, fields } = startupSummary(config, 'http://localhost:3000', { kind: 'embedded', port: 54329, dataDir: '/srv/atrium' });
    expect(lines[0]).toBe('Atrium is listening on http://localhost:3000');
    expect(lines.join('\n')).toContain('docs        http://localhost:3000/docs');
    expect(fields.database).toBe('embedded PostgreSQL on 127.0.0.1:54329 (data in /srv/atrium)');
    expect(fields.wings).toEqual({
      chat: 'OAuth2 bearer tokens from the built-in server at http://localhost:3000/oauth',
      deploy: 'agent tokens from POST /api/auth/register (registration key: generated), owner token: DEPLOY_OWNER_TOKEN',
      evaluation: 'X-API-Key (2 from EVAL_API_KEYS, plus named keys), sign-in off (EVAL_ADMIN_PASSWORD unset)',
    });
    expect(fields.metrics).toBe('http://localhost:3000/metrics');
  });

  it('never shows a secret: not the database password, the API keys, the owner token or the metrics token (the attack)', () => {
    const config = loadConfig({ EVAL_API_KEYS: 'k1-secret-0123456789', DEPLOY_OWNER_TOKEN: 'owner-secret-0123456789abcdefgh', METRICS_TOKEN: 'metrics-secret-0123456789', METRICS_PORT: '9464' });
    const { lines, fields } = startupSummary(config, 'http://localhost:3000', { kind: 'external', url: 'postgres://atrium:db-secret-pw@db.internal:5432/atrium' });
    const text = `${lines.join('\n')}${JSON.stringify(fields)}`;
    expect(text).toContain('postgres://atrium:***@db.internal:5432/atrium');
    expect(text).toContain('port 9464 /metrics (METRICS_TOKEN)');
    for (const secret of ['db-secret-pw', 'k1-secret', 'owner-secret', 'metrics-secret']) expect(text).not.toContain(secret);
  });

  it('hides the password of any URL it shows, and shows nothing of one it cannot parse', () => {
    expect(withoutPassword('postgres://u:p%40ss@h/db')).toBe('postgres://u:***@h/db');
    expect(withoutPassword('postgres://h/db')).toBe('postgres://h/db');
    expect(withoutPassword('not a url with secret')).toBe('(unparseable URL)');
  });
});
