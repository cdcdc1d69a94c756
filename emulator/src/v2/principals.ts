/**
 * REST API v2's creating, updating and deleting of users and groups (`users/create`,
 * `users/{user_identifier}/update`, `users/{user_identifier}/delete`, `groups/create`,
 * `groups/{group_identifier}/delete`), over the same users and groups as v1's user/sync (a user created
 * here logs in on v1 and is listed by v1 user/list). Shapes from the OpenAPI document of
 * thoughtspot/rest-api-sdk (`api-spec/openapiSpecv3-2_0.json`); the table is on `registerPrincipalsV2`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashPassword } from '../auth';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import { stableGuid } from '../guid';
import { PRIMARY_ORG_ID, PRIVILEGES, type MetadataStore, type StoredGroup, type StoredUser } from '../metadataStore';
import { groupOfV2, userOfV2 } from './admin';
import type { V2Deps } from './routes';
import { isOneOf, isEmptyList } from '../../../common/src/guards';
import { pathParam } from '../public/params';
import { body, str, stringList } from '../requestValues';

function requireAdmin(req: FastifyRequest): void {
  if (!req.v2User!.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
}

/** A member that the emulator has one value of (`account_type` LOCAL_USER, `account_status` ACTIVE, `type` LOCAL_GROUP): any other is refused. */
function only(b: Record<string, unknown>, name: string, value: string): void {
  const v = str(b, name)?.toUpperCase();
  if (v !== undefined && v !== value) throw new ApiError(400, `${name} ${v} is not supported by the emulator: its ${name === 'type' ? 'groups' : 'users'} are ${value}.`);
}

/** `visibility` SHARABLE or NON_SHARABLE, undefined when absent. @throws ApiError 400 */
function visibilityOf(b: Record<string, unknown>): 'SHARABLE' | 'NON_SHARABLE' | undefined {
  const v = str(b, 'visibility')?.toUpperCase();
  if (v !== undefined && v !== 'SHARABLE' && v !== 'NON_SHARABLE') throw new ApiError(400, `Invalid value for visibility: ${v} (SHARABLE or NON_SHARABLE).`);
  return v;
}

/** The Org ids `org_identifiers` names (ids or names), undefined when absent. @throws ApiError 400 naming an unknown Org */
function orgIdsOf(catalog: MetadataStore, b: Record<string, unknown>): number[] | undefined {
  return stringList(b, 'org_identifiers')?.map((o) => {
    const org = catalog.org(o);
    if (!org) throw new ApiError(400, `Invalid value for org_identifiers: no Org ${o} (${catalog.orgs().map((x) => `${x.name}, ${x.id}`).join('; ')}).`);
    return org.id;
  });
}

/** Group GUIDs of names or GUIDs. @throws ApiError 400 naming the member and the unknown group */
function groupIds(catalog: MetadataStore, ids: readonly string[], member: string): string[] {
  return ids.map((id) => {
    const g = catalog.groupByName(id) ?? catalog.state.groups.find((x) => x.id === id.toLowerCase());
    if (!g) throw new ApiError(400, `Invalid value for ${member}: no group ${id}.`);
    return g.id;
  });
}

/** The user of a path's `user_identifier` (GUID or name). @throws ApiError 400 */
function userAt(catalog: MetadataStore, req: FastifyRequest): StoredUser {
  const id = pathParam(req, 'user_identifier');
  const u = catalog.userByName(id) ?? catalog.storedUser(id.toLowerCase());
  if (!u) throw new ApiError(400, `Invalid value for user_identifier: no user ${id}.`);
  return u;
}

/**
 * Registers these routes in the v2 scope, all for ADMINISTRATION:
 *
 * | route | operationId | answer |
 * |---|---|---|
 * | `POST users/create` | `createUser` | `User`; `name`, `display_name`, `email`, `password` (a LOCAL_USER's), `group_identifiers`, `visibility` |
 * | `POST users/{user_identifier}/update` | `updateUser` | 204; `name`, `display_name`, `email`, `visibility`, `group_identifiers` by `operation` (ADD, REMOVE, REPLACE) |
 * | `POST users/{user_identifier}/delete` | `deleteUser` | 204; the user's sessions and tokens end; its objects move to the caller; not the caller itself |
 * | `POST groups/create` | `createUserGroup` | `UserGroupResponse`; `name`, `display_name`, `description`, `privileges`, `user_identifiers`, `sub_group_identifiers`, `visibility` |
 * | `POST groups/{group_identifier}/delete` | `deleteUserGroup` | 204; it leaves its users and parent groups; not a group that gives the caller ADMINISTRATION |
 *
 * Accounts other than LOCAL_USER / ACTIVE, groups other than LOCAL_GROUP, roles, default and home
 * liveboards and favorites are refused with 400 (the emulator has none of them); the preference flags are
 * accepted and have no effect.
 */
