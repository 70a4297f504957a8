/**
 * The `Deprecation` response header (RFC 9745) sent when a request used a legacy permission name.
 */

/** 2025-01-01T00:00:00Z, from when release 3.0 treats the legacy names as deprecated. */
const LEGACY_NAMES_DEPRECATED_AT = '@1735689600';

/** Headers to add to a response: `Deprecation` when `usedLegacyNames`. */
export function deprecationHeaders(usedLegacyNames: boolean): Record<string, string> {
  return usedLegacyNames ? { deprecation: LEGACY_NAMES_DEPRECATED_AT } : {};
}
