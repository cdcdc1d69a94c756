/**
 * REST API v2's users, groups and tags, and the administration operations, over the same users, groups
 * and objects as v1's administration routes (the same functions of emulator/src/public/admin.ts and
 * userSync.ts act on both, so a change through one generation is seen through the other). The routes
 * and their sources are on `registerAdminV2`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorUser } from '../context';
import { PRIVILEGES, type MetadataStore, type StoredGroup, type StoredUser } from '../metadataStore';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import { NamePattern } from '../public/headers';
import { changePassword, setGroupPrivileges, transferObjects } from '../public/admin';
import { checkSyncRequest, runSync, type Principal } from '../public/userSync';
import type { V2Deps } from './routes';
import { groupFilter, userFilter } from './searchFilters';
import { isOneOf, isRecord, recordOr } from '../../../common/src/guards';
import { pathParam } from '../public/params';
import { body, bool, int, str, stringList } from '../requestValues';

/** The sort fields of `SortOptions` (users, groups) and the extra ones of `MetadataSearchSortOptions`. */
export const SORT_FIELDS = ['NAME', 'DISPLAY_NAME', 'AUTHOR', 'CREATED', 'MODIFIED'] as const;

/** What a search entry is sorted by. */
export interface Sortable {
  name: string;
  displayName: string;
  authorName: string;
  created: number;
  modified: number;
  views?: number;
  favorites?: number;
  lastAccessed?: number;
}

/**
 * Sorts `rows` by `sort_options` (`field_name` one of `fields`, `order` ASC or DESC; names case-insensitive,
 * ties by name) and cuts the page of `record_offset`/`record_size`. Without `sort_options` the order is kept.
 * @throws ApiError 400 naming the member at fault
 */
export function sortAndPage<T extends { key: Sortable }>(rows: T[], b: Record<string, unknown>, fields: readonly string[]): T[] {
  const sort = b.sort_options ?? {};
  if (!isRecord(sort)) throw new ApiError(400, 'Invalid value for sort_options: expected {field_name, order}.');
  const s = sort;
  const field = s.field_name === undefined || s.field_name === null ? undefined : String(s.field_name).toUpperCase();
  const order = String(s.order ?? 'ASC').toUpperCase();
  if (order !== 'ASC' && order !== 'DESC') throw new ApiError(400, `Invalid value for sort_options.order: ${order} (ASC or DESC).`);
  if (field !== undefined && field !== 'DEFAULT' && !fields.includes(field)) throw new ApiError(400, `Invalid value for sort_options.field_name: ${field} (${fields.join(', ')}).`);
  let out = rows;
  if (field !== undefined && field !== 'DEFAULT') {
    const text = (k: Sortable): string | number => {
      switch (field) {
        case 'DISPLAY_NAME':
          return k.displayName.toLowerCase();
        case 'AUTHOR':
          return k.authorName.toLowerCase();
        case 'CREATED':
          return k.created;
        case 'MODIFIED':
          return k.modified;
        case 'VIEWS':
          return k.views ?? 0;
        case 'FAVORITES':
          return k.favorites ?? 0;
        case 'LAST_ACCESSED':
          return k.lastAccessed ?? 0;
        default:
          return k.name.toLowerCase();
      }
    };
    out = [...rows].sort((x, y) => {
      const a = text(x.key);
      const c = text(y.key);
      return a < c ? -1 : a > c ? 1 : x.key.name.localeCompare(y.key.name, 'en', { sensitivity: 'base' });
    });
    if (order === 'DESC') out.reverse();
  } else if (order === 'DESC') out = [...rows].reverse();
  const offset = int(b, 'record_offset', 0, 0);
  const size = int(b, 'record_size', 10, -1);
  if (size === 0) throw new ApiError(400, 'Invalid value for record_size: 0 (-1 for all records, or 1 or more).');
  return size === -1 ? out.slice(offset) : out.slice(offset, offset + size);
}

