/**
 * The REST API v2 subset of the emulator, under `/api/rest/2.0`, over the same users, objects and data
 * as the v1 API (one catalog, one engine). The routes, their answers and the references are on
 * `registerV2Routes`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Sessions } from '../auth';
import type { AnswerBook, LogicalTable, MetadataStore } from '../metadataStore';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT, IncidentError, INTERNAL_TEXT, reportIncident, UNAUTHORIZED_TEXT } from '../errors';
import { NamePattern } from '../public/headers';
import { columnSources } from '../dataModel';
import { columnDependentsByType, dependentsByType } from '../dependents';
import { QueryError } from '../searchdata/compile';
import { registerTmlV2Routes, TmlService } from '../tml/routes';
import type { SearchService } from '../searchdata/run';
import { bearerOf, type TokenStore } from './tokens';
import { availableCalendars } from '../customCalendar';
import { stableGuid } from '../guid';
import { groupOfV2, registerAdminV2, sortAndPage, SORT_FIELDS, userOfV2, type Sortable } from './admin';
import { registerShareV2 } from './share';
import { JSON_BODY_ONLY, loginInOrgOf } from './login';
import { registerSystemV2 } from './system';
import { registerObjectsV2 } from './objects';
import { registerPrincipalsV2 } from './principals';
import { registerReportsV2 } from './reports';
import { registerTmlAsyncV2 } from './tmlAsync';
import { registerInputTablesV2 } from './inputTables';
import { registerOrgsV2, userInOrg } from '../orgs';
import { visualizationSource } from '../searchdata/formulaColumns';
import { isRecord, isOneOf, isStringArray } from '../../../common/src/guards';
import { body, bool, int, str, stringList } from '../requestValues';

/** Path prefix of REST API v2. */
export const V2_PREFIX = '/api/rest/2.0';

/** Most rows one searchdata page returns (`record_size: -1` included), as the v1 API's page size. */
const MAX_RECORD_SIZE = 100_000;

/** What the v2 routes need from the core. */
export interface V2Deps {
  catalog: MetadataStore;
  search: SearchService;
  sessions: Sessions;
  tokens: TokenStore;
  verifyPassword(username: string, password: string): Promise<EmulatorUser | undefined>;
  /** The secret of trusted authentication (`--trusted-auth-secret`); undefined: `secret_key` is refused. */
  trustedAuthSecret?: string;
  /** The emulator's clock (modification times). */
  now(): Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The v2 caller (set by the v2 scope's authentication hook). */
    v2User?: EmulatorUser;
    /** The bearer token or session id the v2 caller used. */
    v2Credential?: string;
  }
}

/**
 * The service's error code per HTTP status, as every error example of the OpenAPI document gives them
 * (400 → 10002, 401 → 10097, 403 → 10023, 500 → 10038); other statuses, which the document shows no
 * example of, take 10002 (4xx) or 10038 (5xx).
 */
const V2_ERROR_CODES: Record<number, number> = { 400: 10002, 401: 10097, 403: 10023, 500: 10038 };

/**
 * The v2 error body (OpenAPI `ErrorResponse`, shaped as every error example of
 * `api-spec/openapiSpecv3-2_0.json` of thoughtspot/rest-api-sdk, 26.8.0.cl):
 * `{"error": {"message": {"code", "incident_id_guid", "trace_id_guid", "debug": <the text>}}}`. The trace
 * id is new for each error; the incident id is the incident's when one was reported, else the trace id
 * (as the document's examples give the same GUID for both).
 */
export function v2ErrorBody(status: number, message: string, incident?: string): Record<string, unknown> {
  const code = V2_ERROR_CODES[status] ?? (status >= 500 ? 10038 : 10002);
  const trace = randomUUID();
  return { error: { message: { code, incident_id_guid: incident ?? trace, trace_id_guid: trace, debug: message } } };
}

/** The routes that authenticate by their body (a user name and password or secret), not by a token or session. */
const SIGN_IN_ROUTES = ['/auth/token/full', '/auth/session/login', '/auth/token/object', '/auth/token/custom'];

