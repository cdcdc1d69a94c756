/**
 * The administration operations of docs/service-interface.md §4.2 (users, groups, materialized views),
 * shaped as https://developers.thoughtspot.com/docs/user-api, …/group-api and
 * https://docs.thoughtspot.com/software/7.2/materialization-api give them; emulator/README.md lists the choices.
 * | operation | privilege | parameters | answer |
 * |---|---|---|---|
 * | `GET user/list` | ADMINISTRATION | — | 200, principals `{id, name, displayName, mail?, principalTypeEnum, groupNames, privileges, visibility, created, modified}` |
 * | `POST user/sync` | ADMINISTRATION | userSync.ts | 200, `{usersAdded, usersUpdated, usersDeleted, groupsAdded, groupsUpdated, groupsDeleted}` |
 * | `POST user/updatepassword` | the user or ADMINISTRATION | `name`, `currentpassword`, `newpassword` (or `password`) | 200 `{}`; the user's other sessions end |
 * | `POST user/transfer/ownership` | ADMINISTRATION | `fromUserName`, `toUserName`, `objectsID` (or `objectid`) | 204; never to or from `system` or `su` |
 * | `POST group/addprivilege`, `…/removeprivilege`, `materialization/refreshview/{id}` | ADMINISTRATION (refreshview: or DATAMANAGEMENT) | `privilege`, `groupNames`; the GUID in the path | 200 `{}` (refreshview drops caches only) |
 */
/**
 * The body of updatepassword, addprivilege, removeprivilege and refreshview: 200 with `{}`, not the
 * documented 204, because ThoughtSpot's Python client (thoughtspot/thoughtspot_rest_api_v1_python,
 * `src/thoughtspot_rest_api_v1/tsrestapiv1.py`: `user_updatepassword`, `group_addprivilege`,
 * `group_removeprivilege`, `materialization_refreshview`) parses a JSON body from each, and a client that
 * follows the docs takes any 2xx; emulator/README.md, "Where sources disagree", gives the sources.
 */
const DONE_BODY = {};
import type { FastifyInstance } from 'fastify';
import { checkPassword, hashPassword } from '../auth';
import { PRIVILEGES, type MetadataStore, type StoredGroup } from '../metadataStore';
import type { EmulatorUser } from '../context';
import { ApiError, badRequest, FORBIDDEN_TEXT } from '../errors';
import { GUID, guidListParam, requirePrivilege, userOf, pathParam } from './params';
import type { PublicApiDeps } from './routes';
import { registerUserSync } from './userSync';
import { isOneOf } from '../../../common/src/guards';
import { formValues, has, str, stringList } from '../requestValues';

/** Names of the built-in principals that own no transferable objects (user/list example: `system` is the System User, `su` the Administrator Super-User). */
const PROTECTED_USERS = ['system', 'su'];

/** Registers the administration operations on the public API's prefix scope. */
export function registerAdminRoutes(api: FastifyInstance, deps: PublicApiDeps): void {
  registerUserList(api, deps);
  registerUserSync(api, deps);
  registerUpdatePassword(api, deps);
  registerTransferOwnership(api, deps);
  registerGroupPrivileges(api, deps);
  registerRefreshView(api, deps);
}

/** The principals of one Org as `user/list` shows them: groups first, then users with their groups' names. */
function principals(catalog: MetadataStore, orgId: number): Record<string, unknown>[] {
  const st = catalog.state;
  return [
    // a group's groupNames are its parent groups (a v2 sub-group), its visibility v1's DEFAULT unless NON_SHARABLE
    ...catalog.groupsIn(orgId).map((g) => ({ id: g.id, name: g.name, displayName: g.displayName, principalTypeEnum: 'LOCAL_GROUP', groupNames: st.groups.filter((p) => p.subGroups?.includes(g.id)).map((p) => p.name), privileges: g.privileges, visibility: g.visibility === 'NON_SHARABLE' ? 'NON_SHARABLE' : 'DEFAULT', created: g.created, modified: g.modified })),
    ...catalog.usersIn(orgId).map((u) => ({
      id: u.id,
      name: u.name,
      displayName: u.displayName,
      ...(u.mail ? { mail: u.mail } : {}),
      principalTypeEnum: 'LOCAL_USER',
      groupNames: u.groups.map((id) => st.groups.find((g) => g.id === id && catalog.orgOf(g) === orgId)?.name).filter(Boolean),
      privileges: [...(catalog.user(u.id, orgId)?.privileges ?? [])],
      visibility: 'DEFAULT',
      created: u.created,
      modified: u.modified,
    })),
  ];
}

