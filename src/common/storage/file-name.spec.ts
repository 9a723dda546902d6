import { FALLBACK_FILE_NAME, MAX_FILE_NAME_LENGTH, toDisplayFileName } from './file-name';

describe('display file names', () => {
  it('keeps an ordinary name, Unicode included', () => {
    expect(toDisplayFileName('report 2024.pdf')).toBe('report 2024.pdf');
    expect(toDisplayFileName('報告 ✓.pdf')).toBe('報告 ✓.pdf');
    expect(toDisplayFileName('.env.example')).toBe('.env.example');
  });

  it('keeps only the last segment of a path', () => {
    expect(toDisplayFileName('../../../etc/passwd')).toBe('passwd');
    expect(toDisplayFileName('..\\..\\windows\\system.ini')).toBe('system.ini');
    expect(toDisplayFileName('C:\\Users\\me\\a.txt')).toBe('a.txt');
    expect(toDisplayFileName('/abs/path/')).toBe(FALLBACK_FILE_NAME);
  });

  it('removes control and bidi characters and normalises to NFC', () => {
    expect(toDisplayFileName('a\u0000b\r\nc\u007f.txt')).toBe('abc.txt');
    expect(toDisplayFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(toDisplayFileName('Cafe\u0301.txt')).toBe('Café.txt');
    expect(toDisplayFileName('Cafe\u0301.txt')).toBe('Caf\u00e9.txt');
    expect(toDisplayFileName('x\ud800.txt')).toBe('x\ufffd.txt');
  });

  it('collapses whitespace and trims spaces and trailing dots', () => {
    expect(toDisplayFileName('  a \t  b.txt. . ')).toBe('a b.txt');
  });

  it.each([[undefined], [null], [''], ['.'], ['..'], ['   '], ['\u0000\u0001']])('falls back for %p', (raw) => {
    expect(toDisplayFileName(raw as string | undefined)).toBe(FALLBACK_FILE_NAME);
  });

  it('shortens a long name to the limit, keeping the extension', () => {
    const name = toDisplayFileName(`${'é'.repeat(400)}.pdf`);
    expect(Array.from(name)).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(name.endsWith('é.pdf')).toBe(true);
    const emoji = toDisplayFileName('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(emoji).toBe('😀'.repeat(MAX_FILE_NAME_LENGTH));
  });
});
