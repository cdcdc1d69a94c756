/**
 * `POST user/sync` (https://developers.thoughtspot.com/docs/user-api#user-sync): synchronizes users and
 * groups from an external list. The documented request is `multipart/form-data` with `principals` as a
 * JSON file part plus `applyChanges`, `removeDeleted` and `password` as fields; the emulator also takes
 * them as form fields or JSON (routes.ts reads every encoding into the same parameters). The answer (200)
 * names what was, or with `applyChanges=false` would be, added, updated and deleted.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashPassword } from '../auth';
import { PRIVILEGES, type MetadataStore } from '../metadataStore';
import type { EmulatorUser } from '../context';
import { badRequest } from '../errors';
import { stableGuid } from '../guid';
import { requirePrivilege, userOf } from './params';
import type { PublicApiDeps } from './routes';
import { isOneOf } from '../../../common/src/guards';
import { bool, formValues, str } from '../requestValues';

/** One principal of the `principals` list (the shape of `user/list`; `password` per user optional). */
export interface Principal {
  name: string;
  displayName?: string;
  mail?: string;
  principalTypeEnum?: string;
  groupNames?: string[];
  privileges?: string[];
  password?: string;
}

/** What a sync did (or would do): names of principals per change. */
export interface SyncResult {
  usersAdded: string[];
  usersUpdated: string[];
  usersDeleted: string[];
  groupsAdded: string[];
  groupsUpdated: string[];
  groupsDeleted: string[];
}

/** The checked request of a sync. */
export interface SyncRequest {
  groups: Principal[];
  users: Principal[];
  apply: boolean;
  removeDeleted: boolean;
  defaultPassword?: string;
  /** False: `removeDeleted` deletes unlisted users only (v2 `users/import` imports users). Default true. */
  removeGroups?: boolean;
  /** False: `removeDeleted` deletes unlisted groups only (v2 `groups/import` imports groups). Default true. */
  removeUsers?: boolean;
}

const isGroup = (p: Principal): boolean => /GROUP/i.test(p.principalTypeEnum ?? 'LOCAL_USER');

/**
 * Reads and checks the parameters of a sync before anything changes.
 * @throws ApiError 400 naming the parameter (`principals`, `applyChanges`, `removeDeleted`) or the principal at fault
 */
function readSyncRequest(req: FastifyRequest, catalog: MetadataStore): SyncRequest {
  const raw = str(formValues(req), 'principals');
  if (!raw) throw badRequest('Missing parameter principals (a JSON array of users and groups, sent as a file part or a form field)');
  let list: Principal[];
  try {
    list = JSON.parse(raw) as Principal[];
  } catch {
    throw badRequest('Invalid value for principals: not JSON');
  }
  return checkSyncRequest(catalog, list, bool(formValues(req), 'applyChanges', false), bool(formValues(req), 'removeDeleted', false), str(formValues(req), 'password'), 'principals');
}

/**
 * Checks a list of principals before anything changes (v1 `user/sync`, v2 `users/import`).
 * @throws ApiError 400 naming `listName` or the principal at fault
 */
export function checkSyncRequest(catalog: MetadataStore, list: Principal[], apply: boolean, removeDeleted: boolean, defaultPassword: string | undefined, listName: string): SyncRequest {
  if (!Array.isArray(list) || list.some((p) => !p || typeof p.name !== 'string' || !p.name)) throw badRequest(`Invalid value for ${listName}: expected an array of objects with a name`);
  for (const p of list) if (p.groupNames !== undefined && (!Array.isArray(p.groupNames) || p.groupNames.some((g) => typeof g !== 'string'))) throw badRequest(`Invalid value for ${listName}: the groups of ${p.name} are not an array of names`);
  const groups = list.filter(isGroup);
  const users = list.filter((p) => !isGroup(p));
  for (const g of groups) for (const p of g.privileges ?? []) if (!isOneOf(PRIVILEGES, p)) throw badRequest(`Unknown privilege ${p} for group ${g.name}`);
  const groupNames = new Set([...catalog.state.groups.map((g) => g.name.toLowerCase()), ...groups.map((g) => g.name.toLowerCase())]);
  for (const u of users) {
    for (const gn of u.groupNames ?? []) if (!groupNames.has(gn.toLowerCase())) throw badRequest(`User ${u.name}: unknown group ${gn}`);
    // a dry run reports without one, as the documentation's example (no password) expects
    if (apply && !catalog.userByName(u.name) && !(u.password ?? defaultPassword)) throw badRequest(`User ${u.name} is new and needs a password (give password)`);
  }
  return { groups, users, apply, removeDeleted, defaultPassword };
}

