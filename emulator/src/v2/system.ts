/**
 * REST API v2's system, token and catalogue operations beyond the sign-ins of routes.ts: `system`,
 * `system/config`, `auth/session/token`, `auth/token/validate`, `auth/token/object`,
 * `auth/token/custom`, `connection/search` and `roles/search`. Shapes and privileges from the OpenAPI
 * document of thoughtspot/rest-api-sdk (`api-spec/openapiSpecv3-2_0.json`); the table is on
 * `registerSystemV2`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import { stableGuid } from '../guid';
import { NamePattern } from '../public/headers';
import { JSON_BODY_ONLY, loginInOrgOf } from './login';
import type { V2Deps } from './routes';
import { sortAndPage, SORT_FIELDS } from './admin';
import type { IssuedToken } from './tokens';
import { isEmptyList, isRecord } from '../../../common/src/guards';
import { body, bool, int, str, stringList } from '../requestValues';

/** Validity of the token auth/session/token issues: "valid for 24 hours" (OpenAPI `getCurrentUserToken`). */
const SESSION_TOKEN_VALIDITY_SEC = 24 * 3600;

/** The `data_warehouse_type` of the emulator's connections, as calendars/search gives it (routes.ts). */
const WAREHOUSE = 'DUCKDB';

function requirePrivilege(req: FastifyRequest, ...any: string[]): void {
  const has: ReadonlySet<string> = req.v2User!.privileges;
  if (!any.some((p) => has.has(p))) throw new ApiError(403, FORBIDDEN_TEXT);
}

/** A token's `Scope` (OpenAPI): FULL, or REPORT_BOOK_VIEW with the object of an auth/token/object token. */
function scopeOf(t: Pick<IssuedToken, 'metadataId' | 'orgId'>): Record<string, unknown> {
  return t.metadataId === undefined ? { access_type: 'FULL', org_id: t.orgId } : { access_type: 'REPORT_BOOK_VIEW', org_id: t.orgId, metadata_id: t.metadataId };
}

/**
 * Registers these routes in the v2 scope:
 *
 * | route | operationId | privilege | answer |
 * |---|---|---|---|
 * | `GET system` | `getSystemInformation` | ADMINISTRATION | `SystemInfo`: the emulator's name, version, locale and the GUIDs of tsadmin (the first administrator) and the Administrator group |
 * | `GET system/config` | `getSystemConfig` | ADMINISTRATION | `SystemConfig`: no SAML, no Okta |
 * | `GET auth/session/token` | `getCurrentUserToken` | signed in | `GetTokenResponse`: a new token for the caller, 24 hours |
 * | `POST auth/token/validate` | `validateToken` | signed in | `TokenValidationResponse` of `token`; 400 for one that is not valid |
 * | `POST auth/token/object` | `getObjectAccessToken` | the user's password or the trusted-authentication secret | `Token` scoped REPORT_BOOK_VIEW to `object_id` (which the user must be able to read) |
 * | `POST auth/token/custom` | `getCustomAccessToken` | the same | `AccessToken`; `filter_rules`, `parameter_values`, `variable_values` refused (the emulator has no row-level security) |
 * | `POST connection/search` | `searchConnection` | DATAMANAGEMENT or ADMINISTRATION | `SearchConnectionResponse[]`: one connection per DuckDB database of the catalog |
 * | `POST roles/search` | `searchRoles` | ADMINISTRATION | `[]`: roles exist only with RBAC, which the emulator does not have |
 */