function requireAdmin(req: FastifyRequest): void {
  if (!req.v2User!.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
}

/**
 * The members a v2 user and a v2 group share (OpenAPI `User`, `UserGroupResponse`): names, the owner
 * (the principal itself; author and modifier the first administrator), times in epoch milliseconds,
 * the Orgs and the flags.
 */
function principalHeader(p: StoredUser | StoredGroup, catalog: MetadataStore): Record<string, unknown> {
  const admin = catalog.state.users[0];
  // a user's Orgs are `Org` (an integer id), a group's `UserGroup` (a string id), as the document types them
  const orgs = 'salt' in p ? catalog.orgsOfUser(p).map((id) => ({ id, name: catalog.org(id)?.name ?? String(id) })) : [{ id: String(catalog.orgOf(p)), name: catalog.org(catalog.orgOf(p))?.name ?? '' }];
  return {
    id: p.id,
    name: p.name,
    display_name: p.displayName,
    visibility: 'visibility' in p && p.visibility ? p.visibility : 'SHARABLE',
    author_id: admin?.id ?? p.id,
    owner_id: p.id,
    modifier_id: admin?.id ?? p.id,
    complete_detail: true,
    creation_time_in_millis: p.created,
    modification_time_in_millis: p.modified,
    orgs,
    deleted: false,
    deprecated: false,
    external: false,
    hidden: false,
  };
}


/**
 * Whether `caller` sees every member of the principal `id`: users/search and groups/search are "Available
 * to all users", and "Users with `ADMINISTRATION` (**Can administer ThoughtSpot**) privileges can view all
 * users properties" (OpenAPI document of thoughtspot/rest-api-sdk, `api-spec/openapiSpecv3-2_0.json`
 * 26.8.0.cl, `searchUsers` and `searchUserGroups`). So an administrator sees everything, a user sees itself
 * in full, and of other users only what the document does not call a property to administer: the members
 * `User` requires (`id`, `name`, `display_name`, `visibility`) and the header, with `complete_detail`
 * ("whether the response has complete detail of the user") false. Without `caller` (an internal use), all.
 */
export function seesAllOf(caller: EmulatorUser | undefined, id: string): boolean {
  return caller === undefined || caller.privileges.has('ADMINISTRATION') || caller.id === id;
}

/** The Org a listed user is seen in: the caller's when the user may act there, else the user's first. */
function currentOrgOf(u: StoredUser, catalog: MetadataStore, caller: EmulatorUser | undefined): { id: number; name: string } {
  const id = caller !== undefined && catalog.orgsAvailableTo(u).some((o) => o.id === caller.orgId) ? caller.orgId : catalog.defaultOrgOf(u);
  return { id, name: catalog.org(id)?.name ?? String(id) };
}

/**
 * A user as v2 shows it (OpenAPI `User`) to `caller` (see `seesAllOf`: another user's email, privileges
 * and groups only to an administrator).
 */
export function userOfV2(u: StoredUser, catalog: MetadataStore, caller?: EmulatorUser): Record<string, unknown> {
  if (!seesAllOf(caller, u.id)) return { ...principalHeader(u, catalog), complete_detail: false, parent_type: 'USER' };
  // the groups of the Org the caller acts in (a group is one Org's)
  const org = caller?.orgId ?? catalog.defaultOrgOf(u);
  const groups = u.groups.map((g) => catalog.state.groups.find((x) => x.id === g)).filter((g) => g !== undefined).filter((g) => catalog.orgOf(g) === org);
  return {
    ...principalHeader(u, catalog),
    can_change_password: true,
    current_org: currentOrgOf(u, catalog, caller),
    account_type: 'LOCAL_USER',
    account_status: 'ACTIVE',
    ...(u.mail ? { email: u.mail } : {}),
    parent_type: 'USER',
    privileges: [...(catalog.user(u.id, caller?.orgId)?.privileges ?? [])],
    user_groups: groups.map((g) => ({ id: g.id, name: g.name })),
    user_inherited_groups: catalog.groupsWithParents(u.groups).map((id) => catalog.state.groups.find((x) => x.id === id)!).filter((g) => catalog.orgOf(g) === org).map((g) => ({ id: g.id, name: g.name })),
    super_user: false,
    system_user: false,
    tags: [],
  };
}

/**
 * A group as v2 shows it (OpenAPI `UserGroupResponse`) to `caller`: its `users` are the members the caller
 * may see (`seesAllOf`: all for an administrator, else the caller alone when it is one, with
 * `complete_detail` false). `include.users` / `include.subGroups` false (groups/search `include_users`,
 * `include_sub_groups`) leave `users` / `sub_groups` out.
 */
export function groupOfV2(g: StoredGroup, catalog: MetadataStore, caller?: EmulatorUser, include: { users?: boolean; subGroups?: boolean } = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...principalHeader(g, catalog),
    complete_detail: caller === undefined || caller.privileges.has('ADMINISTRATION'),
    system_group: false,
    parent_type: 'GROUP',
    type: 'LOCAL_GROUP',
    ...(g.description !== undefined ? { description: g.description } : {}),
    privileges: [...g.privileges],
    users: catalog.state.users.filter((u) => u.groups.includes(g.id) && seesAllOf(caller, u.id)).map((u) => ({ id: u.id, name: u.name })),
    sub_groups: catalog.state.groups.filter((x) => g.subGroups?.includes(x.id)).map((x) => ({ id: x.id, name: x.name })),
    default_liveboards: [],
    tags: [],
    roles: [],
  };
  if (include.users === false) delete out.users;
  if (include.subGroups === false) delete out.sub_groups;
  return out;
}

