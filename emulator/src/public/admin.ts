/**
 * The catalogued administration operations of seed 4.2, whose shapes the seed does not show. The
 * emulator's choices (documented in emulator/README.md), with parameters as form fields or query
 * parameters like every v1 call (field notes 0):
 *
 * | operation | privilege | parameters | answer |
 * |---|---|---|---|
 * | `GET user/list` | ADMINISTRATION | — | array of principals `{id, name, displayName, mail?, principalTypeEnum: LOCAL_USER\|LOCAL_GROUP, groupNames, privileges, visibility, created, modified}` (a group's `groupNames` is empty; its users name it in theirs) |
 * | `POST user/sync` | ADMINISTRATION | `principals` (JSON array of the user/list shape; `password` per user optional), `applyChanges` (default false: report only), `removeDeleted` (default false), `password` (for new users without one) | `{usersAdded, usersUpdated, usersDeleted, groupsAdded, groupsUpdated, groupsDeleted}` (names) |
 * | `POST user/updatepassword` | the user itself or ADMINISTRATION | `name`, `currentpassword` (of that user), `password` | 204; the user's other sessions end |
 * | `POST user/transfer/ownership` | ADMINISTRATION | `fromUserName`, `toUserName` | 204; every object authored by one is authored by the other |
 * | `POST group/addprivilege`, `group/removeprivilege` | ADMINISTRATION | `privilege`, `groupNames` (JSON array) | 204; takes effect on the next call of every session (the load API included) |
 * | `POST materialization/refreshview/{id}` | ADMINISTRATION or DATAMANAGEMENT | the data source GUID in the path | `{id, name, status: "REFRESHED", refreshedAt}` (epoch ms); data sources are computed live, so only caches are dropped |
 */
import type { FastifyInstance } from 'fastify';
import { checkPassword, hashPassword } from '../auth';
import { PRIVILEGES } from '../catalog';
import type { Privilege } from '../context';
import { ApiError, badRequest, FORBIDDEN_TEXT } from '../errors';
import { stableGuid } from '../guid';
import { boolParam, listParam, param, requirePrivilege, userOf } from './params';
import type { PublicApiDeps } from './routes';

interface Principal {
  name: string;
  displayName?: string;
  mail?: string;
  principalTypeEnum?: string;
  groupNames?: string[];
  privileges?: string[];
  password?: string;
}

