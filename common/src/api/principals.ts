/**
 * Users and groups (principals) as TSQ reads them from either generation: v1's `user/list`
 * (`parsePrincipals`) and REST API v2's `users/search` and `groups/search` (`principalsOfV2`).
 * Pure: no I/O.
 */
import { recordOr, isRecord, memberOf } from '../guards';

/** A user or group of `user/list` (docs/service-interface.md §4.2 catalogued; shape from the service, docs/service-notes.md), or of v2's `users/search`/`groups/search` (OpenAPI `User`, `UserGroupResponse`). */
export interface Principal {
  id?: string;
  name: string;
  displayName?: string;
  /** 'USER' or 'GROUP' (what `principalTypeEnum` or `type` says). */
  kind: 'USER' | 'GROUP';
  /** Names of the groups this principal belongs to. */
  groupNames?: string[];
  /** For groups, its privileges when the service lists them. */
  privileges?: string[];
}

/**
 * Users and groups from a `user/list` answer (docs/service-interface.md §4.2: "all users, groups and their
 * inter-dependencies"; shape not shown). Accepts an array of principals or an object holding arrays
 * (`users`/`groups`/`principals`); a principal's kind comes from `principalTypeEnum` (LOCAL_USER,
 * LOCAL_GROUP, …), `type` or the list it came from.
 */
export function parsePrincipals(value: unknown): Principal[] {
  const out: Principal[] = [];
  const add = (entry: unknown, hint?: 'USER' | 'GROUP') => {
    if (!isRecord(entry)) return;
    const e = entry;
    const header = recordOr(e.header);
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
    if (Array.isArray(groups)) p.groupNames = groups.map((g) => (typeof g === 'string' ? g : String(memberOf(g, 'name') ?? ''))).filter(Boolean);
    if (Array.isArray(e.privileges)) p.privileges = e.privileges.map(String);
    out.push(p);
  };
  if (Array.isArray(value)) for (const e of value) add(e);
  else if (isRecord(value)) {
    const v = value;
    for (const [key, hint] of [['users', 'USER'], ['groups', 'GROUP'], ['principals', undefined]] as const) {
      const list: unknown = v[key];
      if (Array.isArray(list)) for (const e of list) add(e, hint);
    }
  }
  return out;
}

/**
 * Principals from REST API v2's `users/search` (OpenAPI `User`: `id`, `name`, `display_name`,
 * `user_groups` of `{id, name}`, `privileges`) and `groups/search` (`UserGroupResponse`: `id`, `name`,
 * `display_name`, `privileges`), groups first as `user/list` gives them. Entries without a name are left out.
 */
export function principalsOfV2(users: unknown, groups: unknown): Principal[] {
  const out: Principal[] = [];
  const each = (list: unknown, kind: 'USER' | 'GROUP') => {
    if (!Array.isArray(list)) return;
    for (const entry of list) {
      if (!isRecord(entry)) continue;
      const e = entry;
      if (typeof e.name !== 'string' || !e.name) continue;
      const p: Principal = { name: e.name, kind };
      if (typeof e.id === 'string') p.id = e.id;
      if (typeof e.display_name === 'string') p.displayName = e.display_name;
      if (kind === 'USER' && Array.isArray(e.user_groups)) p.groupNames = e.user_groups.map((g) => String(memberOf(g, 'name') ?? '')).filter(Boolean);
      if (Array.isArray(e.privileges)) p.privileges = e.privileges.map(String);
      out.push(p);
    }
  };
  each(groups, 'GROUP');
  each(users, 'USER');
  return out;
}