/**
 * Registers the v2 routes in their own scope with their error shape and authentication.
 *
 * The REST API v2 subset of the emulator, under `/api/rest/2.0` (reference:
 * https://developers.thoughtspot.com/docs/rest-apiv2-reference; request and response schemas from the
 * OpenAPI document of thoughtspot/rest-api-sdk, `api-spec/openapiSpecv3-2_0.json`; guides in the
 * thoughtspot/developer-docs pages `authentication.adoc`, `data-v2-api.adoc`, `about-rest-apis.adoc`):
 *
 * | route | answer |
 * |---|---|
 * | `POST auth/token/full` | `{token, creation_time_in_millis, expiration_time_in_millis, valid_for_user_id, valid_for_username}`; username with `password`, or with `secret_key` when trusted authentication is on (`--trusted-auth-secret`); `validity_time_in_sec` (default 300) |
 * | `POST auth/token/revoke` | 204; revokes `token` (default: the caller's own) |
 * | `POST auth/session/login`, `auth/session/logout` | 204; the cookie session of `authentication.adoc` (`JSESSIONID`, `clientId`) |
 * | `GET auth/session/user` | the caller: `{id, name, display_name, privileges, user_groups, …}` |
 * | `POST searchdata` | `{contents: [{column_names, data_rows, record_offset, record_size, returned_data_row_count, available_data_row_count, sampling_ratio}]}`, paged by `record_offset` (0-based) and `record_size` (default 10; -1 all, at most 100,000) |
 * | `POST metadata/liveboard/data` | `{metadata_id, metadata_name, contents: [{visualization_id, visualization_name, column_names, data_rows, …}]}` for `metadata_identifier` and optional `visualization_identifiers`, paged per visualization like searchdata |
 * | `POST metadata/search` | an array of `{metadata_id, metadata_name, metadata_type, metadata_header, metadata_detail, visualization_headers?, dependent_objects}` for LOGICAL_TABLE, LIVEBOARD, ANSWER, LOGICAL_COLUMN, TAG, USER and USER_GROUP, sorted by any documented `sort_options.field_name` |
 * | `POST calendars/search` | an array of `{calendar_name, calendar_id, connection_name, connection_id, data_warehouse_type, author_name, modification_time_in_millis}`, the custom calendars (`registerCalendars`); DATAMANAGEMENT or ADMINISTRATION |
 * | users, groups, tags and administration | admin.ts: `users/search`, `groups/search`, `tags/search`, `users/change-password`, `security/metadata/assign`, `groups/{group_identifier}/update`, `users/import` |
 * | `POST security/metadata/share` | share.ts: 204; shares objects READ_ONLY or MODIFY (NO_ACCESS removes), needs edit access to them |
 * | system, system/config, auth/session/token, auth/token/validate, auth/token/object, auth/token/custom, connection/search, roles/search | system.ts |
 * | metadata/delete, security/metadata/fetch-permissions, metadata/liveboard/sql, tags/create, assign, unassign, delete | objects.ts |
 * | users/create, update, delete; groups/create, delete | principals.ts |
 * | report/answer, report/liveboard (CSV) | reports.ts |
 * | metadata/tml/async/import, async/status, export/batch | tmlAsync.ts |
 * | `POST input-tables/create`, `{id}/update`, `{id}/delete` | inputTables.ts: input tables linked to a worksheet; `update` replaces the rows |
 * | `POST orgs/search`, `orgs/create`, `orgs/{org_identifier}/update`, `orgs/{org_identifier}/delete` | emulator/src/orgs.ts; a token or session runs in one Org (`org_id` of auth/token/full) and sees only its objects, users and groups |
 *
 * Bodies are JSON (the logins refuse any other type with 415, `JSON_BODY_ONLY`). Every route but the sign-ins (`SIGN_IN_ROUTES`) needs a bearer token (or a session cookie). Errors are
 * `{"error": {"message": {"code", "incident_id_guid", "trace_id_guid", "debug"}}}` (`v2ErrorBody`).
 * The same users, objects and data as the v1 API (one catalog, one engine).
 */