/** Registers the administration operations on the public API's prefix scope. */
export function registerAdminRoutes(api: FastifyInstance, deps: PublicApiDeps): void {
  const { catalog, sessions } = deps;
  const st = catalog.state;
  const now = (): number => deps.now().getTime();

  const principals = (): Record<string, unknown>[] => [
    ...st.groups.map((g) => ({ id: g.id, name: g.name, displayName: g.displayName, principalTypeEnum: 'LOCAL_GROUP', groupNames: [], privileges: g.privileges, visibility: 'DEFAULT', created: g.created, modified: g.modified })),
    ...st.users.map((u) => ({
      id: u.id,
      name: u.name,
      displayName: u.displayName,
      ...(u.mail ? { mail: u.mail } : {}),
      principalTypeEnum: 'LOCAL_USER',
      groupNames: u.groups.map((id) => st.groups.find((g) => g.id === id)?.name).filter(Boolean),
      privileges: [...(catalog.user(u.id)?.privileges ?? [])],
      visibility: 'DEFAULT',
      created: u.created,
      modified: u.modified,
    })),
  ];

  api.get('/user/list', async (req) => {
    requirePrivilege(userOf(req), 'ADMINISTRATION');
    return principals();
  });

  api.post('/user/sync', async (req) => {
    const me = userOf(req);
    requirePrivilege(me, 'ADMINISTRATION');
    const raw = param(req, 'principals');
    if (!raw) throw badRequest('Missing parameter principals (a JSON array)');
    let list: Principal[];
    try {
      list = JSON.parse(raw) as Principal[];
    } catch {
      throw badRequest('Invalid value for principals: not JSON');
    }
    if (!Array.isArray(list) || list.some((p) => !p || typeof p.name !== 'string' || !p.name)) throw badRequest('Invalid value for principals: expected an array of objects with a name');
    const apply = boolParam(req, 'applyChanges') ?? false;
    const removeDeleted = boolParam(req, 'removeDeleted') ?? false;
    const defaultPassword = param(req, 'password');
    const isGroup = (p: Principal): boolean => /GROUP/i.test(p.principalTypeEnum ?? 'LOCAL_USER');
    const groups = list.filter(isGroup);
    const users = list.filter((p) => !isGroup(p));
    const result = { usersAdded: [] as string[], usersUpdated: [] as string[], usersDeleted: [] as string[], groupsAdded: [] as string[], groupsUpdated: [] as string[], groupsDeleted: [] as string[] };
    // Validate everything before changing anything.
    for (const g of groups) for (const p of g.privileges ?? []) if (!PRIVILEGES.includes(p as Privilege)) throw badRequest(`Unknown privilege ${p} for group ${g.name}`);
    const groupNames = new Set([...st.groups.map((g) => g.name.toLowerCase()), ...groups.map((g) => g.name.toLowerCase())]);
    for (const u of users) {
      for (const gn of u.groupNames ?? []) if (!groupNames.has(gn.toLowerCase())) throw badRequest(`User ${u.name}: unknown group ${gn}`);
      if (!catalog.userByName(u.name) && !(u.password ?? defaultPassword)) throw badRequest(`User ${u.name} is new and needs a password (give password)`);
    }
    const t = now();
    for (const g of groups) {
      const existing = catalog.groupByName(g.name);
      if (!existing) {
        result.groupsAdded.push(g.name);
        if (apply) st.groups.push({ id: stableGuid('group', g.name), name: g.name, displayName: g.displayName ?? g.name, privileges: (g.privileges ?? []) as Privilege[], created: t, modified: t });
      } else {
        result.groupsUpdated.push(existing.name);
        if (apply) {
          if (g.displayName) existing.displayName = g.displayName;
          if (g.privileges) existing.privileges = g.privileges as Privilege[];
          existing.modified = t;
        }
      }
    }
    for (const u of users) {
      const existing = catalog.userByName(u.name);
      const gids = (u.groupNames ?? []).map((n) => catalog.groupByName(n)?.id ?? stableGuid('group', n));
      if (!existing) {
        result.usersAdded.push(u.name);
        if (apply) st.users.push({ id: stableGuid('user', u.name), name: u.name, displayName: u.displayName ?? u.name, mail: u.mail, ...(await hashPassword((u.password ?? defaultPassword)!)), groups: gids, created: t, modified: t });
      } else {
        result.usersUpdated.push(existing.name);
        if (apply) {
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
    }
    if (removeDeleted) {
      const keepUsers = new Set(users.map((u) => u.name.toLowerCase()));
      const keepGroups = new Set(groups.map((g) => g.name.toLowerCase()));
      for (const u of [...st.users]) {
        if (keepUsers.has(u.name.toLowerCase()) || u.id === me.id) continue;
        result.usersDeleted.push(u.name);
        if (apply) {
          st.users.splice(st.users.indexOf(u), 1);
          sessions.closeUser(u.id);
        }
      }
      for (const g of [...st.groups]) {
        if (keepGroups.has(g.name.toLowerCase())) continue;
        if (st.users.some((u) => u.id === me.id && u.groups.includes(g.id) && g.privileges.includes('ADMINISTRATION'))) continue;
        result.groupsDeleted.push(g.name);
        if (apply) {
          st.groups.splice(st.groups.indexOf(g), 1);
          for (const u of st.users) u.groups = u.groups.filter((x) => x !== g.id);
        }
      }
    }
    if (apply) catalog.save();
    return result;
  });

  api.post('/user/updatepassword', async (req, reply) => {
    const me = userOf(req);
    const name = param(req, 'name');
    const current = param(req, 'currentpassword');
    const next = param(req, 'password');
    if (!name || current === undefined || next === undefined) throw badRequest('Missing parameter: name, currentpassword and password are required');
    const u = catalog.userByName(name);
    if (!u) throw badRequest(`No user named ${name}`);
    if (u.id !== me.id && !me.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
    if (!(await checkPassword(current, u))) throw badRequest('The current password is not correct');
    if (next.length < 1) throw badRequest('The new password is empty');
    Object.assign(u, await hashPassword(next));
    u.demoPassword = undefined;
    u.modified = now();
    catalog.save();
    sessions.closeUser(u.id, req.tsSessionId);
    return reply.code(204).send();
  });

  api.post('/user/transfer/ownership', async (req, reply) => {
    requirePrivilege(userOf(req), 'ADMINISTRATION');
    const from = param(req, 'fromUserName');
    const to = param(req, 'toUserName');
    if (!from || !to) throw badRequest('Missing parameter: fromUserName and toUserName are required');
    const a = catalog.userByName(from);
    const b = catalog.userByName(to);
    if (!a) throw badRequest(`No user named ${from}`);
    if (!b) throw badRequest(`No user named ${to}`);
    const t = now();
    for (const o of [...st.tables, ...st.books, ...st.tags]) {
      if (o.author === a.id) {
        o.author = b.id;
        o.modified = t;
        o.modifiedBy = b.id;
      }
    }
    catalog.save();
    return reply.code(204).send();
  });

  for (const [path, add] of [['/group/addprivilege', true], ['/group/removeprivilege', false]] as const) {
    api.post(path, async (req, reply) => {
      requirePrivilege(userOf(req), 'ADMINISTRATION');
      const privilege = param(req, 'privilege')?.toUpperCase();
      const names = listParam(req, 'groupNames');
      if (!privilege) throw badRequest('Missing parameter privilege');
      if (!PRIVILEGES.includes(privilege as Privilege)) throw badRequest(`Unknown privilege ${privilege}; one of ${PRIVILEGES.join(', ')}`);
      if (!names || names.length === 0) throw badRequest('Missing parameter groupNames (a JSON array)');
      const groups = names.map((n) => catalog.groupByName(n) ?? (() => { throw badRequest(`No group named ${n}`); })());
      for (const g of groups) {
        const has = g.privileges.includes(privilege as Privilege);
        if (add && !has) g.privileges.push(privilege as Privilege);
        if (!add && has) g.privileges = g.privileges.filter((p) => p !== privilege);
        g.modified = now();
      }
      catalog.save();
      return reply.code(204).send();
    });
  }

  api.post('/materialization/refreshview/:id', async (req) => {
    requirePrivilege(userOf(req), 'ADMINISTRATION', 'DATAMANAGEMENT');
    const { id } = req.params as { id: string };
    const ds = catalog.dataSource(id);
    if (!ds) throw badRequest(`No view or worksheet with id ${id}`);
    deps.search.invalidate(ds.tableId);
    return { id: ds.id, name: ds.name, status: 'REFRESHED', refreshedAt: now() };
  });
}
