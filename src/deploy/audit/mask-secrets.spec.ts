import { maskSecrets } from './mask-secrets';

describe('maskSecrets', () => {
  it.each([
    ['API_KEY=abc123 npm run deploy', 'API_KEY=*** npm run deploy'],
    ['export DB_PASSWORD="s3cret value"', 'export DB_PASSWORD=***'],
    ['mysql --password hunter2 -u root', 'mysql --password *** -u root'],
    ['tool --api-key=xyz', 'tool --api-key=***'],
    ['curl -H "Authorization: Bearer abc.def" https://x', 'curl -H "Authorization: Bearer ***" https://x'],
    ['git clone https://bob:pa55@example.com/r.git', 'git clone https://bob:***@example.com/r.git'],
    [`echo atr_0123abcd_${'A'.repeat(43)}`, 'echo ***'],
  ])('masks %s', (command, expected) => expect(maskSecrets(command)).toBe(expected));

  it('leaves ordinary commands alone', () => {
    expect(maskSecrets('npm ci && npm run build -- --token-count 3')).toBe('npm ci && npm run build -- --token-count 3');
    expect(maskSecrets('ls -la /srv/www')).toBe('ls -la /srv/www');
  });
});
