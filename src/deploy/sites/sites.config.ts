import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsUrl, Matches, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig, toFlag } from '../../config/config-variable';

const SITES = 'Deploy sites and uploads';
const DOCS = 'API documentation';

/**
 * Where published sites are served and what the API origin keeps in the browser (issue 12 item 4): sites on an
 * opaque origin (CSP sandbox) or on the operator's own host, and Swagger UI persisting credentials only on request.
 */
export class SiteServingVariables {
  @ConfigVariable({
    group: SITES,
    description:
      'origin (scheme://host[:port], no path) the operator serves sites from, e.g. `https://sites.example.com`. Set: site URLs use it, Atrium serves sites only to requests for that host (proxy it to Atrium, or serve DEPLOY_SITES_DIR yourself with the same CSP), answers 404 to everything else there, and the API origin no longer serves sites. Unset: sites are served on the API origin under `Content-Security-Policy: sandbox` (an opaque origin)',
    unit: 'url',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }) @Matches(/^https?:\/\/[^/?#]+\/?$/, { message: 'DEPLOY_SITES_ORIGIN must be an origin: scheme://host[:port], no path' })
  DEPLOY_SITES_ORIGIN?: string;

  @ConfigVariable({
    group: SITES,
    description:
      'bytes of small site files (index.html, scripts, styles) kept in memory, least recently used dropped first; each use still checks the file on disk, so a deleted site is never served from memory. 0: every file is read from disk. Not used with STORAGE_DRIVER=s3',
    unit: 'bytes',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(4 * 1024 * 1024 * 1024)
  DEPLOY_SITES_MEMORY_CACHE_BYTES: number = 32 * 1024 * 1024;

  @ConfigVariable({ group: SITES, description: 'largest site file kept in memory (see DEPLOY_SITES_MEMORY_CACHE_BYTES); larger ones are always streamed from disk', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(64 * 1024 * 1024)
  DEPLOY_SITES_MEMORY_CACHE_FILE_BYTES: number = 64 * 1024;

  @ConfigVariable({
    group: DOCS,
    description: 'let Swagger UI (/docs) keep the credentials entered under "Authorize" in the browser\'s localStorage across reloads. Off by default: any script that ever runs on the API origin could read them',
    unit: 'flag',
  })
  @IsOptional() @Transform(toFlag) @IsBoolean()
  DOCS_PERSIST_AUTHORIZATION: boolean = false;
}

/**
 * The sites' slice of AppConfig: `deploySites.origin` (no trailing slash, or undefined), `deploySites.memoryCache`
 * (`maxBytes`, `maxFileBytes`) and `docs.persistAuthorization`.
 */
export const siteServingConfig = declareConfig({
  wing: 'deploy',
  variables: SiteServingVariables,
  resolve: (vars) => ({
    deploySites: {
      origin: vars.DEPLOY_SITES_ORIGIN?.replace(/\/+$/, ''),
      memoryCache: { maxBytes: vars.DEPLOY_SITES_MEMORY_CACHE_BYTES, maxFileBytes: vars.DEPLOY_SITES_MEMORY_CACHE_FILE_BYTES },
    },
    docs: { persistAuthorization: vars.DOCS_PERSIST_AUTHORIZATION },
  }),
});

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppConfig extends ReturnType<typeof siteServingConfig.resolve> {}
}

/**
 * Why DEPLOY_SITES_ORIGIN can't be used with this DEPLOY_PUBLIC_URL: on the API's own host, that host would serve
 * sites only and the API would be unreachable. Checked at start (app.setup.ts).
 * @returns the problem line (`DEPLOY_SITES_ORIGIN: …`), or undefined when the pair is fine or no sites origin is set
 */
export function sitesOriginProblem(sitesOrigin: string | undefined, publicUrl: string): string | undefined {
  if (!sitesOrigin) return undefined;
  const sitesHost = new URL(sitesOrigin).hostname.toLowerCase();
  if (sitesHost === new URL(publicUrl).hostname.toLowerCase()) {
    return `DEPLOY_SITES_ORIGIN: must be another host than DEPLOY_PUBLIC_URL's (${sitesHost} would serve sites only)`;
  }
  return undefined;
}

/**
 * Base of the URLs of published sites: DEPLOY_SITES_ORIGIN when set, else DEPLOY_PUBLIC_URL.
 * @returns e.g. `https://sites.example.com`, without a trailing slash
 */
export function sitesBaseUrl(config: { deploy: { publicUrl: string }; deploySites: { origin?: string } }): string {
  return config.deploySites.origin ?? config.deploy.publicUrl;
}
