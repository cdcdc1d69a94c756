/**
 * Orgs (docs.thoughtspot.com cloud/latest/orgs-overview): a tenant divided into Orgs, each with its own
 * objects, groups and tags (`orgId` on each, absent = Primary, 0); a user belongs to one or more, and an
 * administrator of Primary acts in all. A session or token runs in one Org (`Session.orgId`), named at
 * login (v1 `orgid`, v2 `org_id`/`org_identifier`) or switched (v1 `PUT session/orgs`). The Org lists
 * and changes of v2 (`orgs/search|create|{id}/update|{id}/delete`) and v1's `session/orgs` are here.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { EmulatorUser } from './context';
import { ApiError, badRequest, FORBIDDEN_TEXT } from './errors';
import { PRIMARY_ORG_ID, type MetadataStore, type StoredOrg } from './metadataStore';
import type { Sessions } from './auth';
import { userOf, pathParam } from './public/params';
import { body, formValues, int, str, stringList } from './requestValues';

/**
 * The user acting in the Org a login names (`requested`: an id, digits or a name; undefined: the user as
 * it is, in its default Org).
 * @throws ApiError 401 naming the Org when there is no such Org or the user may not act in it (the
 *   service refuses the login alike, without saying which)
 */
export function userInOrg(catalog: MetadataStore, user: EmulatorUser, requested: unknown, field: string): EmulatorUser {
  if (requested === undefined || requested === null || requested === '') return user;
  if (typeof requested !== 'number' && typeof requested !== 'string') throw new ApiError(400, `Invalid value for ${field}: expected an Org id or name.`);
  const org = catalog.org(requested);
  const inOrg = org ? catalog.user(user.id, org.id) : undefined;
  if (!inOrg) throw new ApiError(401, `Authentication failed: ${user.name} is not a member of an Org ${JSON.stringify(String(requested))} (${field}).`);
  return inOrg;
}

/** An Org as v2 answers it (OpenAPI `OrgResponse`: an integer id; `status` ACTIVE, `visibility` SHOW). */
export function orgOfV2(o: StoredOrg): Record<string, unknown> {
  return { id: o.id, name: o.name, status: 'ACTIVE', description: o.description ?? '', visibility: 'SHOW' };
}

/** "Requires cluster administration (Can administer Org)": an administrator of every Org (`administersAllOrgs`). */
function requireOrgAdmin(catalog: MetadataStore, user: EmulatorUser): void {
  const stored = catalog.storedUser(user.id);
  if (!stored || !catalog.administersAllOrgs(stored)) throw new ApiError(403, FORBIDDEN_TEXT);
}

/** A new Org id: a positive 31-bit integer (the document's ids are `int32`) not in use. */
function newOrgId(catalog: MetadataStore): number {
  for (;;) {
    const id = 1 + Math.floor(Math.random() * 0x7ffffffe);
    if (!catalog.org(id)) return id;
  }
}

/**
 * Deletes an Org: its objects, groups and tags go; its users leave it, and a user left in no Org goes
 * ("When you delete an Org, all its users and objects created in that Org context are removed",
 * OpenAPI `deleteOrg`). Sessions in it end on their next request (the Org no longer exists).
 */
function deleteOrg(catalog: MetadataStore, org: StoredOrg): void {
  const st = catalog.state;
  const keep = <T extends { orgId?: number }>(list: T[]): T[] => list.filter((x) => catalog.orgOf(x) !== org.id);
  st.tables = keep(st.tables);
  st.books = keep(st.books);
  st.tags = keep(st.tags);
  const gone = new Set(st.groups.filter((g) => catalog.orgOf(g) === org.id).map((g) => g.id));
  st.groups = keep(st.groups);
  for (const u of st.users) {
    u.groups = u.groups.filter((g) => !gone.has(g));
    if (u.orgs?.includes(org.id)) u.orgs = u.orgs.filter((o) => o !== org.id);
  }
  st.users = st.users.filter((u) => u.orgs === undefined || u.orgs.length > 0);
  st.orgs = (st.orgs ?? []).filter((o) => o.id !== org.id);
}

/** The Org of a path's `org_identifier` (id or name). @throws ApiError 400 for an unknown one */
function orgOfPath(catalog: MetadataStore, identifier: string): StoredOrg {
  const org = catalog.org(identifier);
  if (!org) throw new ApiError(400, `Invalid value for org_identifier: no Org ${identifier}.`);
  return org;
}

/**
 * Registers v2's Org operations (OpenAPI of thoughtspot/rest-api-sdk, 9.0.0.cl or later), each for an
 * administrator of every Org (403 otherwise):
 *
 * | route | answer |
 * |---|---|
 * | `POST orgs/search` | `OrgResponse[]`, filtered by `org_identifier`, `description`, `status`, `visibility`, `user_identifiers` |
 * | `POST orgs/create` | `OrgResponse` of the new Org (`name`, `description`) |
 * | `POST orgs/{org_identifier}/update` | 204; `name`, `description`, `user_identifiers` with `operation` ADD (default), REMOVE or REPLACE |
 * | `POST orgs/{org_identifier}/delete` | 204 (`deleteOrg`); Primary cannot be deleted (400) |
 */