export function registerPrincipalsV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  const unsupported = (b: Record<string, unknown>, names: string[]): void => {
    for (const n of names) if (!isEmptyList(b[n])) throw new ApiError(400, `${n} is not supported by the emulator.`);
  };

  api.post('/users/create', async (req) => {
    requireAdmin(req);
    const b = body(req);
    const name = str(b, 'name', true)!;
    const displayName = str(b, 'display_name', true)!;
    const mail = str(b, 'email', true)!;
    const password = str(b, 'password');
    only(b, 'account_type', 'LOCAL_USER');
    only(b, 'account_status', 'ACTIVE');
    // a user is made in the Orgs named, else in the Org the administrator acts in
    const caller = req.v2User!;
    const orgs = orgIdsOf(catalog, b) ?? (caller.orgId !== PRIMARY_ORG_ID ? [caller.orgId] : undefined);
    unsupported(b, ['home_liveboard_identifier', 'favorite_metadata']);
    if (password === undefined) throw new ApiError(400, 'Missing parameter password: a LOCAL_USER signs in with one.');
    if (catalog.userByName(name)) throw new ApiError(400, `Invalid value for name: a user ${name} already exists.`);
    const groups = groupIds(catalog, stringList(b, 'group_identifiers') ?? [], 'group_identifiers');
    const now = deps.now().getTime();
    const visibility = visibilityOf(b);
    const u: StoredUser = { id: stableGuid('user', name), name, displayName, mail, ...(await hashPassword(password)), groups, created: now, modified: now, ...(visibility ? { visibility } : {}), ...(orgs ? { orgs: [...new Set(orgs)] } : {}) };
    catalog.state.users.push(u);
    catalog.save();
    return userOfV2(u, catalog, req.v2User);
  });

  api.post('/users/:user_identifier/update', async (req, reply: FastifyReply) => {
    requireAdmin(req);
    const u = userAt(catalog, req);
    const b = body(req);
    only(b, 'account_type', 'LOCAL_USER');
    only(b, 'account_status', 'ACTIVE');
    const orgs = orgIdsOf(catalog, b);
    unsupported(b, ['home_liveboard_identifier', 'favorite_metadata']);
    const operation = (str(b, 'operation') ?? 'REPLACE').toUpperCase();
    if (!['ADD', 'REMOVE', 'REPLACE'].includes(operation)) throw new ApiError(400, `Invalid value for operation: ${operation} (ADD, REMOVE or REPLACE).`);
    const name = str(b, 'name');
    const taken = name === undefined ? undefined : catalog.userByName(name);
    if (taken && taken.id !== u.id) throw new ApiError(400, `Invalid value for name: a user ${name} already exists.`);
    const listed = stringList(b, 'group_identifiers');
    const groups = listed === undefined ? undefined : groupIds(catalog, listed, 'group_identifiers');
    const visibility = visibilityOf(b);
    // every member was checked: apply them all
    if (name !== undefined) u.name = name;
    u.displayName = str(b, 'display_name') ?? u.displayName;
    u.mail = str(b, 'email') ?? u.mail;
    if (visibility !== undefined) u.visibility = visibility;
    if (orgs !== undefined) {
      const had = catalog.orgsOfUser(u);
      u.orgs = operation === 'REPLACE' ? [...new Set(orgs)] : operation === 'ADD' ? [...new Set([...had, ...orgs])] : had.filter((o) => !orgs.includes(o));
    }
    if (groups !== undefined) u.groups = operation === 'REPLACE' ? [...new Set(groups)] : operation === 'ADD' ? [...new Set([...u.groups, ...groups])] : u.groups.filter((g) => !groups.includes(g));
    u.modified = deps.now().getTime();
    catalog.save();
    return reply.code(204).send();
  });

  api.post('/users/:user_identifier/delete', async (req, reply: FastifyReply) => {
    requireAdmin(req);
    const u = userAt(catalog, req);
    const me = req.v2User!;
    if (u.id === me.id) throw new ApiError(400, 'Invalid value for user_identifier: a user cannot delete itself.');
    const st = catalog.state;
    // its objects stay, authored by the administrator who deleted it
    for (const o of [...st.tables, ...st.books, ...st.tags]) if (o.author === u.id) o.author = me.id;
    st.users = st.users.filter((x) => x.id !== u.id);
    deps.tokens.revokeUser(u.id);
    deps.sessions.closeUser(u.id);
    catalog.save();
    return reply.code(204).send();
  });
  registerGroupChanges(api, deps, unsupported);
}

