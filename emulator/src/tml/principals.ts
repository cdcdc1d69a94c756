/**
 * The TML of users and groups, one place for both ways the service exports it: the batched export
 * (`metadata/tml/export/batch`, v2/tmlAsync.ts) and the per-object export (`metadata/tml/export` with
 * a user's or group's GUID, or v2 type `USER` / `USER_GROUP`: OpenAPI `ExportMetadataTypeInput`). The
 * document prints no user or group TML; the shape is the emulator's reading (docs/service-notes.md,
 * "Async TML import"). Only the caller's Org is looked in, and only an administrator gets an answer.
 */
import { stringify as toYaml } from 'yaml';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import type { MetadataStore } from '../metadataStore';

/** A user (`USER`) or a group (`USER_GROUP`), as the v2 type names them. */
export type PrincipalTmlType = 'USER' | 'USER_GROUP';

/** One exported principal, as `metadata/tml/export` answers an object: `{info, edoc}`. */
export interface ExportedPrincipal {
  info: { id: string; name: string; filename: string; type: 'user' | 'group'; status: { status_code: 'OK' } };
  edoc: string;
}

/** The TML document of a user or a group of the store (`kind` says which `id` is). */
function principalDoc(catalog: MetadataStore, kind: PrincipalTmlType, id: string): Record<string, unknown> {
  const st = catalog.state;
  const nameOf = (gid: string): { name: string } => ({ name: st.groups.find((g) => g.id === gid)?.name ?? gid });
  if (kind === 'USER') {
    const u = st.users.find((x) => x.id === id)!;
    return { guid: u.id, user: { name: u.name, display_name: u.displayName, ...(u.mail ? { email: u.mail } : {}), account_type: 'LOCAL_USER', account_status: 'ACTIVE', visibility: u.visibility ?? 'SHARABLE', user_groups: u.groups.map(nameOf) } };
  }
  const g = st.groups.find((x) => x.id === id)!;
  return { guid: g.id, group: { name: g.name, display_name: g.displayName, ...(g.description !== undefined ? { description: g.description } : {}), visibility: g.visibility ?? 'SHARABLE', type: 'LOCAL_GROUP', privileges: [...g.privileges], sub_groups: (g.subGroups ?? []).map(nameOf) } };
}

/** The principals of `kind` in the caller's Org, in the store's order. */
export function principalsInOrg(catalog: MetadataStore, user: EmulatorUser, kind: PrincipalTmlType): { id: string; name: string }[] {
  return kind === 'USER' ? catalog.usersIn(user.orgId) : catalog.groupsIn(user.orgId);
}

/** The export of one principal of `kind` with `id` (it must exist), its TML in `format`. */
export function exportPrincipal(catalog: MetadataStore, kind: PrincipalTmlType, p: { id: string; name: string }, format: 'JSON' | 'YAML'): ExportedPrincipal {
  const doc = principalDoc(catalog, kind, p.id);
  const type = kind === 'USER' ? 'user' : 'group';
  return { info: { id: p.id, name: p.name, filename: `${p.name}.${type}.tml`, type, status: { status_code: 'OK' } }, edoc: format === 'JSON' ? JSON.stringify(doc) : toYaml(doc) };
}

/**
 * The user or group of the caller's Org that `identifier` names (a GUID; with `type`, a name too), as a
 * per-object export answers it; undefined when there is none (the caller says so).
 * @throws ApiError 403 for a caller without ADMINISTRATION
 */
export function findPrincipalExport(catalog: MetadataStore, user: EmulatorUser, identifier: string, type: string | undefined, format: 'JSON' | 'YAML'): ExportedPrincipal | undefined {
  const key = identifier.toLowerCase();
  for (const kind of ['USER', 'USER_GROUP'] as const) {
    if (type !== undefined && type !== kind) continue;
    const hit = principalsInOrg(catalog, user, kind).find((p) => p.id.toLowerCase() === key || (type !== undefined && p.name.toLowerCase() === key));
    if (!hit) continue;
    if (!user.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
    return exportPrincipal(catalog, kind, hit, format);
  }
  return undefined;
}