/** Adds or updates the listed groups. */
function syncGroups(catalog: MetadataStore, s: SyncRequest, result: SyncResult, t: number): void {
  for (const g of s.groups) {
    const existing = catalog.groupByName(g.name);
    if (!existing) {
      result.groupsAdded.push(g.name);
      if (s.apply) catalog.state.groups.push({ id: stableGuid('group', g.name), name: g.name, displayName: g.displayName ?? g.name, privileges: (g.privileges ?? []).filter((p) => isOneOf(PRIVILEGES, p)), created: t, modified: t });
      continue;
    }
    result.groupsUpdated.push(existing.name);
    if (!s.apply) continue;
    if (g.displayName) existing.displayName = g.displayName;
    if (g.privileges) existing.privileges = g.privileges.filter((p) => isOneOf(PRIVILEGES, p));
    existing.modified = t;
  }
}

/** Adds or updates the listed users (passwords hashed; a new password drops the demo flag). */
async function syncUsers(catalog: MetadataStore, s: SyncRequest, result: SyncResult, t: number): Promise<void> {
  for (const u of s.users) {
    const existing = catalog.userByName(u.name);
    const gids = (u.groupNames ?? []).map((n) => catalog.groupByName(n)?.id ?? stableGuid('group', n));
    if (!existing) {
      result.usersAdded.push(u.name);
      if (s.apply) catalog.state.users.push({ id: stableGuid('user', u.name), name: u.name, displayName: u.displayName ?? u.name, mail: u.mail, ...(await hashPassword((u.password ?? s.defaultPassword)!)), groups: gids, created: t, modified: t });
      continue;
    }
    result.usersUpdated.push(existing.name);
    if (!s.apply) continue;
    if (u.displayName) existing.displayName = u.displayName;
    if (u.mail) existing.mail = u.mail;
    if (u.groupNames) existing.groups = gids;
    if (u.password) {
      Object.assign(existing, await hashPassword(u.password));
      existing.demoPassword = undefined;
    }
    existing.modified = t;
  }
}

/** With `removeDeleted`: deletes users and groups not in the list, never the caller nor a group that gives the caller ADMINISTRATION. */
function removeUnlisted(deps: Pick<PublicApiDeps, 'catalog' | 'sessions'>, me: EmulatorUser, s: SyncRequest, result: SyncResult): void {
  const st = deps.catalog.state;
  const keepUsers = new Set(s.users.map((u) => u.name.toLowerCase()));
  const keepGroups = new Set(s.groups.map((g) => g.name.toLowerCase()));
  for (const u of s.removeUsers === false ? [] : [...st.users]) {
    if (keepUsers.has(u.name.toLowerCase()) || u.id === me.id) continue;
    result.usersDeleted.push(u.name);
    if (s.apply) {
      st.users.splice(st.users.indexOf(u), 1);
      deps.sessions.closeUser(u.id);
    }
  }
  for (const g of s.removeGroups === false ? [] : [...st.groups]) {
    if (keepGroups.has(g.name.toLowerCase())) continue;
    // the caller's groups and their parents (a parent group gives its sub-groups' members its privileges)
    if (g.privileges.includes('ADMINISTRATION') && deps.catalog.groupsWithParents(deps.catalog.storedUser(me.id)?.groups ?? []).includes(g.id)) continue;
    result.groupsDeleted.push(g.name);
    if (s.apply) {
      st.groups.splice(st.groups.indexOf(g), 1);
      for (const u of st.users) u.groups = u.groups.filter((x) => x !== g.id);
      for (const parent of st.groups) if (parent.subGroups) parent.subGroups = parent.subGroups.filter((x) => x !== g.id);
    }
  }
}

/** Registers `POST user/sync` (ADMINISTRATION) on the public API's prefix scope. */
export function registerUserSync(api: FastifyInstance, deps: PublicApiDeps): void {
  api.post('/user/sync', async (req) => {
    const me = userOf(req);
    requirePrivilege(me, 'ADMINISTRATION');
    return runSync(deps, me, readSyncRequest(req, deps.catalog));
  });
}

/** Runs a checked sync (`checkSyncRequest`) for `me`: what it did, or with `apply` false would do. */
export async function runSync(deps: Pick<PublicApiDeps, 'catalog' | 'sessions' | 'now'>, me: EmulatorUser, s: SyncRequest): Promise<SyncResult> {
  const result: SyncResult = { usersAdded: [], usersUpdated: [], usersDeleted: [], groupsAdded: [], groupsUpdated: [], groupsDeleted: [] };
  const t = deps.now().getTime();
  syncGroups(deps.catalog, s, result, t);
  await syncUsers(deps.catalog, s, result, t);
  if (s.removeDeleted) removeUnlisted(deps, me, s, result);
  if (s.apply) deps.catalog.save();
  return result;
}
