/** Protocol revisions that open with an `initialize` handshake, newest first. */
export const LEGACY_PROTOCOL_VERSIONS = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
] as const;
/** Protocol revisions that carry version and capabilities on every request, newest first. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

export type LegacyProtocolVersion = (typeof LEGACY_PROTOCOL_VERSIONS)[number];
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];
export type ProtocolVersion = LegacyProtocolVersion | ModernProtocolVersion;

/**
 * The two eras of MCP. `legacy`: an `initialize` handshake opens a session (2024-11-05 to
 * 2025-11-25). `modern`: stateless, every request carries its version and the client's
 * capabilities in `_meta` (2026-07-28 on).
 */
export type ProtocolEra = 'legacy' | 'modern';

export const LATEST_LEGACY_PROTOCOL_VERSION: LegacyProtocolVersion = LEGACY_PROTOCOL_VERSIONS[0];
export const LATEST_MODERN_PROTOCOL_VERSION: ModernProtocolVersion = MODERN_PROTOCOL_VERSIONS[0];

/** The era of a version string, or undefined for a version this library does not speak. */
export function eraOf(version: string): ProtocolEra | undefined {
  if ((MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return 'modern';
  if ((LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return 'legacy';
  return undefined;
}

/** The newest of `ours` that `theirs` also lists, or undefined when there is none. */
export function pickMutualVersion(
  ours: readonly string[],
  theirs: readonly unknown[],
): string | undefined {
  return ours.find((version) => theirs.includes(version));
}