/** Matches an identifier (GUID or name) and a `name_pattern` (`%` the wildcard). */
function matcher(identifier: string | undefined, pattern: string | undefined): (x: { id: string; name: string }) => boolean {
  const p = pattern === undefined ? undefined : new NamePattern(pattern);
  return (x) => (identifier === undefined || x.id === identifier.toLowerCase() || x.name.toLowerCase() === identifier.toLowerCase()) && (p === undefined || p.test(x.name));
}

/**
 * Registers these routes in the v2 scope.
 *
 * Shapes and parameters from the OpenAPI
 * document of thoughtspot/rest-api-sdk, `api-spec/openapiSpecv3-2_0.json` (26.8.0.cl):
 *
 * | route | operationId | privilege | answer |
 * |---|---|---|---|
 * | `POST users/search` | `searchUsers` | signed in ("Available to all users"; other users' properties to ADMINISTRATION: `seesAllOf`) | `User[]` |
 * | `POST groups/search` | `searchUserGroups` | signed in (the same) | `UserGroupResponse[]` |
 * | `POST tags/search` | `searchTags` | signed in ("Any authenticated user") | `Tag[]` |
 * | `POST users/change-password` | `changeUserPassword` | the user, or ADMINISTRATION | 204 |
 * | `POST security/metadata/assign` | `assignChangeAuthor` | ADMINISTRATION | 204 |
 * | `POST groups/{group_identifier}/update` | `updateUserGroup` | ADMINISTRATION | 204 (`groupUpdateOf`: name, display name, description, visibility, type, privileges, users, sub-groups) |
 * | `POST users/import` | `importUsers` | ADMINISTRATION | `{users_added, users_updated, users_deleted}` of `{id, name}` |
 * | `POST groups/import` | `importUserGroups` | ADMINISTRATION | `{groups_added, groups_updated, groups_deleted}` of `{id, name}` |
 *
 * Search answers are paged by `record_offset` (0) and `record_size` (default 10, -1 all) and sorted by
 * `sort_options` (`field_name` NAME, DISPLAY_NAME, AUTHOR, CREATED or MODIFIED; `order` ASC or DESC).
 */
export function registerAdminV2(api: FastifyInstance, deps: V2Deps): void {
  registerSearches(api, deps);
  registerChanges(api, deps);
  registerImport(api, deps);
}

