import { normalizeChannelSettings, normalizeOrigin } from './channel.rules';

const CORP = '00000000-0000-4000-8000-00000000c0de';

describe('channel rules (chat-management-api.md, Channel and chat group: ChatChannelRequest)', () => {
  describe('normalizeOrigin', () => {
    it('accepts https origins (and http on localhost), normalised as browsers send them', () => {
      expect(normalizeOrigin('https://Shop.Example.com')).toBe('https://shop.example.com');
      expect(normalizeOrigin('https://shop.example.com/')).toBe('https://shop.example.com');
      expect(normalizeOrigin('https://shop.example.com:443')).toBe('https://shop.example.com');
      expect(normalizeOrigin('https://shop.example.com:8443')).toBe('https://shop.example.com:8443');
      expect(normalizeOrigin('http://localhost:3000')).toBe('http://localhost:3000');
      expect(normalizeOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    });

    it('refuses plain http elsewhere, other schemes, paths, queries, fragments, credentials and non-URLs', () => {
      for (const text of ['http://shop.example.com', 'ftp://shop.example.com', 'https://shop.example.com/path', 'https://shop.example.com//', 'https://shop.example.com?q=1', 'https://shop.example.com#x', 'https://user:pw@shop.example.com', 'shop.example.com', '*']) {
        expect([text, normalizeOrigin(text)]).toEqual([text, null]);
      }
    });
  });

  describe('normalizeChannelSettings', () => {
    it('builds web widget settings: origins normalised and de-duplicated, colour upper-case', () => {
      expect(normalizeChannelSettings({ type: 'web_widget', allowedOrigins: ['https://A.com', 'https://a.com/'], welcomeMessage: ' Hi ', themeColor: '#1a73e8' }, 5)).toEqual({
        settings: { allowedOrigins: ['https://a.com'], welcomeMessage: 'Hi', themeColor: '#1A73E8' },
        problems: [],
      });
    });

    it('needs a corp for work_chat and origins for web_widget; refuses fields of other types', () => {
      expect(normalizeChannelSettings({ type: 'work_chat' }, 5).problems).toEqual([{ field: 'corpId', message: 'corpId is required for a work_chat channel.' }]);
      expect(normalizeChannelSettings({ type: 'work_chat', corpId: CORP }, 5)).toEqual({ settings: {}, problems: [] });
      expect(normalizeChannelSettings({ type: 'web_widget' }, 5).problems).toEqual([{ field: 'allowedOrigins', message: 'allowedOrigins is required for a web_widget channel.' }]);
      expect(normalizeChannelSettings({ type: 'api', corpId: CORP, themeColor: '#000000', secret: 'x'.repeat(16) }, 5).problems).toEqual([
        { field: 'corpId', message: 'corpId does not apply to an api channel.' },
        { field: 'themeColor', message: 'themeColor does not apply to an api channel.' },
      ]);
      expect(normalizeChannelSettings({ type: 'web_widget', allowedOrigins: ['https://a.com'], secret: 'x'.repeat(16) }, 5).problems).toEqual([
        { field: 'secret', message: 'secret does not apply to a web_widget channel.' },
      ]);
    });

    it('names each bad origin by index and enforces the origin cap after de-duplication', () => {
      expect(normalizeChannelSettings({ type: 'web_widget', allowedOrigins: ['https://ok.com', 'http://bad.com'] }, 5).problems).toEqual([
        { field: 'allowedOrigins[1]', message: '"http://bad.com" is not an origin: use https://host[:port] (http only for localhost), without path, query or credentials.' },
      ]);
      expect(normalizeChannelSettings({ type: 'web_widget', allowedOrigins: ['https://a.com', 'https://A.com'] }, 1).problems).toEqual([]);
      expect(normalizeChannelSettings({ type: 'web_widget', allowedOrigins: ['https://a.com', 'https://b.com'] }, 1).problems).toEqual([
        { field: 'allowedOrigins', message: 'allowedOrigins has 2 origins; at most 1 are allowed (CHAT_CHANNEL_MAX_ALLOWED_ORIGINS).' },
      ]);
    });
  });
});