/** `GET user/list` (ADMINISTRATION). */
function registerUserList(api: FastifyInstance, deps: PublicApiDeps): void {
  api.get('/user/list', async (req) => {
    const me = userOf(req);
    requirePrivilege(me, 'ADMINISTRATION');
    return principals(deps.catalog, me.orgId);
  });
}

/** `POST user/updatepassword`: 200 `{}`; 400 for a wrong current password; the user's other sessions end. */
function registerUpdatePassword(api: FastifyInstance, deps: PublicApiDeps): void {
  api.post('/user/updatepassword', async (req, reply) => {
    const me = userOf(req);
    const name = str(formValues(req), 'name');
    const current = str(formValues(req), 'currentpassword');
    // `newpassword` as ThoughtSpot's Python client sends it (tsrestapiv1.py `user_updatepassword`), `password` as the docs' example
    const next = str(formValues(req), 'newpassword') ?? str(formValues(req), 'password');
    if (!name || current === undefined || next === undefined) throw badRequest('Missing parameter: name, currentpassword and newpassword are required');
    await changePassword(deps, me, name, current, next, req.tsSessionId);
    return reply.code(200).send(DONE_BODY);
  });
}

/**
 * `POST user/transfer/ownership?fromUserName=…&toUserName=…[&objectsID=[…]]` (204). The current page
 * names the optional list `objectsID`; `objectid` is read as the same parameter. Every named object must
 * be authored by `fromUserName`, else 400 naming it; without a list every object of that user moves.
 * Objects cannot be transferred to or from the system user or the administrative user (the 6.x and 7.0
 * user-api pages of docs.thoughtspot.com): 400 for `system` and `su`.
 */
function registerTransferOwnership(api: FastifyInstance, deps: PublicApiDeps): void {
  api.post('/user/transfer/ownership', async (req, reply) => {
    requirePrivilege(userOf(req), 'ADMINISTRATION');
    const from = str(formValues(req), 'fromUserName');
    const to = str(formValues(req), 'toUserName');
    if (!from || !to) throw badRequest('Missing parameter: fromUserName and toUserName are required');
    const listName = has(formValues(req), 'objectsID') ? 'objectsID' : 'objectid';
    transferObjects(deps, { label: 'fromUserName', name: from }, { label: 'toUserName', name: to }, guidListParam(req, listName, { nonEmpty: true }), listName);
    return reply.code(204).send();
  });
}

/** `POST group/addprivilege` and `group/removeprivilege` (ADMINISTRATION): 200 `{}`; takes effect on every session's next call. */
function registerGroupPrivileges(api: FastifyInstance, deps: PublicApiDeps): void {
  for (const [path, add] of [['/group/addprivilege', true], ['/group/removeprivilege', false]] as const) {
    api.post(path, async (req, reply) => {
      const me = userOf(req);
      requirePrivilege(me, 'ADMINISTRATION');
      const names = stringList(formValues(req), 'groupNames', { nonEmpty: true });
      if (!names) throw badRequest('Missing parameter groupNames (a JSON array of group names)');
      setGroupPrivileges(deps, names, [str(formValues(req), 'privilege') ?? ''], add ? 'ADD' : 'REMOVE', 'groupNames', me.orgId);
      return reply.code(200).send(DONE_BODY);
    });
  }
}

/** What the administration operations need of the emulator, on v1 and v2 alike. */
export type AdminDeps = Pick<PublicApiDeps, 'catalog' | 'sessions' | 'now'>;

/**
 * Changes `name`'s password (v1 `user/updatepassword`, v2 `users/change-password`): the user themself or
 * an administrator, after checking the current password; the user's other sessions end (but `keepSession`).
 * @throws ApiError 400 for an unknown user or a wrong current password, 403 for another user without ADMINISTRATION
 */
