import { createHash } from 'node:crypto';

/** The part of a plan entry the fingerprint covers: which scenario, at which version. */
export interface FingerprintedEntry {
  scenarioId: string;
  scenarioVersion: number;
}

/**
 * The plan fingerprint (evaluation-platform.md, Resources: Campaign; cycle comparison pairs campaigns by it):
 * SHA-256, lower-case hex (64 chars), of the plan normalised as `[[scenarioId, version], …]` sorted by scenario id
 * (lower-cased) then version. Entry order and snapshot fields (names, repeat counts) do not change it; a different
 * scenario version does. Repeated entries count: a plan that runs a scenario twice differs from one that runs it once.
 */
export function planFingerprint(entries: readonly FingerprintedEntry[]): string {
  const normalised = entries
    .map((entry) => [entry.scenarioId.toLowerCase(), entry.scenarioVersion] as const)
    .sort(([idA, versionA], [idB, versionB]) => (idA < idB ? -1 : idA > idB ? 1 : versionA - versionB));
  return createHash('sha256').update(JSON.stringify(normalised)).digest('hex');
}
