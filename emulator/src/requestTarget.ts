/**
 * What the emulator decides from a request's target and `Host` header before any route runs: the one
 * normalisation of the target that the router and every switch that looks at the path share
 * (`normaliseRequestTarget`, installed as Fastify's `rewriteUrl` by app.ts), and the DNS-rebinding
 * defence of a loopback listener (`hostAllowed`, which app.ts's `refuseForeignHosts` applies).
 */
import { isIP } from 'node:net';

/** A request target split by `normaliseRequestTarget`. */
export interface NormalisedTarget {
  /** Origin form (`/path?query`): what the router matches and `req.url` holds from then on. */
  path: string;
  /** The authority of an absolute-form target (`http://AUTHORITY/path`), as sent; absent for origin form. */
  authority?: string;
}

/** Characters RFC 3986 §2.3 calls unreserved: a percent-encoding of one of them is the character itself (§6.2.2.2). */
const UNRESERVED = /^[A-Za-z0-9._~-]$/;
/** `http://` or `https://` and the authority of an absolute-form target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;

/**
 * The request target as the router matches it, so that the switches that look at the path
 * (`--rate-limit`, `--public-api`, the anonymous body limit, the load API's error shape) decide on the
 * same path as the route that answers:
 *
 * - an absolute-form target (`GET http://host:port/path?q`, RFC 9112 §3.2.2, which a server must accept)
 *   becomes its origin form `/path?q` (`/` when it has no path), and its authority is returned for the
 *   Host check; the router (find-my-way `getPathFromAbsoluteUrl`) would route it by that path anyway;
 * - in the path (up to the first `?` or `#`, where find-my-way ends it with `useSemicolonDelimiter` off),
 *   every percent-encoding of an unreserved character is decoded (RFC 3986 §6.2.2.2: `%2E` is `.`,
 *   `%76` is `v`), so `/api/rest/2%2E0/…` is `/api/rest/2.0/…`.
 *
 * Everything else stays as sent: reserved characters, `%25`, non-ASCII and broken escapes are the
 * router's to decode, once, as before (decoding them here would decode twice). Since every static part
 * of every route is made of unreserved characters, what the router decodes after this cannot change
 * which prefix a path has. The query is never touched.
 * @param url the raw request target (`IncomingMessage.url`).
 */
export function normaliseRequestTarget(url: string): NormalisedTarget {
  let path = url;
  let authority: string | undefined;
  const abs = url.startsWith('/') ? null : ABSOLUTE_FORM.exec(url);
  if (abs) {
    authority = abs[1]!;
    const rest = url.slice(abs[0].length);
    path = rest.startsWith('/') ? rest : `/${rest}`;
  }
  const end = path.search(/[?#]/);
  const head = end < 0 ? path : path.slice(0, end);
  const decoded = head.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : escape;
  });
  const normalised = end < 0 ? decoded : decoded + path.slice(end);
  return authority === undefined ? { path: normalised } : { path: normalised, authority };
}

/** The host part of a `Host` header or authority, lower case, IPv6 in brackets; undefined when it is not `host[:port]`. */
function hostPart(value: string): string | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]@\s/]+)(?::(\d{1,5}))?$/.exec(value);
  return m ? m[1]!.toLowerCase() : undefined;
}

/**
 * Whether a request addressed to `host` (its `Host` header, or the authority of an absolute-form
 * target) may be answered by an emulator listening on the loopback address `listenHost`: the host must
 * be `localhost`, `127.0.0.1`, `[::1]` or `listenHost` itself (case-insensitive), with any port or none.
 *
 * This is the defence against DNS rebinding: a web page at `http://rebind.attacker.example:8088/` whose
 * name later resolves to 127.0.0.1 reaches the emulator with `Host: rebind.attacker.example:8088`. The
 * port is not compared: a page cannot choose a port its own name does not carry, while a local proxy or
 * an SSH tunnel (`-L 9000:127.0.0.1:8088`) rightly arrives with another one. A request with no `Host`
 * (HTTP/1.0) cannot come from a browser and is allowed; an unbracketed IPv6 address, userinfo, an empty
 * or non-numeric port, and a trailing dot are not.
 * @param host the header's value, undefined when absent.
 * @param listenHost the address given to `listen` (`--host`), e.g. `127.0.0.1` or `::1`.
 */
export function hostAllowed(host: string | undefined, listenHost: string): boolean {
  if (host === undefined) return true;
  const name = hostPart(host);
  if (name === undefined) return false;
  const own = (isIP(listenHost) === 6 ? `[${listenHost}]` : listenHost).toLowerCase();
  return name === 'localhost' || name === '127.0.0.1' || name === '[::1]' || name === own;
}
