import { BadRequestException } from '@nestjs/common';
import { int64ToNumber, isPositiveInt64, ParseInt64Pipe } from './int64-id';

describe('int64 ids', () => {
  it('accepts positive whole numbers up to the int64 maximum', () => {
    expect(isPositiveInt64('1')).toBe(true);
    expect(isPositiveInt64('9223372036854775807')).toBe(true);
  });

  it.each(['0', '-1', '01', '1.5', '1e3', 'abc', '', '9223372036854775808', '99999999999999999999'])('refuses %p', (text) => {
    expect(isPositiveInt64(text)).toBe(false);
  });

  it('the pipe passes the id through and turns bad ids into 400', () => {
    expect(new ParseInt64Pipe().transform('42')).toBe('42');
    expect(() => new ParseInt64Pipe().transform('refresh')).toThrow(BadRequestException);
  });

  it('exposes ids as JSON numbers', () => {
    expect(int64ToNumber('12345')).toBe(12345);
  });
});
