/**
 * Formatting of the request log line of the `TSQ` output channel. Pure (no `vscode`).
 *
 * A line gives the method, the path, the status and the time in ms, and never a secret: query
 * parameters whose names suggest a credential are masked, and nothing else of the request is logged
 * (no body, no header, no cookie).
 */

/** One finished request, as `AnalyticsServiceClient`'s `onRequest` reports it. `status` is 0 for a network failure. */
export interface RequestRecord {
  method: string;
  path: string;
  status: number;
  /** Duration in milliseconds. */
  ms: number;
}

const SENSITIVE = /pass|secret|token|cookie|session|auth/i;

/** The path with the values of credential-like query parameters replaced by `***`. */
export function redactPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = path.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && SENSITIVE.test(decodeURIComponent(name)) ? `${name}=***` : pair;
  });
  return `${path.slice(0, q)}?${params.join('&')}`;
}

/** `POST /callosum/v1/tspublic/v1/session/login 204 12ms` */
export function formatRequest(r: RequestRecord): string {
  return `${r.method.toUpperCase()} ${redactPath(r.path)} ${r.status || 'ERR'} ${Math.round(r.ms)}ms`;
}
