/**
 * `ServiceApi` (service.ts) over `common/src/api`'s `AnalyticsServiceClient`: one client per connection,
 * its password read from a callback at each login (SecretStorage in the extension), every request
 * reported to `onRequest` for the `TSQ` log. No `vscode` here.
 */
import { AnalyticsServiceClient, type BearerOptions, type HttpTimeouts, type RequestLogInfo } from '../../common/src/api';
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import { parsePrincipals } from './principals';
import type { ListHeadersParams, ServiceApi } from './service';

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
    bearer,
    onRequest,
    timeouts,
  });
  return {
    client,
    login: () => client.login(),
    logout: async () => {
      try {
        await client.close();
      } catch {
        // never rejects
      }
    },
    listObjectHeaders: (p: ListHeadersParams) => client.listObjectHeaders(p),
    tableDetails: async (ids: string[]) => (await client.metadataDetails('LOGICAL_TABLE', ids)).storables,
    listVizHeaders: (id: string) => client.listVizHeaders(id),
    searchData: (p) => client.searchData({ ...p, formatType: 'COMPACT' }),
    listPrincipals: async () => parsePrincipals(await client.listUsers()),
    updatePassword: (p) => client.updatePassword(p),
    transferOwnership: (p) => client.transferOwnership(p),
    addGroupPrivilege: (p) => client.addPrivilege({ privilege: p.privilege, groupNames: [p.groupName] }),
    removeGroupPrivilege: (p) => client.removePrivilege({ privilege: p.privilege, groupNames: [p.groupName] }),
    syncPrincipals: (p) => client.syncUsers(p),
    refreshMaterializedView: async (id: string) => {
      await client.refreshView(id);
    },
  };
}