export async function changePassword(deps: AdminDeps, me: EmulatorUser, name: string, current: string, next: string, keepSession?: string): Promise<void> {
  const u = deps.catalog.userByName(name);
  if (!u) throw badRequest(`No user named ${name}`);
  if (u.id !== me.id && !me.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
  if (!(await checkPassword(current, u))) throw badRequest('The current password is not correct');
  Object.assign(u, await hashPassword(next));
  u.demoPassword = undefined;
  u.modified = deps.now().getTime();
  deps.catalog.save();
  deps.sessions.closeUser(u.id, keepSession);
}

/**
 * Moves objects authored by `from` to `to` (v1 `user/transfer/ownership`, v2 `security/metadata/assign`):
 * the objects of `ids` (each must be authored by `from`), or every one. Never to or from `system` or `su`.
 * `label`s and `listName` name the parameters in errors.
 * @throws ApiError 400 naming the parameter at fault
 */
export function transferObjects(deps: AdminDeps, from: { label: string; name: string }, to: { label: string; name: string }, ids: string[] | undefined, listName: string): void {
  const { catalog } = deps;
  for (const { label, name } of [from, to]) {
    if (PROTECTED_USERS.includes(name.toLowerCase())) throw badRequest(`Invalid value for ${label}: objects cannot be transferred to or from the system user or the administrative user (${name})`);
  }
  const a = catalog.userByName(from.name) ?? catalog.storedUser(from.name.toLowerCase());
  const b = catalog.userByName(to.name) ?? catalog.storedUser(to.name.toLowerCase());
  if (!a) throw badRequest(`Invalid value for ${from.label}: no user named ${from.name}`);
  if (!b) throw badRequest(`Invalid value for ${to.label}: no user named ${to.name}`);
  const st = catalog.state;
  const owned = [...st.tables, ...st.books, ...st.tags].filter((o) => o.author === a.id);
  let moving = owned;
  if (ids) {
    const byId = new Map(owned.map((o) => [o.id, o]));
    const missing = ids.find((id) => !byId.has(id));
    if (missing) throw badRequest(`Invalid value for ${listName}: ${missing} is not an object owned by ${a.name}`);
    moving = ids.map((id) => byId.get(id)!);
  }
  const t = deps.now().getTime();
  for (const o of moving) {
    o.author = b.id;
    o.modified = t;
    o.modifiedBy = b.id;
  }
  catalog.save();
}

/**
 * Adds, removes or (REPLACE) sets privileges of groups (v1 `group/addprivilege`/`removeprivilege`, v2
 * `groups/{id}/update`); takes effect on every session's next call. Groups by name (or GUID).
 * @throws ApiError 400 for an unknown privilege or group, or a group of another Org than `orgId` (`groupParam` names the parameter)
 */
export function setGroupPrivileges(deps: AdminDeps, groupNames: string[], privileges: string[], operation: 'ADD' | 'REMOVE' | 'REPLACE', groupParam: string, orgId: number): void {
  const { catalog } = deps;
  const wanted = privileges.map((p) => p.toUpperCase());
  if (wanted.length === 0 || wanted.some((p) => !p)) throw badRequest('Missing parameter privilege');
  const bad = wanted.find((p) => !isOneOf(PRIVILEGES, p));
  if (bad) throw badRequest(`Invalid value for privilege: ${bad}; one of ${PRIVILEGES.join(', ')}`);
  const granted = wanted.filter((p) => isOneOf(PRIVILEGES, p));
  // a group of another Org is unknown here
  const inOrg = (g: StoredGroup | undefined): StoredGroup | undefined => (g && catalog.orgOf(g) === orgId ? g : undefined);
  const groups = groupNames.map((n) => inOrg(catalog.groupByName(n) ?? catalog.state.groups.find((g) => g.id === n.toLowerCase())) ?? (() => { throw badRequest(`Invalid value for ${groupParam}: no group named ${n}`); })());
  for (const g of groups) {
    if (operation === 'REPLACE') g.privileges = granted;
    for (const p of granted) {
      const has = g.privileges.includes(p);
      if (operation === 'ADD' && !has) g.privileges.push(p);
      if (operation === 'REMOVE' && has) g.privileges = g.privileges.filter((x) => x !== p);
    }
    g.modified = deps.now().getTime();
  }
  catalog.save();
}

/** `POST materialization/refreshview/{id}` (ADMINISTRATION or DATAMANAGEMENT): 200 `{}` (the docs: 204 "Refresh submitted"). */
function registerRefreshView(api: FastifyInstance, deps: PublicApiDeps): void {
  api.post('/materialization/refreshview/:id', async (req, reply) => {
    requirePrivilege(userOf(req), 'ADMINISTRATION', 'DATAMANAGEMENT');
    const id = pathParam(req, 'id');
    if (!GUID.test(id)) throw badRequest(`Invalid value for id: ${JSON.stringify(id)} is not a GUID`);
    const ds = deps.catalog.dataSource(id);
    if (!ds) throw badRequest(`Invalid value for id: no view or worksheet with id ${id}`);
    deps.search.invalidate(ds.tableId);
    return reply.code(200).send(DONE_BODY);
  });
}
