import { utf8Locale } from '../../database/utf8-locale';
import { isUtf8Ctype } from './paging.module';

describe('UTF-8 locale checks (issue 23: trigrams of Chinese text need a UTF-8 LC_CTYPE)', () => {
  it('reads a database ctype and encoding', () => {
    expect(isUtf8Ctype('C.UTF-8', 'UTF8')).toBe(true);
    expect(isUtf8Ctype('en_US.utf8', 'UTF8')).toBe(true);
    expect(isUtf8Ctype('C', 'UTF8')).toBe(false);
    expect(isUtf8Ctype('en_US.UTF-8', 'LATIN1')).toBe(false);
  });

  it('picks C.UTF-8 for a new embedded cluster when installed, else another UTF-8 locale', () => {
    expect(utf8Locale(['C', 'C.utf8', 'POSIX', 'en_US.utf8'])).toBe('C.utf8');
    expect(utf8Locale(['C', 'POSIX', 'de_DE.UTF-8', 'en_US.UTF-8'])).toBe('en_US.UTF-8');
    expect(utf8Locale(['C', 'POSIX', 'zh_CN.utf8'])).toBe('zh_CN.utf8');
    expect(utf8Locale(['C', 'POSIX'])).toBe('C.UTF-8');
  });
});
