import { likeContains } from './like-contains';

describe('likeContains', () => {
  it('escapes LIKE wildcards and the escape character and wraps the text in %…%', () => {
    expect(likeContains('a%_\\b')).toBe('%a\\%\\_\\\\b%');
    expect(likeContains('plain')).toBe('%plain%');
  });
});
