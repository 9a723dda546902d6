const SECRET_NAME = '[A-Za-z0-9_-]*(?:PASS(?:WORD)?|PASSWD|SECRET|TOKEN|API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|CREDENTIALS?)';

const PATTERNS: RegExp[] = [
  // NAME=value and --name=value / --name value with a secret-looking name
  new RegExp(`((?:^|[\\s;&|(])(?:--?)?${SECRET_NAME}(?:=|\\s+))("[^"]*"|'[^']*'|[^\\s;&|]+)()`, 'gi'),
  // Authorization headers: -H "Authorization: Bearer x"
  /(authorization:\s*(?:bearer|basic|token)?\s*)([^\s"']+)()/gi,
  // user:password@ in URLs
  /(\/\/[^\s:/@]+:)([^\s@/]+)(@)/g,
  // our own tokens anywhere
  /()(atr_[0-9a-f]{8}_[A-Za-z0-9_-]{43})()/g,
];

/**
 * Masks values that look secret in a command before it is stored in the audit log (deployment-gateway.md,
 * Events; "nothing secret is stored"): `API_KEY=…`, `--password …`, `Authorization: Bearer …`, `user:pass@`
 * in URLs and Atrium agent tokens become `***`.
 */
export function maskSecrets(command: string): string {
  let masked = command;
  for (const pattern of PATTERNS) {
    masked = masked.replace(pattern, (_match, before: string, _secret: string, after: string) => `${before}***${after}`);
  }
  return masked;
}
