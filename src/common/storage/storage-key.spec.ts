import { join } from 'node:path';
import { assertStorageKey, InvalidStorageKeyError, isStorageKey, isStorageNamespace, newStorageKey, resolveStorageKey } from './storage-key';

const ID = '3fa2c0d4e5f60718293a4b5c6d7e8f90';
const VALID = `evaluation-files/3f/a2/${ID}`;

describe('storage keys', () => {
  it('generates sharded random keys in a namespace', () => {
    const key = newStorageKey('evaluation-files', () => Buffer.from(ID, 'hex'));
    expect(key).toBe(VALID);
    const random = newStorageKey('chat-attachments');
    expect(random).toMatch(/^chat-attachments\/([0-9a-f]{2})\/([0-9a-f]{2})\/\1\2[0-9a-f]{28}$/);
    expect(isStorageKey(random)).toBe(true);
    expect(newStorageKey('x')).not.toBe(newStorageKey('x'));
  });

  it('refuses an invalid namespace', () => {
    for (const namespace of ['', '-a', 'a-', 'A', 'a/b', '..', '.tmp', 'a'.repeat(41), 'é']) {
      expect(isStorageNamespace(namespace)).toBe(false);
      expect(() => newStorageKey(namespace)).toThrow(InvalidStorageKeyError);
    }
    expect(isStorageNamespace('a'.repeat(40))).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['a parent segment', `evaluation-files/3f/a2/../../../../etc/passwd`],
    ['a dot segment', `evaluation-files/./a2/${ID}`],
    ['an absolute path', `/evaluation-files/3f/a2/${ID}`],
    ['a trailing slash', `${VALID}/`],
    ['an empty segment', `evaluation-files//3f/a2/${ID}`],
    ['backslashes', `evaluation-files\\3f\\a2\\${ID}`],
    ['upper-case hex', `evaluation-files/3F/A2/${ID.toUpperCase()}`],
    ['shards that do not match the id', `evaluation-files/00/a2/${ID}`],
    ['a short id', `evaluation-files/3f/a2/${ID.slice(0, 31)}`],
    ['a temp-folder name', `.tmp/3f/a2/${ID}`],
    ['a user file name', 'evaluation-files/3f/a2/report.pdf'],
    ['a NUL byte', `evaluation-files/3f/a2/${ID}\u0000`],
    ['a newline', `${VALID}\n`],
    ['a non-string', 42 as unknown as string],
  ])('refuses a key with %s', (_name, key) => {
    expect(isStorageKey(key)).toBe(false);
    expect(() => assertStorageKey(key)).toThrow(InvalidStorageKeyError);
    expect(() => resolveStorageKey('/srv/storage', key)).toThrow(InvalidStorageKeyError);
  });

  it('resolves a valid key strictly inside the root', () => {
    expect(resolveStorageKey('/srv/storage', VALID)).toBe(join('/srv/storage', 'evaluation-files', '3f', 'a2', ID));
    expect(resolveStorageKey('/srv/storage/', VALID)).toBe(join('/srv/storage', 'evaluation-files', '3f', 'a2', ID));
  });
});
