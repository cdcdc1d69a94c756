/**
 * Stable GUIDs for the emulator's metadata objects. A GUID is derived from the object's kind and names
 * (SHA-1, laid out like an RFC 4122 version-5 UUID), so the same seed gives the same GUIDs on every start
 * and a user's `.tsq` files that name a data source by GUID keep working across restarts.
 */
import { createHash } from 'node:crypto';

/**
 * Derives a GUID from a kind (`table`, `column`, `worksheet`, …) and the names that identify the object.
 * Names are compared case-insensitively by the service (docs/service-interface.md §8.2), so they are lower-cased first.
 * @returns a lower-case UUID string such as `1b4e28ba-2fa1-51d2-883f-0016d3cca427`.
 */
export function stableGuid(kind: string, ...names: string[]): string {
  const h = createHash('sha1').update(['tsq-emulator', kind, ...names.map((n) => n.toLowerCase())].join('\u0000')).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** True when `s` looks like a GUID (8-4-4-4-12 hex digits). */
export function isGuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}
