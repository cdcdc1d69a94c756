/**
 * The cookie jar of one HTTP session (one origin): keeps the cookies a response sets and gives the
 * `Cookie` header of the next request. Set-Cookie lines are parsed by undici (`parseCookie`); the jar
 * applies the storage and retrieval rules of RFC 6265 (https://www.rfc-editor.org/rfc/rfc6265#section-5.3)
 * that matter for one origin: Max-Age wins over Expires, an expired cookie is dropped, a cookie is sent
 * only to the paths its Path covers (default: the directory of the request that set it), and one name
 * under two paths is two cookies, the longer path sent first.
 * The Domain attribute is not needed: a jar serves one origin, and its cookies are host-only.
 */
import { parseCookie } from 'undici';

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  /** Epoch milliseconds after which the cookie is gone; undefined: until the session ends. */
  expiresAt: number | undefined;
}

/** RFC 6265 §5.1.4: the default path of a cookie set in answer to a request for `requestPath`. */
export function defaultCookiePath(requestPath: string): string {
  const path = requestPath.split('?', 1)[0];
  if (!path.startsWith('/')) return '/';
  const last = path.lastIndexOf('/');
  return last <= 0 ? '/' : path.slice(0, last);
}

/** RFC 6265 §5.1.4: whether a request for `requestPath` gets a cookie of `cookiePath`. */
export function pathMatches(requestPath: string, cookiePath: string): boolean {
  const path = requestPath.split('?', 1)[0] || '/';
  if (path === cookiePath) return true;
  if (!path.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || path[cookiePath.length] === '/';
}

export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  /** @param now the clock, epoch milliseconds (tests pass their own). */
  constructor(private readonly now: () => number = Date.now) {}

  /** Number of cookies held, expired ones included until the next `header()`. */
  get size(): number {
    return this.cookies.size;
  }

  /**
   * Keeps the cookies of a response's `Set-Cookie` header lines, received for a request to
   * `requestPath` (a path, with or without a query string). A line that undici cannot parse, or without
   * a name, is ignored; a cookie whose Max-Age is 0 or less, or whose Expires is past, removes the stored
   * one of the same name and path.
   */
  store(setCookie: string | string[] | undefined, requestPath: string): void {
    if (!setCookie) return;
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const c = parseCookie(line);
      if (!c || !c.name) continue;
      const path = c.path?.startsWith('/') ? c.path : defaultCookiePath(requestPath);
      const key = `${path}\u0000${c.name}`;
      const expiresAt = c.maxAge !== undefined ? this.now() + c.maxAge * 1000 : c.expires !== undefined ? new Date(c.expires).getTime() : undefined;
      if (expiresAt !== undefined && (Number.isNaN(expiresAt) || expiresAt <= this.now())) {
        this.cookies.delete(key);
        continue;
      }
      this.cookies.set(key, { name: c.name, value: c.value, path, expiresAt });
    }
  }

  /** The `Cookie` header for a request to `requestPath`, or undefined when no cookie applies. */
  header(requestPath: string): string | undefined {
    const now = this.now();
    const sent: StoredCookie[] = [];
    for (const [key, c] of this.cookies) {
      if (c.expiresAt !== undefined && c.expiresAt <= now) this.cookies.delete(key);
      else if (pathMatches(requestPath, c.path)) sent.push(c);
    }
    if (sent.length === 0) return undefined;
    // longer paths first (RFC 6265 §5.4 step 2); the sort is stable: among equal paths, the order they were first set
    sent.sort((a, b) => b.path.length - a.path.length);
    return sent.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  /** The values of the cookies held (a session cookie is a credential: for redaction, never for a request). */
  values(): string[] {
    return [...this.cookies.values()].map((c) => c.value);
  }

  /** Drops every cookie. */
  clear(): void {
    this.cookies.clear();
  }
}