/** users/search, groups/search, tags/search. */
function registerSearches(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  const authorName = (id: string): string => catalog.storedUser(id)?.name ?? '';

  api.post('/users/search', async (req) => {
    const b = body(req);
    const caller = req.v2User!;
    const match = matcher(str(b, 'user_identifier'), str(b, 'name_pattern'));
    const display = str(b, 'display_name')?.toLowerCase();
    const groups = stringList(b, 'group_identifiers')?.map((g) => g.toLowerCase());
    const email = str(b, 'email')?.toLowerCase();
    const more = userFilter(b, catalog, (id) => seesAllOf(caller, id));
    const rows = catalog.usersIn(caller.orgId)
      .filter(more)
      // a filter on a member the caller cannot see matches only what it can see
      .filter((u) => match(u) && (display === undefined || u.displayName.toLowerCase() === display) && (email === undefined || (seesAllOf(caller, u.id) && u.mail?.toLowerCase() === email)))
      .filter((u) => groups === undefined || (seesAllOf(caller, u.id) && u.groups.some((gid) => { const g = catalog.state.groups.find((x) => x.id === gid); return g !== undefined && (groups.includes(g.id) || groups.includes(g.name.toLowerCase())); })))
      .map((u) => ({ key: { name: u.name, displayName: u.displayName, authorName: authorName(catalog.state.users[0]?.id ?? ''), created: u.created, modified: u.modified }, u }));
    return sortAndPage(rows, b, SORT_FIELDS).map((r) => userOfV2(r.u, catalog, caller));
  });

  api.post('/groups/search', async (req) => {
    const b = body(req);
    const caller = req.v2User!;
    const match = matcher(str(b, 'group_identifier'), str(b, 'name_pattern'));
    const display = str(b, 'display_name')?.toLowerCase();
    const privileges = stringList(b, 'privileges')?.map((p) => p.toUpperCase());
    const users = stringList(b, 'user_identifiers')?.map((u) => u.toLowerCase());
    const more = groupFilter(b, catalog);
    const rows = catalog.groupsIn(caller.orgId)
      .filter(more.keep)
      .filter((g) => match(g) && (display === undefined || g.displayName.toLowerCase() === display))
      .filter((g) => privileges === undefined || privileges.every((p) => isOneOf(g.privileges, p)))
      .filter((g) => users === undefined || catalog.state.users.some((u) => u.groups.includes(g.id) && seesAllOf(caller, u.id) && (users.includes(u.id) || users.includes(u.name.toLowerCase()))))
      .map((g) => ({ key: { name: g.name, displayName: g.displayName, authorName: authorName(catalog.state.users[0]?.id ?? ''), created: g.created, modified: g.modified }, g }));
    return sortAndPage(rows, b, SORT_FIELDS).map((r) => groupOfV2(r.g, catalog, caller, more.include));
  });

  api.post('/tags/search', async (req) => {
    const b = body(req);
    const match = matcher(str(b, 'tag_identifier'), str(b, 'name_pattern'));
    if (str(b, 'color') !== undefined) return []; // the emulator's tags have no color
    return catalog.tagsIn(req.v2User!.orgId).filter(match).map((t) => ({
      id: t.id,
      name: t.name,
      deleted: false,
      hidden: false,
      external: false,
      deprecated: false,
      creation_time_in_millis: t.created,
      modification_time_in_millis: t.modified,
      author_id: t.author,
      modifier_id: t.modifiedBy,
      owner_id: t.id,
    }));
  });

}

