import { siteObjectPath, siteObjectPrefix } from './s3-site-serving';

describe('site paths to bucket keys (issue 20 item 4)', () => {
  it('maps files, folders and their index.html as express.static does', () => {
    expect(siteObjectPath('')).toBe('index.html');
    expect(siteObjectPath('docs/')).toBe('docs/index.html');
    expect(siteObjectPath('assets/app.js')).toBe('assets/app.js');
    expect(siteObjectPath('a%20b/%C3%A9.txt')).toBe('a b/é.txt');
    expect(siteObjectPrefix('c-1', 'abc-site-20260101000000')).toBe('sites/c-1/abc-site-20260101000000/');
  });

  it('refuses dotfiles, dot segments, empty segments, NUL, backslashes and bad escapes (attack: leaving the prefix)', () => {
    for (const bad of ['.env', 'a/.git/config', '..', '../x', '%2e%2e/x', 'a/../../x', 'a//b', '%00', 'a%5C..%5Cb', '%E0%A4%A', '/x']) {
      expect([bad, siteObjectPath(bad)]).toEqual([bad, undefined]);
    }
  });
});
