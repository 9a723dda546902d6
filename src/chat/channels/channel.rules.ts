import type { FieldProblem } from '../conversation-groups/id-lists';
import type { ChannelSettings, ChannelType } from './chat-channel.entity';

/** The type-specific fields of a channel request. */
export interface ChannelSettingsInput {
  type: ChannelType;
  corpId?: string;
  allowedOrigins?: string[];
  welcomeMessage?: string;
  themeColor?: string;
  secret?: string;
}

type SettingsField = 'corpId' | 'allowedOrigins' | 'welcomeMessage' | 'themeColor' | 'secret';

/**
 * Which fields each channel type needs (`required`) or may have (`optional`); all others are refused. An `api`
 * channel's secret is required when it is created, and may be omitted on update to keep it (the service checks).
 */
const FIELDS_BY_TYPE: Record<ChannelType, { required: SettingsField[]; optional: SettingsField[] }> = {
  work_chat: { required: ['corpId'], optional: [] },
  web_widget: { required: ['allowedOrigins'], optional: ['welcomeMessage', 'themeColor'] },
  api: { required: [], optional: ['secret'] },
};

const SETTINGS_FIELDS: SettingsField[] = ['corpId', 'allowedOrigins', 'welcomeMessage', 'themeColor', 'secret'];

/** Host names a page may be served from over plain http (development). */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Normalises a web origin as browsers send it in the `Origin` header: `scheme://host[:port]`, lower-case, default
 * port dropped. Only https, or http on localhost; no credentials, path, query or fragment.
 * @returns the origin, or null when `text` is not one
 */
export function normalizeOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname))) return url.origin.toLowerCase();
  return null;
}

/**
 * Checks a channel's type-specific fields and builds the settings to store: a `work_chat` channel names its corp;
 * a `web_widget` channel lists 1..`maxOrigins` allowed origins (normalised, duplicates dropped) and may have a
 * welcome message and a `#RRGGBB` theme colour (stored upper-case); an `api` channel may carry its signing secret.
 * @param maxOrigins most allowed origins (CHAT_CHANNEL_MAX_ALLOWED_ORIGINS)
 * @returns the settings to store and every problem (empty when valid)
 */
export function normalizeChannelSettings(input: ChannelSettingsInput, maxOrigins: number): { settings: ChannelSettings; problems: FieldProblem[] } {
  const rule = FIELDS_BY_TYPE[input.type];
  const problems: FieldProblem[] = [];
  for (const field of SETTINGS_FIELDS) {
    const value = input[field];
    const given = value !== undefined && value !== null;
    if (rule.required.includes(field) && !given) problems.push({ field, message: `${field} is required for ${article(input.type)} ${input.type} channel.` });
    else if (given && !rule.required.includes(field) && !rule.optional.includes(field)) problems.push({ field, message: `${field} does not apply to ${article(input.type)} ${input.type} channel.` });
  }
  const settings: ChannelSettings = {};
  if (input.type === 'web_widget') {
    if (input.allowedOrigins) {
      const origins: string[] = [];
      input.allowedOrigins.forEach((text, index) => {
        const origin = normalizeOrigin(text);
        if (!origin) problems.push({ field: `allowedOrigins[${index}]`, message: `"${text}" is not an origin: use https://host[:port] (http only for localhost), without path, query or credentials.` });
        else if (!origins.includes(origin)) origins.push(origin);
      });
      if (origins.length > maxOrigins) problems.push({ field: 'allowedOrigins', message: `allowedOrigins has ${origins.length} origins; at most ${maxOrigins} are allowed (CHAT_CHANNEL_MAX_ALLOWED_ORIGINS).` });
      settings.allowedOrigins = origins;
    }
    if (input.welcomeMessage?.trim()) settings.welcomeMessage = input.welcomeMessage.trim();
    if (input.themeColor) settings.themeColor = input.themeColor.toUpperCase();
  }
  return { settings, problems };
}

/** "an" before "api", else "a". */
function article(type: ChannelType): string {
  return type === 'api' ? 'an' : 'a';
}