/** users/change-password, security/metadata/assign, groups/{group_identifier}/update. */
function registerChanges(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  api.post('/users/change-password', async (req, reply: FastifyReply) => {
    const b = body(req);
    const name = str(b, 'user_identifier', true)!;
    const current = str(b, 'current_password', true)!;
    const next = str(b, 'new_password', true)!;
    const u = catalog.userByName(name) ?? catalog.storedUser(name.toLowerCase());
    if (!u) throw new ApiError(400, `Invalid value for user_identifier: no user ${name}.`);
    await changePassword(deps, req.v2User!, u.name, current, next, req.v2Credential);
    return reply.code(204).send();
  });

  api.post('/security/metadata/assign', async (req, reply: FastifyReply) => {
    requireAdmin(req);
    const b = body(req);
    const to = str(b, 'user_identifier', true)!;
    const raw = b.metadata;
    if (!Array.isArray(raw) || raw.length === 0) throw new ApiError(400, 'Missing parameter metadata: a list of {identifier, type}.');
    const ids = raw.map((m) => {
      const id = recordOr(m).identifier;
      if (typeof id !== 'string' || !id) throw new ApiError(400, 'Invalid value for metadata: each entry needs an identifier.');
      const st = catalog.state;
      const o = [...st.tables, ...st.books].find((x) => x.id === id.toLowerCase() || x.name === id);
      if (!o) throw new ApiError(400, `Invalid value for metadata: no object ${id}.`);
      return o;
    });
    const fromName = str(b, 'current_owner_identifier');
    // without current_owner_identifier every object moves from whoever authors it
    const byAuthor = new Map<string, string[]>();
    for (const o of ids) {
      const author = fromName ?? catalog.storedUser(o.author)?.name ?? o.author;
      byAuthor.set(author, [...(byAuthor.get(author) ?? []), o.id]);
    }
    for (const [from, list] of byAuthor) transferObjects(deps, { label: 'current_owner_identifier', name: from }, { label: 'user_identifier', name: to }, list, 'metadata');
    return reply.code(204).send();
  });

  api.post('/groups/:group_identifier/update', async (req, reply: FastifyReply) => {
    requireAdmin(req);
    const gid = pathParam(req, 'group_identifier');
    const g = catalog.groupByName(gid) ?? catalog.state.groups.find((x) => x.id === gid.toLowerCase());
    // a group of another Org is unknown here
    if (!g || catalog.orgOf(g) !== req.v2User!.orgId) throw new ApiError(400, `Invalid value for group_identifier: no group ${gid}.`);
    const change = groupUpdateOf(body(req), g, catalog);
    // every member was checked: now apply them all (the privileges' own check comes first, before any change)
    if (change.privileges !== undefined) {
      if (change.privileges.length === 0 && change.operation === 'REPLACE') g.privileges = [];
      else if (change.privileges.length > 0) setGroupPrivileges(deps, [g.id], change.privileges, change.operation, 'group_identifier', req.v2User!.orgId);
    }
    if (change.name !== undefined) g.name = change.name;
    if (change.displayName !== undefined) g.displayName = change.displayName;
    if (change.description !== undefined) g.description = change.description;
    if (change.visibility !== undefined) g.visibility = change.visibility;
    if (change.users !== undefined) {
      for (const u of catalog.state.users) {
        const listed = change.users.includes(u.id);
        const member = u.groups.includes(g.id);
        const keep = change.operation === 'ADD' ? member || listed : change.operation === 'REMOVE' ? member && !listed : listed;
        if (keep !== member) u.groups = keep ? [...u.groups, g.id] : u.groups.filter((x) => x !== g.id);
      }
    }
    if (change.subGroups !== undefined) g.subGroups = applyList(g.subGroups ?? [], change.subGroups, change.operation);
    g.modified = deps.now().getTime();
    catalog.save();
    return reply.code(204).send();
  });
}

/** The members of `GroupsUpdateRequest`-like `groups/{group_identifier}/update` body (OpenAPI `updateUserGroup`). */
const GROUP_UPDATE_MEMBERS = ['name', 'default_liveboard_identifiers', 'description', 'display_name', 'privileges', 'sub_group_identifiers', 'type', 'user_identifiers', 'visibility', 'role_identifiers', 'operation'] as const;
/** Its `type` values; the emulator's groups are LOCAL_GROUP. */
const GROUP_TYPES = ['LOCAL_GROUP', 'LDAP_GROUP', 'TEAM_GROUP', 'TENANT_GROUP'];

/** A checked `groups/{group_identifier}/update`: what to change, users and sub-groups as GUIDs. */
interface GroupUpdate {
  operation: 'ADD' | 'REMOVE' | 'REPLACE';
  name?: string;
  displayName?: string;
  description?: string;
  visibility?: 'SHARABLE' | 'NON_SHARABLE';
  privileges?: string[];
  users?: string[];
  subGroups?: string[];
}