export function registerSystemV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog, tokens } = deps;
  api.get('/system', async (req) => {
    requirePrivilege(req, 'ADMINISTRATION');
    const admin = catalog.state.users.find((u) => catalog.user(u.id)?.privileges.has('ADMINISTRATION'));
    const adminGroup = catalog.state.groups.find((g) => g.privileges.includes('ADMINISTRATION'));
    return {
      id: 'emulator',
      name: 'TSQ emulator',
      release_version: 'emulator',
      time_zone: 'UTC',
      locale: 'en-US',
      date_format: 'MM/dd/yyyy',
      api_version: 'v2',
      type: 'SW',
      environment: 'DEV',
      license: 'EMULATOR',
      date_time_format: 'MM/dd/yyyy h:mm a',
      time_format: 'HH:mm:ss',
      tsadmin_user_id: admin?.id,
      admin_group_id: adminGroup?.id,
      all_user_group_member_user_count: catalog.state.users.length,
    };
  });
  api.get('/system/config', async (req) => {
    requirePrivilege(req, 'ADMINISTRATION');
    return { onboarding_content_url: '', saml_enabled: false, okta_enabled: false };
  });
  api.get('/auth/session/token', async (req) => {
    const u = req.v2User!;
    const t = tokens.issue(u.id, SESSION_TOKEN_VALIDITY_SEC, { orgId: u.orgId });
    return { token: t.token, creation_time_in_millis: t.created, expiration_time_in_millis: t.expires, valid_for_user_id: u.id, valid_for_username: u.name };
  });
  api.post('/auth/token/validate', async (req) => {
    const token = str(body(req), 'token', true)!;
    const t = tokens.check(token);
    if (!t) throw new ApiError(400, 'Invalid token: it is unknown, expired or revoked.');
    return { creation_time_in_millis: t.created, expiration_time_in_millis: t.expires, scope: scopeOf(t), valid_for_user_id: t.userId, token_type: 'BEARER' };
  });
  api.post('/auth/token/object', JSON_BODY_ONLY, async (req) => {
    const b = body(req);
    if (bool(b, 'auto_create', false)) throw new ApiError(400, 'auto_create is not supported by the emulator: create the user first (users/create).');
    const { user, validity } = await loginInOrgOf(b, deps);
    const objectId = str(b, 'object_id', true)!;
    const o = catalog.objectByGuid(objectId);
    if (!o?.header || o.type === 'tag' || !catalog.canRead(user, o.header)) throw new ApiError(400, `Invalid value for object_id: no object ${objectId} this user may read.`);
    const t = tokens.issue(user.id, validity, { metadataId: o.header.id, orgId: user.orgId });
    return { token: t.token, creation_time_in_millis: t.created, expiration_time_in_millis: t.expires, scope: scopeOf(t), valid_for_user_id: user.id, valid_for_username: user.name };
  });
  api.post('/auth/token/custom', JSON_BODY_ONLY, async (req) => {
    const b = body(req);
    const persist = str(b, 'persist_option', true)!.toUpperCase();
    if (!['REPLACE', 'APPEND', 'NONE', 'RESET'].includes(persist)) throw new ApiError(400, `Invalid value for persist_option: ${persist} (REPLACE, APPEND, NONE or RESET).`);
    for (const rls of ['filter_rules', 'parameter_values', 'variable_values']) {
      if (!isEmptyList(b[rls]) && Array.isArray(b[rls])) throw new ApiError(400, `${rls} is not supported by the emulator: it has no row-level security or formula variables.`);
    }
    const { user, validity } = await loginInOrgOf(b, deps);
    const t = tokens.issue(user.id, validity, { orgId: user.orgId });
    const org = catalog.org(t.orgId) ?? catalog.orgs()[0]!;
    return { id: stableGuid('token', t.token), token: t.token, org: { id: org.id, name: org.name }, user: { id: user.id, name: user.name }, creation_time_in_millis: t.created, expiration_time_in_millis: t.expires };
  });
  registerConnectionsAndRoles(api, deps);
}

/** connection/search and roles/search. */
function registerConnectionsAndRoles(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  api.post('/connection/search', async (req) => {
    requirePrivilege(req, 'DATAMANAGEMENT', 'ADMINISTRATION');
    const b = body(req);
    const types = stringList(b, 'data_warehouse_types')?.map((x) => x.toUpperCase());
    const wanted: unknown[] | undefined = Array.isArray(b.connections) ? b.connections : undefined;
    const details = bool(b, 'include_details', false);
    int(b, 'record_offset', 0, 0);
    const byDb = new Map<string, { created: number; modified: number; author: string; tables: string[] }>();
    for (const t of catalog.state.tables) {
      if (t.subtype !== 'ONE_TO_ONE_LOGICAL') continue;
      const c = byDb.get(t.database) ?? { created: t.created, modified: t.modified, author: t.author, tables: [] };
      c.created = Math.min(c.created, t.created);
      c.modified = Math.max(c.modified, t.modified);
      c.tables.push(t.tableName);
      byDb.set(t.database, c);
    }
    const rows = [...byDb].flatMap(([db, c]) => {
      const id = stableGuid('connection', db);
      if (types !== undefined && !types.includes(WAREHOUSE)) return [];
      if (wanted !== undefined && wanted.length > 0 && !wanted.some((w) => connectionMatches(w, id, db))) return [];
      const answer = { id, name: db, description: `DuckDB database ${db} of the emulator`, data_warehouse_type: WAREHOUSE, ...(details ? { details: { tables: c.tables.sort() } } : {}) };
      const authorName = catalog.storedUser(c.author)?.name ?? '';
      return [{ key: { name: db, displayName: db, authorName, created: c.created, modified: c.modified }, answer }];
    });
    return sortAndPage(rows, b, SORT_FIELDS).map((r) => r.answer);
  });
  api.post('/roles/search', async (req) => {
    requirePrivilege(req, 'ADMINISTRATION');
    body(req);
    return [];
  });
}

/** Whether a `ConnectionInput` (`{identifier, name_pattern}`) names the connection `id` / `name`. */
function connectionMatches(w: unknown, id: string, name: string): boolean {
  if (!isRecord(w)) throw new ApiError(400, 'Invalid value for connections: each entry is {identifier, name_pattern}.');
  const e = w;
  const ident = str(e, 'identifier')?.toLowerCase();
  const pattern = str(e, 'name_pattern');
  return (ident === undefined || ident === id || ident === name.toLowerCase()) && (pattern === undefined || new NamePattern(pattern).test(name));
}