export function registerOrgsV2(api: FastifyInstance, deps: { catalog: MetadataStore; now(): Date }): void {
  const { catalog } = deps;
  api.post('/orgs/search', async (req) => {
    requireOrgAdmin(catalog, req.v2User!);
    const b = body(req);
    const id = str(b, 'org_identifier');
    const description = str(b, 'description')?.toLowerCase();
    const status = str(b, 'status');
    const visibility = str(b, 'visibility');
    const users = stringList(b, 'user_identifiers')?.map((u) => catalog.userByName(u) ?? catalog.storedUser(u.toLowerCase()));
    // every Org is ACTIVE and shown: another status or visibility lists none
    if ((status !== undefined && status !== 'ACTIVE') || (visibility !== undefined && visibility !== 'SHOW')) return [];
    return catalog
      .orgs()
      .filter((o) => id === undefined || catalog.org(id)?.id === o.id)
      .filter((o) => description === undefined || (o.description ?? '').toLowerCase() === description)
      .filter((o) => users === undefined || users.some((u) => u !== undefined && catalog.orgsOfUser(u).includes(o.id)))
      .map(orgOfV2);
  });

  api.post('/orgs/create', async (req) => {
    requireOrgAdmin(catalog, req.v2User!);
    const b = body(req);
    const name = str(b, 'name', true)!;
    if (catalog.org(name) || /^\d+$/.test(name)) throw new ApiError(400, `Invalid value for name: an Org named ${name} exists, or the name is a number.`);
    const t = deps.now().getTime();
    const description = str(b, 'description');
    const org: StoredOrg = { id: newOrgId(catalog), name, ...(description !== undefined ? { description } : {}), created: t, modified: t };
    (catalog.state.orgs ??= []).push(org);
    catalog.save();
    return orgOfV2(org);
  });

  api.post('/orgs/:org_identifier/update', async (req, reply: FastifyReply) => {
    requireOrgAdmin(catalog, req.v2User!);
    const org = orgOfPath(catalog, pathParam(req, 'org_identifier'));
    const b = body(req);
    const name = str(b, 'name');
    const operation = (str(b, 'operation') ?? 'ADD').toUpperCase();
    if (!['ADD', 'REMOVE', 'REPLACE'].includes(operation)) throw new ApiError(400, `Invalid value for operation: ${operation} (ADD, REMOVE or REPLACE).`);
    if (stringList(b, 'group_identifiers') !== undefined) throw new ApiError(400, 'group_identifiers (default groups of an Org) is not supported by the emulator.');
    const users = stringList(b, 'user_identifiers')?.map((u) => catalog.userByName(u) ?? catalog.storedUser(u.toLowerCase()) ?? (() => { throw new ApiError(400, `Invalid value for user_identifiers: no user ${u}.`); })());
    if (name !== undefined && org.id !== PRIMARY_ORG_ID) {
      const other = catalog.org(name);
      if ((other && other.id !== org.id) || /^\d+$/.test(name)) throw new ApiError(400, `Invalid value for name: an Org named ${name} exists, or the name is a number.`);
      org.name = name;
    }
    const description = str(b, 'description');
    if (description !== undefined) org.description = description;
    if (users !== undefined) {
      const listed = new Set(users.map((u) => u.id));
      for (const u of catalog.state.users) {
        const has = catalog.orgsOfUser(u).includes(org.id);
        const want = operation === 'ADD' ? has || listed.has(u.id) : operation === 'REMOVE' ? has && !listed.has(u.id) : listed.has(u.id);
        if (want !== has) u.orgs = want ? [...catalog.orgsOfUser(u), org.id] : catalog.orgsOfUser(u).filter((o) => o !== org.id);
      }
    }
    org.modified = deps.now().getTime();
    catalog.save();
    return reply.code(204).send();
  });

  api.post('/orgs/:org_identifier/delete', async (req, reply: FastifyReply) => {
    requireOrgAdmin(catalog, req.v2User!);
    const org = orgOfPath(catalog, pathParam(req, 'org_identifier'));
    if (org.id === PRIMARY_ORG_ID) throw new ApiError(400, 'The Primary Org cannot be deleted.');
    deleteOrg(catalog, org);
    catalog.save();
    return reply.code(204).send();
  });
}

/**
 * v1's `session/orgs` (the Org switch of REST API v1, as ThoughtSpot's own v1 clients call it):
 * `GET` lists the Orgs the session's user may act in, `{orgs: [{orgId, orgName, description}],
 * currentOrgId, isLastBatch}` (paged by `batchsize`, -1 all, and `offset`); `PUT` with the form
 * parameter `orgid` moves the session to that Org (204; 400 for an Org the user may not act in).
 * The response shape is the reading of docs/service-notes.md ("Orgs").
 */
export function registerSessionOrgsV1(api: FastifyInstance, deps: { catalog: MetadataStore; sessions: Sessions }): void {
  const { catalog, sessions } = deps;
  api.get('/session/orgs', async (req) => {
    const me = userOf(req);
    const all = catalog.orgsAvailableTo(catalog.storedUser(me.id)!);
    const offset = Math.max(0, int(formValues(req), 'offset', 0));
    const size = int(formValues(req), 'batchsize', -1);
    const page = size < 0 ? all.slice(offset) : all.slice(offset, offset + size);
    return { orgs: page.map((o) => ({ orgId: o.id, orgName: o.name, description: o.description ?? '' })), currentOrgId: me.orgId, isLastBatch: size < 0 || offset + size >= all.length };
  });

  api.put('/session/orgs', async (req, reply: FastifyReply) => {
    const me = userOf(req);
    const requested = str(formValues(req), 'orgid') ?? str(formValues(req), 'org');
    if (requested === undefined) throw badRequest('Missing parameter orgid');
    const org = catalog.org(requested);
    if (!org || !catalog.user(me.id, org.id)) throw badRequest(`Invalid value for orgid: ${me.name} is not a member of Org ${requested}`);
    const s = sessions.get(req.tsSessionId);
    if (s) s.orgId = org.id;
    return reply.code(204).send();
  });
}