/** groups/create and groups/{group_identifier}/delete. */
function registerGroupChanges(api: FastifyInstance, deps: V2Deps, unsupported: (b: Record<string, unknown>, names: string[]) => void): void {
  const { catalog } = deps;
  api.post('/groups/create', async (req) => {
    requireAdmin(req);
    const b = body(req);
    const name = str(b, 'name', true)!;
    const displayName = str(b, 'display_name', true)!;
    only(b, 'type', 'LOCAL_GROUP');
    unsupported(b, ['default_liveboard_identifiers', 'role_identifiers']);
    if (catalog.groupByName(name)) throw new ApiError(400, `Invalid value for name: a group ${name} already exists.`);
    const privileges = (stringList(b, 'privileges') ?? []).map((p) => p.toUpperCase());
    const bad = privileges.find((p) => !isOneOf(PRIVILEGES, p));
    if (bad !== undefined) throw new ApiError(400, `Invalid value for privileges: ${bad}; the emulator has ${PRIVILEGES.join(', ')}.`);
    const subGroups = groupIds(catalog, stringList(b, 'sub_group_identifiers') ?? [], 'sub_group_identifiers');
    const users = (stringList(b, 'user_identifiers') ?? []).map((id) => {
      const u = catalog.userByName(id) ?? catalog.storedUser(id.toLowerCase());
      if (!u) throw new ApiError(400, `Invalid value for user_identifiers: no user ${id}.`);
      return u;
    });
    const now = deps.now().getTime();
    const visibility = visibilityOf(b);
    const description = str(b, 'description');
    const g: StoredGroup = { id: stableGuid('group', name), name, displayName, privileges: [...new Set(privileges.filter((p) => isOneOf(PRIVILEGES, p)))], created: now, modified: now, ...(description !== undefined ? { description } : {}), ...(visibility ? { visibility } : {}), ...(subGroups.length ? { subGroups } : {}) };
    catalog.state.groups.push(g);
    for (const u of users) if (!u.groups.includes(g.id)) u.groups = [...u.groups, g.id];
    catalog.save();
    return groupOfV2(g, catalog, req.v2User);
  });

  api.post('/groups/:group_identifier/delete', async (req, reply: FastifyReply) => {
    requireAdmin(req);
    const id = pathParam(req, 'group_identifier');
    const g = catalog.groupByName(id) ?? catalog.state.groups.find((x) => x.id === id.toLowerCase());
    if (!g) throw new ApiError(400, `Invalid value for group_identifier: no group ${id}.`);
    const mine = catalog.groupsWithParents(catalog.storedUser(req.v2User!.id)?.groups ?? []);
    if (g.privileges.includes('ADMINISTRATION') && mine.includes(g.id)) throw new ApiError(400, `Cannot delete ${g.name}: it gives you ADMINISTRATION.`);
    const st = catalog.state;
    st.groups = st.groups.filter((x) => x.id !== g.id);
    for (const u of st.users) u.groups = u.groups.filter((x) => x !== g.id);
    for (const parent of st.groups) if (parent.subGroups) parent.subGroups = parent.subGroups.filter((x) => x !== g.id);
    for (const o of [...st.tables, ...st.books]) {
      o.sharedWith = o.sharedWith.filter((x) => x !== g.id);
      if (o.sharedWithModify) o.sharedWithModify = o.sharedWithModify.filter((x) => x !== g.id);
    }
    catalog.save();
    return reply.code(204).send();
  });
}