/** `list` changed by `operation` with `given`: ADD appends the new ones, REMOVE drops them, REPLACE is `given`. */
function applyList(list: readonly string[], given: readonly string[], operation: GroupUpdate['operation']): string[] {
  if (operation === 'REPLACE') return [...new Set(given)];
  if (operation === 'REMOVE') return list.filter((x) => !given.includes(x));
  return [...new Set([...list, ...given])];
}

/**
 * Checks every member of a `groups/{group_identifier}/update` body before anything changes, following the
 * OpenAPI document (thoughtspot/rest-api-sdk `api-spec/openapiSpecv3-2_0.json` 26.8.0.cl, `updateUserGroup`):
 * `name` (a new name no other group has), `display_name`, `description`, `visibility` (SHARABLE or
 * NON_SHARABLE), `type` (LOCAL_GROUP: the emulator has no other), `privileges`, `user_identifiers` and
 * `sub_group_identifiers` (GUIDs or names; a sub-group may not be the group or one above it), each list
 * changed by `operation` (ADD, REMOVE or REPLACE, the default).
 * @throws ApiError 400 (v2 code 10002) naming the member: one the document does not list, one the emulator's
 * groups do not have (`default_liveboard_identifiers`, `role_identifiers`, another `type`), or a bad value.
 */
function groupUpdateOf(b: Record<string, unknown>, g: StoredGroup, catalog: MetadataStore): GroupUpdate {
  const unknown = Object.keys(b).find((k) => !isOneOf(GROUP_UPDATE_MEMBERS, k));
  if (unknown !== undefined) throw new ApiError(400, `Invalid parameter ${unknown}: groups/{group_identifier}/update takes ${GROUP_UPDATE_MEMBERS.join(', ')}.`);
  for (const unsupported of ['default_liveboard_identifiers', 'role_identifiers']) {
    if (b[unsupported] !== undefined && b[unsupported] !== null) throw new ApiError(400, `${unsupported} is not supported by the emulator (its groups have no default liveboards or roles).`);
  }
  const operation = (str(b, 'operation') ?? 'REPLACE').toUpperCase();
  if (operation !== 'ADD' && operation !== 'REMOVE' && operation !== 'REPLACE') throw new ApiError(400, `Invalid value for operation: ${operation} (ADD, REMOVE or REPLACE).`);
  const type = str(b, 'type');
  if (type !== undefined && !GROUP_TYPES.includes(type)) throw new ApiError(400, `Invalid value for type: ${type} (${GROUP_TYPES.join(', ')}).`);
  if (type !== undefined && type !== 'LOCAL_GROUP') throw new ApiError(400, `type ${type} is not supported by the emulator: its groups are LOCAL_GROUP.`);
  const visibility = str(b, 'visibility');
  if (visibility !== undefined && visibility !== 'SHARABLE' && visibility !== 'NON_SHARABLE') throw new ApiError(400, `Invalid value for visibility: ${visibility} (SHARABLE or NON_SHARABLE).`);
  const name = str(b, 'name');
  const taken = name === undefined ? undefined : catalog.groupByName(name);
  if (taken && taken.id !== g.id) throw new ApiError(400, `Invalid value for name: the group ${taken.name} already has that name.`);
  const users = stringList(b, 'user_identifiers')?.map((id) => {
    const u = catalog.userByName(id) ?? catalog.storedUser(id.toLowerCase());
    if (!u) throw new ApiError(400, `Invalid value for user_identifiers: no user ${id}.`);
    return u.id;
  });
  const above = catalog.groupsWithParents([g.id]);
  const subGroups = stringList(b, 'sub_group_identifiers')?.map((id) => {
    const sub = catalog.groupByName(id) ?? catalog.state.groups.find((x) => x.id === id.toLowerCase());
    if (!sub) throw new ApiError(400, `Invalid value for sub_group_identifiers: no group ${id}.`);
    if (operation !== 'REMOVE' && above.includes(sub.id)) throw new ApiError(400, `Invalid value for sub_group_identifiers: ${sub.name} is ${sub.id === g.id ? 'the group itself' : `above ${g.name}`}; a group cannot be its own sub-group.`);
    return sub.id;
  });
  const privileges = stringList(b, 'privileges');
  const bad = privileges?.map((p) => p.toUpperCase()).find((p) => !isOneOf(PRIVILEGES, p));
  if (bad !== undefined) throw new ApiError(400, `Invalid value for privileges: ${bad}; one of ${PRIVILEGES.join(', ')}.`);
  return { operation, name, displayName: str(b, 'display_name'), description: typeof b.description === 'string' ? b.description : str(b, 'description'), visibility, privileges, users, subGroups };
}