export async function registerV2Routes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  await app.register(async (api) => {
    api.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
      if (err instanceof QueryError) return reply.code(400).send(v2ErrorBody(400, err.message));
      if (err instanceof IncidentError) {
        const incident = reportIncident(req, err.status, err.detail);
        return reply.code(err.status).send(v2ErrorBody(err.status, err.message, incident));
      }
      if (err instanceof ApiError) return reply.code(err.status).send(v2ErrorBody(err.status, [err.message, ...err.details].join(' ')));
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      if (status < 500) return reply.code(status).send(v2ErrorBody(status, err.message));
      const incident = reportIncident(req, 500, err.stack ?? err.message);
      return reply.code(500).send(v2ErrorBody(500, `${INTERNAL_TEXT} Incident ${incident}.`, incident));
    });
    api.setNotFoundHandler((req, reply) => reply.code(404).send(v2ErrorBody(404, `No such operation: ${req.method} ${req.url.split('?')[0]}`)));
    api.addHook('preHandler', async (req) => {
      if (SIGN_IN_ROUTES.some((r) => req.routeOptions.url?.endsWith(r))) return;
      const credential = bearerOf(req.headers.authorization) ?? req.cookies?.JSESSIONID;
      const s = credential ? deps.sessions.get(credential) : undefined;
      const user = s ? deps.catalog.user(s.userId, s.orgId) : undefined;
      if (!s || !user) throw new ApiError(401, UNAUTHORIZED_TEXT);
      req.v2User = user;
      req.v2Credential = credential;
    });
    registerAuth(api, deps);
    registerData(api, deps);
    registerCalendars(api, deps);
    registerMetadata(api, deps);
    registerAdminV2(api, deps);
    registerShareV2(api, deps);
    registerSystemV2(api, deps);
    registerObjectsV2(api, deps);
    registerPrincipalsV2(api, deps);
    registerReportsV2(api, deps);
    registerTmlAsyncV2(api, deps);
    registerInputTablesV2(api, deps);
    registerOrgsV2(api, deps);
    registerTmlV2Routes(api, new TmlService(deps.catalog, deps.search, deps.search.now));
  }, { prefix: V2_PREFIX });
}

