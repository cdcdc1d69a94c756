/**
 * `ServiceApi` (service.ts) over `common/src/api`'s `AnalyticsServiceClient`: one client per connection,
 * its password read from a callback at each login (SecretStorage in the extension), every request
 * reported to `onRequest` for the `TSQ` log. No `vscode` here.
 */
import { AnalyticsServiceClient, FACADE_OPERATIONS, type BearerOptions, type HttpTimeouts, type RequestLogInfo } from '../../common/src/api';
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import type { ServiceApi } from './service';

/** A `ServiceApi` that also gives the underlying client (for Run query and Load CSV, which use it directly). */
export interface Service extends ServiceApi {
  readonly client: AnalyticsServiceClient;
}

/**
 * Builds the service of one connection. `timeouts` are the deadlines of its calls in seconds (read at
 * each call, so a live object can change them; see client/src/httpSettings.ts).
 * @throws TypeError when the URL is not an absolute http(s) URL.
 */
export function createService(conn: Omit<ConnectionSettings, 'name' | 'passwordCommand'>, getPassword: () => string | Promise<string>, onRequest?: (r: RequestLogInfo) => void, timeouts?: HttpTimeouts, bearer?: BearerOptions): Service {
  const client = new AnalyticsServiceClient({
    url: conn.url,
    loadUrl: conn.loadUrl || undefined,
    username: conn.username,
    getPassword,
    caFile: conn.caFile || undefined,
    rejectUnauthorized: conn.rejectUnauthorized,
    // hosts a StartLoad node_address may move the load login to: a user-level entry's (common/src/trust.ts drops a workspace's)
    loadNodes: Array.isArray(conn.loadNodes) ? conn.loadNodes.filter((h): h is string => typeof h === 'string' && !!h.trim()) : undefined,
    ignoreNodeRedirect: conn.ignoreNodeRedirect === true,
    apiVersion: conn.apiVersion ?? 'auto',
    // the Org every call runs in (TSQ: Switch Org…, or the connection's `org`); absent: the user's own
    ...(String(conn.org ?? '').trim() ? { org: String(conn.org).trim() } : {}),
    bearer,
    onRequest,
    timeouts,
  });
  const service: Record<string, unknown> = {
    client,
    login: () => client.login(),
    logout: async () => {
      try {
        await client.close();
      } catch {
        // never rejects
      }
    },
  };
  // every operation of the table, bound to the client under its one name
  for (const name of FACADE_OPERATIONS) service[name] = (client[name] as (...args: unknown[]) => unknown).bind(client);
  return service as unknown as Service;
}
