/**
 * `ServiceApi` (service.ts) over `client/src/api`'s `AnalyticsServiceClient`: one client per connection,
 * its password read from a callback at each login (SecretStorage in the extension), every request
 * reported to `onRequest` for the `TSQ` log. No `vscode` here.
 */
import { AnalyticsServiceClient, type RequestLogInfo } from './api';
import type { ListHeadersParams, ObjectHeader, Principal, ServiceApi, TableDetails } from './service';

/** Connection settings the adapter needs (a `tsq.connections` entry). */
export interface ServiceConnection {
  url: string;
  loadUrl?: string;
  username: string;
  caFile?: string;
  rejectUnauthorized?: boolean;
}

/** A `ServiceApi` that also gives the underlying client (for Run query and Load CSV, which use it directly). */
export interface Service extends ServiceApi {
  readonly client: AnalyticsServiceClient;
}

/**
 * Builds the service of one connection.
 * @throws TypeError when the URL is not an absolute http(s) URL.
 */
export function createService(conn: ServiceConnection, getPassword: () => string | Promise<string>, onRequest?: (r: RequestLogInfo) => void): Service {
  const client = new AnalyticsServiceClient({
    url: conn.url,
    loadUrl: conn.loadUrl || undefined,
    username: conn.username,
    getPassword,
    caFile: conn.caFile || undefined,
    rejectUnauthorized: conn.rejectUnauthorized,
    onRequest,
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
    listObjectHeaders: (p: ListHeadersParams) => client.listObjectHeaders(p) as Promise<ObjectHeader[]>,
    tableDetails: async (ids: string[]) => (await client.metadataDetails('LOGICAL_TABLE', ids)).storables as TableDetails[],
    listVizHeaders: (id: string) => client.listVizHeaders(id) as Promise<ObjectHeader[]>,
    searchData: (p) => client.searchData({ ...p, formatType: 'COMPACT' }) as Promise<{ columnNames: string[]; data: unknown[][] }>,
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

/**
 * Users and groups from a `user/list` answer (seed 4.2: "all users, groups and their
 * inter-dependencies"; shape not shown). Accepts an array of principals or an object holding arrays
 * (`users`/`groups`/`principals`); a principal's kind comes from `principalTypeEnum` (LOCAL_USER,
 * LOCAL_GROUP, …), `type` or the list it came from.
 */
export function parsePrincipals(value: unknown): Principal[] {
  const out: Principal[] = [];
  const add = (entry: unknown, hint?: 'USER' | 'GROUP') => {
    if (!entry || typeof entry !== 'object') return;
    const e = entry as Record<string, unknown>;
    const header = (e.header && typeof e.header === 'object' ? e.header : {}) as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name : typeof header.name === 'string' ? header.name : undefined;
    if (!name) return;
    const typeText = String(e.principalTypeEnum ?? e.principalType ?? e.type ?? header.type ?? '').toUpperCase();
    const kind: 'USER' | 'GROUP' | undefined = typeText.includes('GROUP') ? 'GROUP' : typeText.includes('USER') ? 'USER' : hint;
    if (!kind) return;
    const p: Principal = { name, kind };
    const id = e.id ?? header.id;
    if (typeof id === 'string') p.id = id;
    const displayName = e.displayName ?? header.displayName;
    if (typeof displayName === 'string') p.displayName = displayName;
    const groups = e.groupNames ?? e.groups;
    if (Array.isArray(groups)) p.groupNames = groups.map((g) => (typeof g === 'string' ? g : String((g as { name?: unknown })?.name ?? ''))).filter(Boolean);
    if (Array.isArray(e.privileges)) p.privileges = e.privileges.map(String);
    out.push(p);
  };
  if (Array.isArray(value)) for (const e of value) add(e);
  else if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    for (const [key, hint] of [['users', 'USER'], ['groups', 'GROUP'], ['principals', undefined]] as const) {
      if (Array.isArray(v[key])) for (const e of v[key] as unknown[]) add(e, hint);
    }
  }
  return out;
}