function registerAuth(api: FastifyInstance, deps: V2Deps): void {
  const { catalog, tokens } = deps;
  /** auth/token/full: a token for username + password, or username + secret_key (trusted authentication). */
  api.post('/auth/token/full', JSON_BODY_ONLY, async (req) => {
    const { user, validity } = await loginInOrgOf(body(req), deps);
    const t = tokens.issue(user.id, validity, { orgId: user.orgId });
    return { token: t.token, creation_time_in_millis: t.created, expiration_time_in_millis: t.expires, scope: { access_type: 'FULL', org_id: t.orgId, metadata_id: null }, valid_for_user_id: user.id, valid_for_username: user.name };
  });

  /** auth/session/login: a cookie session (204 with JSESSIONID and clientId), as v1's session/login. */
  api.post('/auth/session/login', JSON_BODY_ONLY, async (req, reply: FastifyReply) => {
    const b = body(req);
    const username = str(b, 'username', true)!;
    const password = str(b, 'password', true)!;
    const remember = bool(b, 'remember_me', false);
    const verified = await deps.verifyPassword(username, password);
    if (!verified) throw new ApiError(401, 'Authentication failed: wrong user name or password.');
    const user = userInOrg(catalog, verified, b.org_identifier, 'org_identifier');
    const s = deps.sessions.open(user.id, user.orgId);
    const maxAge = remember ? 7 * 24 * 3600 : undefined;
    reply.setCookie('JSESSIONID', s.id, { path: '/', httpOnly: true, sameSite: 'lax', maxAge });
    reply.setCookie('clientId', s.clientId, { path: '/', httpOnly: true, sameSite: 'lax', maxAge });
    return reply.code(204).send();
  });

  /** auth/session/logout: ends the caller's session or token (204). */
  api.post('/auth/session/logout', async (req, reply: FastifyReply) => {
    tokens.revoke(req.v2Credential!);
    reply.clearCookie('JSESSIONID', { path: '/' });
    reply.clearCookie('clientId', { path: '/' });
    return reply.code(204).send();
  });

  /** auth/token/revoke: ends the given token (default: the caller's own); 204. */
  api.post('/auth/token/revoke', async (req, reply: FastifyReply) => {
    const b = body(req);
    const token = str(b, 'token') ?? req.v2Credential!;
    const userIdentifier = str(b, 'user_identifier');
    const caller = req.v2User!;
    const target = deps.sessions.get(token);
    if (target && target.userId !== caller.id && !caller.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
    if (userIdentifier !== undefined) {
      const u = catalog.userByName(userIdentifier) ?? catalog.storedUser(userIdentifier);
      if (!u) throw new ApiError(400, `No user ${userIdentifier}.`);
      if (u.id !== caller.id && !caller.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
      if (str(b, 'token') === undefined) tokens.revokeUser(u.id);
    }
    tokens.revoke(token);
    return reply.code(204).send();
  });

  /** auth/session/user: the caller. */
  api.get('/auth/session/user', async (req) => {
    const u = req.v2User!;
    const stored = catalog.storedUser(u.id)!;
    const groups = stored.groups.map((g) => catalog.state.groups.find((x) => x.id === g)).filter((g) => g !== undefined).filter((g) => catalog.orgOf(g) === u.orgId);
    return {
      id: u.id,
      name: u.name,
      display_name: u.displayName,
      visibility: 'SHARABLE',
      can_change_password: true,
      current_org: { id: u.orgId, name: catalog.org(u.orgId)?.name ?? String(u.orgId) },
      orgs: catalog.orgsAvailableTo(stored).map((o) => ({ id: o.id, name: o.name })),
      deleted: false,
      deprecated: false,
      hidden: false,
      account_type: 'LOCAL_USER',
      account_status: 'ACTIVE',
      ...(stored.mail ? { email: stored.mail } : {}),
      privileges: [...u.privileges],
      user_groups: groups.map((g) => ({ id: g.id, name: g.name })),
      user_inherited_groups: groups.map((g) => ({ id: g.id, name: g.name })),
      creation_time_in_millis: stored.created,
      modification_time_in_millis: stored.modified,
      super_user: false,
      system_user: false,
    };
  });
}

/**
 * The paging of a v2 data request (`data-v2-api.adoc`): `data_format` COMPACT (default) or FULL,
 * `record_offset` (0-based, default 0) and `record_size` (default 10; -1 for all rows), a page being at
 * most MAX_RECORD_SIZE rows. Throws `ApiError` 400 naming the parameter for an invalid value.
 */
function pageOf(b: Record<string, unknown>): { format: 'COMPACT' | 'FULL'; offset: number; pageSize: number } {
  const format = (str(b, 'data_format') ?? 'COMPACT').toUpperCase();
  if (format !== 'COMPACT' && format !== 'FULL') throw new ApiError(400, `Invalid value for data_format: ${format} (COMPACT or FULL).`);
  const offset = int(b, 'record_offset', 0, 0);
  const size = int(b, 'record_size', 10, -1);
  if (size === 0) throw new ApiError(400, 'Invalid value for record_size: 0 (-1 for all rows, or 1 or more).');
  return { format, offset, pageSize: size === -1 ? MAX_RECORD_SIZE : Math.min(size, MAX_RECORD_SIZE) };
}

function registerData(api: FastifyInstance, deps: V2Deps): void {
  const { catalog, search } = deps;
  /** metadata/liveboard/data (`data-v2-api.adoc`): each visualization's answer, paged as searchdata. */
  api.post('/metadata/liveboard/data', async (req) => {
    const b = body(req);
    const id = str(b, 'metadata_identifier', true)!;
    const { format, offset, pageSize } = pageOf(b);
    const wanted = b.visualization_identifiers;
    if (wanted !== undefined && !isStringArray(wanted)) throw new ApiError(400, 'Invalid value for visualization_identifiers: expected a list of GUIDs or names.');
    const board = catalog.state.books.find((x) => x.type === 'PINBOARD_ANSWER_BOOK' && catalog.orgOf(x) === req.v2User!.orgId && (x.id === id.toLowerCase() || x.name === id));
    if (!board) throw new ApiError(400, `Invalid metadata_identifier: no liveboard ${id}.`);
    if (!catalog.canRead(req.v2User!, board)) throw new ApiError(403, FORBIDDEN_TEXT);
    const vizs = wanted
      ? wanted.map((w) => board.visualizations.find((v) => v.id === w.toLowerCase() || v.name === w) ?? (() => { throw new ApiError(400, `Liveboard ${board.name} has no visualization ${w}.`); })())
      : board.visualizations;
    const contents = [];
    for (const v of vizs) {
      const ds = catalog.dataSource(v.dataSource);
      if (!ds) throw new ApiError(400, `Visualization ${v.name}: its data source no longer exists.`);
      if (!catalog.canRead(req.v2User!, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
      const r = await search.search(visualizationSource(ds, v), v.query, { batchsize: pageSize, pagenumber: -1, offset, formattype: format });
      contents.push({ visualization_id: v.id, visualization_name: v.name, available_data_row_count: r.totalRowCount, column_names: r.columnNames, data_rows: r.data, record_offset: offset, record_size: pageSize, returned_data_row_count: r.rowCount, sampling_ratio: r.samplingRatio });
    }
    return { metadata_id: board.id, metadata_name: board.name, contents };
  });

  /** searchdata (`data-v2-api.adoc`): `query_string`, `logical_table_identifier` (GUID or name), `data_format`, `record_offset`, `record_size`. */
  api.post('/searchdata', async (req) => {
    const b = body(req);
    const query = str(b, 'query_string', true)!;
    const id = str(b, 'logical_table_identifier', true)!;
    const { format, offset, pageSize } = pageOf(b);
    for (const unsupported of ['runtime_filter', 'runtime_sort', 'runtime_param_override']) {
      const v = b[unsupported];
      if (v !== undefined && v !== null && !(typeof v === 'object' && Object.keys(v).length === 0)) throw new ApiError(400, `${unsupported} is not supported by the emulator; write the filter or sort in query_string.`);
    }
    const ds = catalog.dataSourceByIdOrName(id, req.v2User!.orgId);
    if (!ds) throw new ApiError(400, `Invalid logical_table_identifier: no worksheet, view or table ${id}.`);
    if (!catalog.canRead(req.v2User!, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
    const r = await search.search(ds, query, { batchsize: pageSize, pagenumber: -1, offset, formattype: format });
    return {
      contents: [
        {
          available_data_row_count: r.totalRowCount,
          column_names: r.columnNames,
          data_rows: r.data,
          record_offset: offset,
          record_size: pageSize,
          returned_data_row_count: r.rowCount,
          sampling_ratio: r.samplingRatio,
        },
      ],
    };
  });
}

/**
 * `POST calendars/search` (OpenAPI `searchCalendars`, 10.12.0.cl or later; the custom calendars of
 * docs.thoughtspot.com cloud/latest/connections-cust-cal): the calendars this emulator has (customCalendar.ts
 * `availableCalendars`), each a `CalendarResponse` (`calendar_name`, `calendar_id`, `connection_name`,
 * `connection_id`, `data_warehouse_type`, `author_name`, `modification_time_in_millis` as a string); the
 * connection is the calendar table's database. Body: `connection_identifier` (a connection's id or name),
 * `name_pattern` (`%` wildcards, case-insensitive), `sort_options`, `record_offset`, `record_size` (default
 * 10, -1 for all). "Requires DATAMANAGEMENT (Can manage data) or ADMINISTRATION": 403 otherwise.
 */
function registerCalendars(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  api.post('/calendars/search', async (req) => {
    const user = req.v2User!;
    if (!user.privileges.has('DATAMANAGEMENT') && !user.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
    const b = body(req);
    const connection = str(b, 'connection_identifier')?.toLowerCase();
    const pattern = str(b, 'name_pattern');
    const matches = pattern === undefined ? undefined : new NamePattern(pattern);
    const rows = availableCalendars((d, sc, t) => !!catalog.table(d, sc, t)).flatMap((cal) => {
      const table = catalog.table(cal.database, cal.schema, cal.table)!;
      const connectionId = stableGuid('connection', cal.database);
      if (connection !== undefined && connection !== connectionId && connection !== cal.database.toLowerCase()) return [];
      if (matches && !matches.test(cal.name)) return [];
      const authorName = catalog.storedUser(table.author)?.name ?? '';
      const answer = {
        calendar_name: cal.name,
        calendar_id: stableGuid('calendar', cal.database, cal.name),
        connection_name: cal.database,
        connection_id: connectionId,
        data_warehouse_type: 'DUCKDB',
        author_name: authorName,
        modification_time_in_millis: String(table.modified),
      };
      return [{ key: { name: cal.name, displayName: cal.name, authorName, created: table.created, modified: table.modified }, answer }];
    });
    return sortAndPage(rows, b, SORT_FIELDS).map((r) => r.answer);
  });
}

/** The v2 `metadata_header` of a data source: the v1 header plus its subtype and author's name. */
function tableHeader(t: LogicalTable, catalog: MetadataStore): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    type: t.subtype,
    author: t.author,
    authorName: catalog.storedUser(t.author)?.name,
    created: t.created,
    modified: t.modified,
    modifiedBy: t.modifiedBy,
    owner: t.id,
    isAutoCreated: t.isAutoCreated,
    tags: t.tags.map((id) => catalog.state.tags.find((x) => x.id === id)).filter((x) => x !== undefined).map((x) => ({ id: x.id, name: x.name })),
  };
}

/** The v2 `metadata_detail` of a data source: its columns (the same fields as v1 metadata/details). */
function tableDetail(t: LogicalTable, catalog: MetadataStore): Record<string, unknown> {
  return {
    header: { id: t.id, name: t.name },
    type: t.subtype,
    columns: t.columns.map((c) => ({
      header: { id: c.id, name: c.name, owner: t.id, ...(c.description !== undefined ? { description: c.description } : {}) },
      dataType: c.dataType,
      type: c.kind,
      defaultAggrType: c.aggregation,
      synonyms: c.synonyms,
      ...columnSources(catalog, t, c),
    })),
  };
}

function bookHeader(b: AnswerBook, catalog: MetadataStore): Record<string, unknown> {
  return { id: b.id, name: b.name, ...(b.description !== undefined ? { description: b.description } : {}), author: b.author, authorName: catalog.storedUser(b.author)?.name, created: b.created, modified: b.modified, modifiedBy: b.modifiedBy, owner: b.id };
}

/** v2 metadata types the emulator lists (OpenAPI `MetadataListItemInput.type`; the others it has none of). */
const TYPES = ['LOGICAL_TABLE', 'LIVEBOARD', 'ANSWER', 'LOGICAL_COLUMN', 'TAG', 'USER', 'USER_GROUP'] as const;
type V2Type = (typeof TYPES)[number];

/** `MetadataSearchSortOptions.field_name`: `SortOptions`' fields and VIEWS, FAVORITES, LAST_ACCESSED (0 for every object: the emulator counts no views, favorites or accesses). */
const METADATA_SORT_FIELDS = [...SORT_FIELDS, 'VIEWS', 'FAVORITES', 'LAST_ACCESSED'] as const;

interface Filter {
  type: V2Type | undefined;
  identifier: string | undefined;
  pattern: NamePattern | undefined;
  subtypes: string[] | undefined;
}

/** The `metadata` member: a list of `{identifier, name_pattern, type, subtypes}`, or one such object (as ThoughtSpot's Python client examples send it); empty: every object. */
function filtersOf(b: Record<string, unknown>): Filter[] {
  const raw = b.metadata ?? [];
  const list: unknown[] | undefined = Array.isArray(raw) ? raw : isRecord(raw) ? [raw] : undefined;
  if (!list) throw new ApiError(400, 'Invalid value for metadata: expected a list of {identifier, name_pattern, type, subtypes}.');
  const filters = list.map((m) => {
    if (!isRecord(m)) throw new ApiError(400, 'Invalid value for metadata: each entry is an object.');
    const e = m;
    const type = str(e, 'type');
    if (type !== undefined && !isOneOf(TYPES, type)) throw new ApiError(400, `metadata type ${type} is not supported by the emulator (${TYPES.join(', ')}).`);
    const subtypes = e.subtypes;
    if (subtypes !== undefined && !isStringArray(subtypes)) throw new ApiError(400, 'Invalid value for subtypes: expected a list of strings.');
    const pattern = str(e, 'name_pattern');
    return { type, identifier: str(e, 'identifier'), pattern: pattern === undefined ? undefined : new NamePattern(pattern), subtypes };
  });
  return filters.length ? filters : [{ type: undefined, identifier: undefined, pattern: undefined, subtypes: undefined }];
}

/**
 * `dependent_objects` of a data source (the Python client's example reads `dependent_objects[guid]`,
 * "split into the V1 object_types"): `dependentsByType` (emulator/src/dependents.ts) as v2 headers, at
 * most `limit` (`dependent_objects_record_size`, "the maximum number of dependents to include per
 * metadata object", default 50; -1 all); `{guid: {}}` when none.
 */
function dependentsOf(t: LogicalTable, catalog: MetadataStore, user: EmulatorUser, limit: number): Record<string, unknown> {
  return { [t.id]: dependentsByType(t, catalog, user, limit, v2Header(catalog)) };
}

/** A dependent's v2 header: an answer's or liveboard's, else a data source's. */
const v2Header = (catalog: MetadataStore) => (o: LogicalTable | AnswerBook): Record<string, unknown> => ('type' in o ? bookHeader(o, catalog) : tableHeader(o, catalog));

/** Whether `favorite_object_options.include` asks for favorites only. @throws ApiError 400 for a member that is not an object */
function favoritesAsked(b: Record<string, unknown>): boolean {
  const fav = b.favorite_object_options;
  if (fav === undefined || fav === null) return false;
  if (!isRecord(fav)) throw new ApiError(400, 'Invalid value for favorite_object_options: expected {include, user_identifiers}.');
  return bool(fav, 'include', false);
}

function registerMetadata(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  /**
   * metadata/search: `metadata` (see `filtersOf`), `include_details`, `include_visualization_headers`,
   * `include_dependent_objects` (data sources: `dependentsOf`; columns: `columnDependentsByType`; `dependent_objects_record_size`), `created_by_user_identifiers`,
   * `favorite_object_options` (none are kept: `include` lists nothing),
   * `tag_identifiers`, `record_offset` (0), `record_size` (10; -1 all), `sort_options` (`field_name` of
   * `METADATA_SORT_FIELDS`, `order` ASC or DESC).
   */
  api.post('/metadata/search', async (req) => {
    const b = body(req);
    const user = req.v2User!;
    const filters = filtersOf(b);
    const details = bool(b, 'include_details', false);
    const vizHeaders = bool(b, 'include_visualization_headers', false);
    const dependents = bool(b, 'include_dependent_objects', false);
    const dependentsLimit = int(b, 'dependent_objects_record_size', 50, -1);
    const authors = stringList(b, 'created_by_user_identifiers')?.map((a) => catalog.userByName(a)?.id ?? a.toLowerCase());
    if (favoritesAsked(b)) return []; // the emulator keeps no favorites (as v1's category FAVORITE)
    const tagIds = stringList(b, 'tag_identifiers')?.map((t) => catalog.tagsIn(user.orgId).find((x) => x.id === t.toLowerCase() || x.name.toLowerCase() === t.toLowerCase())?.id ?? t);
    const authorName = (id: string): string => catalog.storedUser(id)?.name ?? '';
    const out: { key: Sortable; row: Record<string, unknown> }[] = [];
    const seen = new Set<string>();
    const keep = (h: { id: string; author: string; tags: string[] }): boolean => !seen.has(h.id) && (authors === undefined || authors.includes(h.author)) && (tagIds === undefined || h.tags.some((t) => tagIds.includes(t)));
    const entry = (id: string, name: string, type: V2Type, header: Record<string, unknown>, detail: unknown, more: Record<string, unknown> = {}): Record<string, unknown> => ({
      metadata_id: id,
      metadata_name: name,
      metadata_type: type,
      metadata_obj_id: null,
      metadata_header: header,
      metadata_detail: detail,
      ...more,
      dependent_objects: null,
      incomplete_objects: null,
      stats: null,
    });
    const key = (h: { name: string; author: string; created: number; modified: number }, displayName = h.name): Sortable => ({ name: h.name, displayName, authorName: authorName(h.author), created: h.created, modified: h.modified });
    for (const f of filters) {
      const matches = (h: { id: string; name: string }): boolean =>
        (f.identifier === undefined || h.id === f.identifier.toLowerCase() || h.name === f.identifier) && (f.pattern === undefined || f.pattern.test(h.name));
      const want = (t: V2Type): boolean => f.type === t || (f.type === undefined && (t === 'LOGICAL_TABLE' || t === 'LIVEBOARD' || t === 'ANSWER'));
      if (want('LOGICAL_TABLE')) {
        for (const t of catalog.state.tables) {
          if (!keep(t) || !matches(t) || !catalog.canRead(user, t)) continue;
          if (f.subtypes && !f.subtypes.includes(t.subtype)) continue;
          seen.add(t.id);
          const row = entry(t.id, t.name, 'LOGICAL_TABLE', tableHeader(t, catalog), details ? tableDetail(t, catalog) : null);
          if (dependents) row.dependent_objects = dependentsOf(t, catalog, user, dependentsLimit);
          out.push({ key: key(t), row });
        }
      }
      for (const bk of catalog.state.books) {
        const type: V2Type = bk.type === 'PINBOARD_ANSWER_BOOK' ? 'LIVEBOARD' : 'ANSWER';
        if (!want(type) || !keep(bk) || !matches(bk) || !catalog.canRead(user, bk)) continue;
        seen.add(bk.id);
        const visualizations = bk.visualizations.map((v) => ({ id: v.id, name: v.name, data_source_id: v.dataSource, query: v.query }));
        const more = vizHeaders ? { visualization_headers: bk.visualizations.map((v) => ({ id: v.id, name: v.name })) } : {};
        const row = entry(bk.id, bk.name, type, bookHeader(bk, catalog), details ? { header: { id: bk.id, name: bk.name }, visualizations } : null, more);
        if (dependents) row.dependent_objects = { [bk.id]: {} };
        out.push({ key: key(bk), row });
      }
      if (want('LOGICAL_COLUMN')) {
        for (const t of catalog.state.tables) {
          if (!catalog.canRead(user, t) || (authors !== undefined && !authors.includes(t.author)) || tagIds !== undefined) continue;
          for (const c of t.columns) {
            if (seen.has(c.id) || !matches(c)) continue;
            seen.add(c.id);
            const header = { id: c.id, name: c.name, ...(c.description !== undefined ? { description: c.description } : {}), type: c.kind, dataType: c.dataType, author: t.author, authorName: authorName(t.author), created: t.created, modified: t.modified, modifiedBy: t.modifiedBy, owner: t.id, ownerName: t.name };
            const more = dependents ? { dependent_objects: { [c.id]: columnDependentsByType(t, c, catalog, user, dependentsLimit, v2Header(catalog)) } } : {};
            out.push({ key: key({ ...t, name: c.name }), row: { ...entry(c.id, c.name, 'LOGICAL_COLUMN', header, null), ...more } });
          }
        }
      }
      if (want('TAG')) {
        for (const t of catalog.tagsIn(user.orgId)) {
          if (!keep(t) || !matches(t)) continue;
          seen.add(t.id);
          out.push({ key: key(t), row: entry(t.id, t.name, 'TAG', { id: t.id, name: t.name, author: t.author, authorName: authorName(t.author), created: t.created, modified: t.modified, modifiedBy: t.modifiedBy, owner: t.id }, null) });
        }
      }
      if (want('USER') && authors === undefined && tagIds === undefined) {
        for (const u of catalog.usersIn(user.orgId)) {
          if (seen.has(u.id) || !matches(u)) continue;
          seen.add(u.id);
          const admin = catalog.state.users[0]?.id ?? u.id;
          out.push({ key: { ...key({ ...u, author: admin }), displayName: u.displayName }, row: entry(u.id, u.name, 'USER', { id: u.id, name: u.name, displayName: u.displayName, author: admin, created: u.created, modified: u.modified, modifiedBy: admin, owner: u.id }, details ? userOfV2(u, catalog, user) : null) });
        }
      }
      if (want('USER_GROUP') && authors === undefined && tagIds === undefined) {
        for (const g of catalog.groupsIn(user.orgId)) {
          if (seen.has(g.id) || !matches(g)) continue;
          seen.add(g.id);
          const admin = catalog.state.users[0]?.id ?? g.id;
          out.push({ key: { ...key({ ...g, author: admin }), displayName: g.displayName }, row: entry(g.id, g.name, 'USER_GROUP', { id: g.id, name: g.name, displayName: g.displayName, author: admin, created: g.created, modified: g.modified, modifiedBy: admin, owner: g.id }, details ? groupOfV2(g, catalog, user) : null) });
        }
      }
    }
    return sortAndPage(out, b, METADATA_SORT_FIELDS).map((x) => x.row);
  });
}
