import { asciiFileName, attachmentContentDisposition, encodeRfc8187 } from './content-disposition';

describe('Content-Disposition of downloads (RFC 6266, RFC 8187)', () => {
  it('sends an ASCII name as is in both parameters', () => {
    expect(attachmentContentDisposition('report-2024.pdf')).toBe(`attachment; filename="report-2024.pdf"; filename*=UTF-8''report-2024.pdf`);
  });

  it('encodes a UTF-8 name in filename* and gives an ASCII fallback', () => {
    expect(attachmentContentDisposition('報告 ✓.pdf')).toBe(`attachment; filename="file.pdf"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%20%E2%9C%93.pdf`);
    expect(decodeURIComponent('%E5%A0%B1%E5%91%8A%20%E2%9C%93.pdf')).toBe('報告 ✓.pdf');
  });

  it('drops accents and replaces other non-ASCII runs in the fallback', () => {
    expect(asciiFileName('Résumé café.txt')).toBe('Resume cafe.txt');
    expect(asciiFileName('Q3 報告.xlsx')).toBe('Q3 _.xlsx');
    expect(asciiFileName('報告')).toBe('file');
    expect(asciiFileName('✓✓.tar gz!')).toBe('file');
  });

  it('keeps quotes, backslashes, percent signs, line breaks and paths out of the header', () => {
    const header = attachmentContentDisposition('a"b%41\r\nX-Injected: 1\u0000.txt');
    expect(header).toBe(`attachment; filename="a_b_41X-Injected: 1.txt"; filename*=UTF-8''a%22b%2541X-Injected%3A%201.txt`);
    expect(header).not.toMatch(/[\r\n\u0000]/);
    expect(attachmentContentDisposition('../../etc/passwd')).toBe(`attachment; filename="passwd"; filename*=UTF-8''passwd`);
    expect(attachmentContentDisposition('..\\boot.ini')).toBe(`attachment; filename="boot.ini"; filename*=UTF-8''boot.ini`);
  });

  it("escapes the characters attr-char does not allow that encodeURIComponent leaves (' ( ) *)", () => {
    expect(encodeRfc8187("it's (v2) *final*.txt")).toBe('it%27s%20%28v2%29%20%2Afinal%2A.txt');
    expect(encodeRfc8187('a-b_c.d!~')).toBe('a-b_c.d!~');
  });

  it('always produces a header value of printable ASCII', () => {
    for (const name of ['😀.png', '\ud800broken.txt', 'ﬁle.txt', '‮exe.pdf', '']) {
      expect(attachmentContentDisposition(name)).toMatch(/^[\x20-\x7e]+$/);
    }
  });
});
