import { loadConfig } from '../../app.config';
import { ConfigurationError } from '../../config/app-config';

describe('chat platform configuration (CHAT_PLATFORM_* variables)', () => {
  it('defaults to the simulator with QR URLs under the app', () => {
    expect(loadConfig({ PORT: '4000' }).chatPlatform).toEqual({
      mode: 'simulator',
      baseUrl: undefined,
      timeoutMs: 10_000,
      retries: 2,
      retryBaseDelayMs: 200,
      retryMaxDelayMs: 5_000,
      tokenRefreshMarginMs: 300_000,
      simulatorQrBaseUrl: 'http://localhost:4000/api/chat-simulator/qr',
    });
  });

  it('reads the HTTP adapter settings and trims trailing slashes', () => {
    const config = loadConfig({
      CHAT_PLATFORM_MODE: 'http',
      CHAT_PLATFORM_BASE_URL: 'https://platform.example.com/',
      CHAT_PLATFORM_HTTP_TIMEOUT_MS: '2500',
      CHAT_PLATFORM_HTTP_RETRIES: '0',
      CHAT_SIMULATOR_QR_BASE_URL: 'https://demo.example.com/qr//',
    }).chatPlatform;
    expect([config.mode, config.baseUrl, config.timeoutMs, config.retries, config.simulatorQrBaseUrl]).toEqual(['http', 'https://platform.example.com', 2500, 0, 'https://demo.example.com/qr']);
  });

  it('refuses http mode without a base URL, an unknown mode and too many retries', () => {
    expect(() => loadConfig({ CHAT_PLATFORM_MODE: 'http' })).toThrow(new ConfigurationError('Invalid configuration:\n  CHAT_PLATFORM_BASE_URL: required when CHAT_PLATFORM_MODE is http'));
    expect(() => loadConfig({ CHAT_PLATFORM_MODE: 'wecom' })).toThrow(/CHAT_PLATFORM_MODE/);
    expect(() => loadConfig({ CHAT_PLATFORM_HTTP_RETRIES: '11' })).toThrow(/CHAT_PLATFORM_HTTP_RETRIES/);
    expect(() => loadConfig({ CHAT_PLATFORM_BASE_URL: 'ftp://platform' })).toThrow(/CHAT_PLATFORM_BASE_URL/);
  });
});