/** users/import and groups/import: v1's sync over the users only, or the groups only. */
function registerImport(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  api.post('/groups/import', async (req) => {
    requireAdmin(req);
    const b = body(req);
    const raw = b.groups;
    if (!Array.isArray(raw)) throw new ApiError(400, 'Missing parameter groups: a list of {group_identifier, display_name, privileges, …}.');
    const list: Principal[] = raw.map((x, i) => {
      if (!isRecord(x)) throw new ApiError(400, `Invalid value for groups: entry ${i + 1} is not an object.`);
      const e = x;
      const name = str(e, 'group_identifier', true)!;
      const type = str(e, 'type') ?? 'LOCAL_GROUP';
      if (type !== 'LOCAL_GROUP') throw new ApiError(400, `Invalid value for type of ${name}: the emulator has LOCAL_GROUP only.`);
      for (const unsupported of ['user_identifiers', 'sub_group_identifiers', 'default_liveboard_identifiers']) {
        if (e[unsupported] !== undefined && e[unsupported] !== null) throw new ApiError(400, `${unsupported} of ${name} is not supported by the emulator; give users their groups with users/import.`);
      }
      return { name, displayName: str(e, 'display_name', true)!, privileges: stringList(e, 'privileges')?.map((p) => p.toUpperCase()), principalTypeEnum: 'LOCAL_GROUP' };
    });
    const s = checkSyncRequest(catalog, list, !bool(b, 'dry_run', true), bool(b, 'delete_unspecified_groups', false), undefined, 'groups');
    const result = await runSync(deps, req.v2User!, { ...s, users: [], removeUsers: false });
    const ref = (name: string) => ({ id: catalog.groupByName(name)?.id ?? null, name });
    return { groups_added: result.groupsAdded.map(ref), groups_updated: result.groupsUpdated.map(ref), groups_deleted: result.groupsDeleted.map((name) => ({ id: null, name })) };
  });
  api.post('/users/import', async (req) => {
    requireAdmin(req);
    const b = body(req);
    const raw = b.users;
    if (!Array.isArray(raw)) throw new ApiError(400, 'Missing parameter users: a list of {user_identifier, display_name, …}.');
    const list: Principal[] = raw.map((x, i) => {
      if (!isRecord(x)) throw new ApiError(400, `Invalid value for users: entry ${i + 1} is not an object.`);
      const e = x;
      const name = str(e, 'user_identifier', true)!;
      const display = str(e, 'display_name', true)!;
      const type = str(e, 'account_type') ?? 'LOCAL_USER';
      if (type !== 'LOCAL_USER') throw new ApiError(400, `Invalid value for account_type of ${name}: the emulator has LOCAL_USER only.`);
      return { name, displayName: display, mail: str(e, 'email'), password: str(e, 'password'), groupNames: stringList(e, 'group_identifiers'), principalTypeEnum: 'LOCAL_USER' };
    });
    const dryRun = bool(b, 'dry_run', true);
    const s = checkSyncRequest(catalog, list, !dryRun, bool(b, 'delete_unspecified_users', false), str(b, 'default_password'), 'users');
    // users/import imports users: groups are neither listed nor deleted
    const result = await runSync(deps, req.v2User!, { ...s, groups: [], removeGroups: false });
    const ref = (name: string) => {
      const u = catalog.userByName(name);
      return { id: u?.id ?? null, name };
    };
    return { users_added: result.usersAdded.map(ref), users_updated: result.usersUpdated.map(ref), users_deleted: result.usersDeleted.map((name) => ({ id: null, name })) };
  });
}
