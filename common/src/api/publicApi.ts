/**
 * The public query and administration API of the Analytics Service (docs/service-interface.md §4.2), one
 * method per operation. Paths are under `/callosum/v1/tspublic/v1` (docs/service-notes.md §0). Each call
 * is sent as the REST API v1 documentation's example writes it (test/conformance/ replays them): query
 * string (metadata, searchdata, pinboarddata, transfer/ownership), form body (session/login,
 * user/updatepassword, group privileges) or `multipart/form-data` (user/sync). Arrays are JSON-encoded
 * strings. Every documented success status is accepted: 200 or 204, with or without a body (login
 * answers either, https://developers.thoughtspot.com/docs/api-auth-session).
 */
import type { CellValue } from '../model';
import { FormData } from 'undici';
import type { HttpSession } from './session';
import { ServiceError } from './errors';
import { isRepeatable, SERVICE_OPERATIONS, type OperationName } from './operations';
import type { ExportedTmlObject, ImportedTmlObject, TmlExportRef, TmlImportPolicy } from './tml';
import { parsePrincipals, type Principal } from './principals';
import { findOrg, notInOrgError, orgRef, type OrgList, type OrgRef } from './orgs';
import { pagesOf } from './paging';
import { recordOr, isRecord } from '../guards';

/** The path prefix of the public API (docs/service-notes.md §0). */
export const PUBLIC_PREFIX = '/callosum/v1/tspublic/v1';

/**
 * Metadata object types of `listobjectheaders` and `metadata/details` (docs/service-interface.md §4.2; docs/service-notes.md §3.1 adds USER
 * and USER_GROUP). The one declaration: the extension's service port (`client/src/service.ts`) re-exports it.
 */
export type MetadataType =
  | 'QUESTION_ANSWER_BOOK'
  | 'PINBOARD_ANSWER_BOOK'
  | 'QUESTION_ANSWER_SHEET'
  | 'PINBOARD_ANSWER_SHEET'
  | 'LOGICAL_COLUMN'
  | 'LOGICAL_TABLE'
  | 'LOGICAL_RELATIONSHIP'
  | 'TAG'
  | 'DATA_SOURCE'
  | 'USER'
  | 'USER_GROUP';

/** LOGICAL_TABLE subtypes (docs/service-interface.md §4.2). */
export type LogicalTableSubtype = 'ONE_TO_ONE_LOGICAL' | 'WORKSHEET' | 'PRIVATE_WORKSHEET' | 'USER_DEFINED' | 'AGGR_WORKSHEET' | string;

/** Visualization header (docs/service-interface.md §2.4). Times are epoch milliseconds. */
export interface VizHeader {
  id: string;
  name: string;
  /** GUID of the user who made it. */
  author: string;
  /** Epoch milliseconds. */
  created: number;
  /** Epoch milliseconds. */
  modified: number;
  modifiedBy: string;
  /** GUID of the containing object (docs/service-notes.md §3.1), not a user. */
  owner: string;
  /**
   * Members some services add to some headers, read where they are present: `authorName` or
   * `authorDisplayName`; a LOGICAL_TABLE's subtype as `type` or `subtype`; a LOGICAL_COLUMN's
   * `dataType`, `type` (ATTRIBUTE or MEASURE) and `defaultAggrType` (docs/service-notes.md §3.1 for the
   * author members of `metadata/list`; §2.10 and §3.2 for a column's, which `listobjectheaders` does not give).
   */
  [more: string]: unknown;
}

/** Object header (docs/service-interface.md §2.4): the visualization header's members plus these. */
export interface ObjectHeader extends VizHeader {
  /** Present on some headers only. */
  description?: string;
  isAutoCreated: boolean;
  isAutoDelete: boolean;
}

/**
 * One object that depends on a data source, as both generations report it (v1 `dependency/listdependents`,
 * v2 `metadata/search` `dependent_objects`; https://developers.thoughtspot.com/docs/dependent-objects-api):
 * its GUID, name and the v1 type it is listed under (`LOGICAL_TABLE` a worksheet, model or view,
 * `QUESTION_ANSWER_BOOK` an answer, `PINBOARD_ANSWER_BOOK` a liveboard).
 */
export interface DependentObject {
  id: string;
  name: string;
  type: string;
}

/** What `listDependents` asks the dependents of: a data source (`LOGICAL_TABLE`, by its GUID) or one column (`LOGICAL_COLUMN`, by the column's GUID). */
export type DependencyOf = 'LOGICAL_TABLE' | 'LOGICAL_COLUMN';

/** The dependents of a data source: the objects, and whether the service may hold more than it gave (a bounded v2 answer). */
export interface Dependents {
  objects: DependentObject[];
  complete: boolean;
}

/**
 * The dependents of `id` in a `{guid: {v1 type: [header]}}` answer (both generations' shape), by type
 * then as listed; headers without an id or a name are left out. An answer without `id` has none.
 */
export function dependentsIn(answer: unknown, id: string): DependentObject[] {
  const entry = recordOr(answer)[id];
  if (!isRecord(entry)) return [];
  const out: DependentObject[] = [];
  for (const [type, list] of Object.entries(entry)) {
    if (!Array.isArray(list)) continue;
    for (const h of list) if (isRecord(h) && typeof h.id === 'string' && typeof h.name === 'string') out.push({ id: h.id, name: h.name, type });
  }
  return out;
}

/** Parameters of `listobjectheaders` (docs/service-interface.md §4.2); the wire name is given where it differs. All optional. */
export interface ListObjectHeadersParams {
  type?: MetadataType;
  /** `subtypes`; applies when type is LOGICAL_TABLE; sent as a JSON array. */
  subtypes?: LogicalTableSubtype[];
  category?: 'ALL' | 'MY' | 'FAVORITE' | 'REQUESTED';
  sort?: 'DEFAULT' | 'NAME' | 'DISPLAY_NAME' | 'AUTHOR' | 'CREATED' | 'MODIFIED';
  /** `sortascending`; omitted means the default order. */
  sortAscending?: boolean;
  /** Batch offset; default -1 (the first page). */
  offset?: number;
  /** `batchsize`; -1 means no pagination. */
  batchSize?: number;
  /** `tagname`, sent as a JSON array. */
  tagNames?: string[];
  /** Object-name pattern, `%` is the wildcard (case-insensitive). */
  pattern?: string;
  /** `skipids`, sent as a JSON array. */
  skipIds?: string[];
  /** `fetchids`, sent as a JSON array. */
  fetchIds?: string[];
  /** `auto_created`: true lists only auto-created objects; omitted returns all. */
  autoCreated?: boolean;
}

/** COMPACT (rows as arrays, the default) or FULL (rows as objects keyed by column name, null values omitted; docs/service-notes.md §1.3). */
export type FormatType = 'COMPACT' | 'FULL';

export type { CellValue } from '../model';

/** Search data result (docs/service-interface.md §2.5). Counts are numbers here even where the service sent strings. */
export interface SearchDataResult<Row = CellValue[]> {
  columnNames: string[];
  /** Rows in the order of `columnNames` (COMPACT), or objects keyed by column name (FULL). */
  data: Row[];
  samplingRatio: number;
  /** Rows of the whole result. */
  totalRowCount: number;
  /** Rows in this page. */
  rowCount: number;
  pageSize: number;
  offset: number;
}

/** One visualization's data in a pinboard data result (docs/service-interface.md §2.5). */
export interface PinboardVizData<Row = CellValue[]> extends SearchDataResult<Row> {
  name: string;
}

/** Paging shared by searchdata and pinboarddata (docs/service-interface.md §4.2); -1 is "unset" everywhere (docs/service-notes.md §0). */
export interface PagingParams {
  /** `batchsize`; default -1 (the service's page size, 100000 rows at most). */
  batchSize?: number;
  /** `pagenumber`, 1-based; default -1. The unambiguous way to page, and the one `searchAllPages` uses. */
  pageNumber?: number;
  /**
   * Row offset; default -1 (the start). Documentation versions disagree on its base: the searchdata and
   * pinboarddata pages call it "1-based", while working clients start at 0 and add `rowCount`
   * (docs/service-notes.md §1.4). -1 means the start under both readings; to continue, pass the previous
   * answer's `offset` plus its `rowCount` (`nextOffset`), which is right whichever base the service uses.
   */
  offset?: number;
  /** `formattype`; default COMPACT. */
  formatType?: FormatType;
}

/** Parameters of `searchdata` (docs/service-interface.md §4.2). */
export interface SearchDataParams extends PagingParams {
  /** `query_string`: the search query (docs/service-interface.md §4.3). */
  queryString: string;
  /** `data_source_guid`: one worksheet, view or table. */
  dataSourceGuid: string;
}

/** Parameters of `pinboarddata` (docs/service-interface.md §4.2). */
export interface PinboardDataParams extends PagingParams {
  /** Pinboard id. */
  id: string;
  /** `vizid`: visualization ids to fetch, sent as a JSON array; all when omitted. */
  vizIds?: string[];
}

/**
 * A column as `metadata/details` gives it (docs/service-notes.md §3.2); only the members the client reads are typed,
 * anything else the service sends stays as `unknown` members (e.g. `position`, the column's order).
 * `dataType` is the service's name (VARCHAR, INT64, DATE_TIME, TIMESTAMP, …; mapped by common/src/catalog/columns.ts),
 * `type` ATTRIBUTE, MEASURE or UNKNOWN. The one declaration: `client/src/service.ts` re-exports it.
 */
export interface DetailsColumn {
  header: { id: string; name: string; owner?: string; description?: string; isHidden?: boolean };
  dataType: string;
  type: 'ATTRIBUTE' | 'MEASURE' | 'UNKNOWN' | string;
  defaultAggrType?: string;
  synonyms?: string[];
  [more: string]: unknown;
}

/**
 * One storable of `metadata/details` (docs/service-notes.md §3.2): the object's header, its `type` (for a LOGICAL_TABLE,
 * the subtype) and, for tables, its columns. `client/src/service.ts` names it `TableDetails`.
 */
export interface DetailsStorable {
  header: { id: string; name: string; [more: string]: unknown };
  type?: string;
  columns?: DetailsColumn[];
  [more: string]: unknown;
}

/** The `metadata/details` response (docs/service-notes.md §3.2). */
export interface MetadataDetails {
  storables: DetailsStorable[];
  [more: string]: unknown;
}

/** Options every call takes. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Reads a count the service may send as a string (docs/service-notes.md §4.3) as a number; NaN-safe (missing → fallback). */
export function toCount(v: unknown, fallback = 0): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return fallback;
}

function normalizeResult<R>(r: Record<string, unknown>): SearchDataResult<R> {
  return {
    ...r,
    columnNames: Array.isArray(r.columnNames) ? r.columnNames.map(String) : [],
    data: Array.isArray(r.data) ? (r.data as R[]) : [],
    samplingRatio: toCount(r.samplingRatio, 1),
    totalRowCount: toCount(r.totalRowCount),
    rowCount: toCount(r.rowCount),
    pageSize: toCount(r.pageSize, -1),
    offset: toCount(r.offset, -1),
  };
}

/**
 * The offset of the page after `r`, in the service's own base: the answer's echoed `offset` plus its
 * `rowCount`. A service that counts from 0 echoes 0 for the first page and one that counts from 1 echoes 1,
 * so continuing from the echo is right under both readings of the documentation (see `PagingParams.offset`).
 * An echo of -1 (the default, shown by the pinboarddata examples) is read as the start, 0.
 */
export function nextOffset(r: Pick<SearchDataResult<unknown>, 'offset' | 'rowCount'>): number {
  return (r.offset < 0 ? 0 : r.offset) + r.rowCount;
}

/**
 * Parses a JSON answer. An empty body (a 204, which the documentation allows for some reads) is `empty`
 * when given; otherwise an error.
 */
function parseJson<T>(text: string, operation: string, path: string, method: string, empty?: T): T {
  if (empty !== undefined && text.trim() === '') return empty;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ServiceError({ status: 200, serviceMessage: text.slice(0, 200), operation, method, path }, `${operation} (${method} ${path}) answered with a body that is not JSON`);
  }
}

/** The public API on one session (the client's main origin). */
export class PublicApi {
  constructor(private readonly session: HttpSession) {}

  /** A GET with parameters in the query string; `empty` is the answer to a 204 or an empty body. */
  private async get<T>(operation: OperationName, path: string, query: Record<string, unknown>, empty: T, opts: CallOptions = {}): Promise<T> {
    const full = PUBLIC_PREFIX + path;
    const r = await this.session.call({ operation, method: 'GET', path: full, query: query as never, repeatable: true, signal: opts.signal });
    return parseJson<T>(r.text, operation, full, 'GET', empty);
  }

  /**
   * A POST with parameters in the query string (`Content-Type: application/json` and no body, as the
   * searchdata, pinboarddata and transfer/ownership examples send it), a form body, or a multipart body
   * (undici's `FormData`, which sets its own content type with the boundary). `contentType` overrides the
   * type sent with no body (refreshview's example sends `*\/*`).
   */
  private async post(
    operation: OperationName,
    path: string,
    params: { query?: Record<string, unknown>; form?: Record<string, unknown>; multipart?: FormData; contentType?: string; headers?: Record<string, string> },
    repeatable: boolean,
    opts: CallOptions = {},
  ): Promise<string> {
    const full = PUBLIC_PREFIX + path;
    const form = params.form ? formBody(params.form) : undefined;
    const headers: Record<string, string> = { ...params.headers };
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    else if (!params.multipart) headers['content-type'] = params.contentType ?? 'application/json';
    const r = await this.session.call({
      operation,
      method: 'POST',
      path: full,
      query: params.query as never,
      headers,
      body: params.multipart ?? form,
      repeatable,
      signal: opts.signal,
    });
    return r.text;
  }

  /**
   * `POST /session/login` (form fields username, password, rememberme;
   * https://developers.thoughtspot.com/docs/api-auth-session). Success is 200 or 204, with or without a
   * body; the cookies it sets (JSESSIONID, clientId) are kept. Called by the session itself; call it to
   * check credentials.
   * @throws AuthenticationError on 401 (the password is never in the message).
   */
  static async login(session: HttpSession, username: string, password: string, signal?: AbortSignal): Promise<void> {
    await session.call({
      operation: 'login',
      method: 'POST',
      path: `${PUBLIC_PREFIX}/session/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: formBody({ username, password, rememberme: false }),
      repeatable: false,
      authenticated: false,
      signal,
    });
  }

  /**
   * `GET session/orgs`: the Orgs of the session's user, `{orgs: [{orgId, orgName}], currentOrgId}`
   * (docs/service-notes.md, "Orgs").
   */
  listOrgs(opts: CallOptions = {}): Promise<OrgList> {
    return PublicApi.orgsOf(this.session, opts.signal, true);
  }

  private static async orgsOf(session: HttpSession, signal: AbortSignal | undefined, authenticated: boolean): Promise<OrgList> {
    const r = await session.call({ operation: 'listOrgs', method: 'GET', path: `${PUBLIC_PREFIX}/session/orgs`, query: { batchsize: -1, offset: -1 }, repeatable: true, authenticated, signal });
    const a = (r.text.trim() ? JSON.parse(r.text) : {}) as { orgs?: unknown[]; currentOrgId?: unknown };
    const orgs = (a.orgs ?? []).map(orgRef).filter((o): o is OrgRef => o !== undefined);
    const current = orgs.find((o) => o.id === a.currentOrgId);
    return { orgs, ...(current ? { current } : {}) };
  }

  /**
   * Moves a session just logged in to the Org `wanted` names (id or name; `PUT session/orgs` with the
   * form `orgid`); nothing when it is there already. Called by the session's login (orgs.ts).
   * @throws AuthenticationError (`notInOrgError`) when the user has no such Org.
   */
  static async enterOrg(session: HttpSession, username: string, wanted: string | number, signal?: AbortSignal): Promise<OrgRef> {
    const list = await PublicApi.orgsOf(session, signal, false);
    const org = findOrg(list.orgs, wanted);
    if (!org) throw notInOrgError(username, session.origin, wanted, list.orgs, `${PUBLIC_PREFIX}/session/orgs`);
    if (list.current?.id === org.id) return org;
    await session.call({ operation: 'login', method: 'PUT', path: `${PUBLIC_PREFIX}/session/orgs`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: formBody({ orgid: org.id }), repeatable: true, authenticated: false, signal });
    return org;
  }

  /** `POST /session/logout`: ends the session on the service and drops its cookies. */
  async logout(opts: CallOptions = {}): Promise<void> {
    if (!this.session.isLoggedIn) return;
    try {
      await this.session.call({ operation: 'logout', method: 'POST', path: `${PUBLIC_PREFIX}/session/logout`, headers: { 'content-type': 'application/json' }, repeatable: false, signal: opts.signal });
    } finally {
      this.session.forget();
    }
  }

  /** `GET /metadata/listobjectheaders` with every parameter of docs/service-interface.md §4.2. Returns the bare array of headers (docs/service-notes.md §3.1). */
  async listObjectHeaders(params: ListObjectHeadersParams = {}, opts: CallOptions = {}): Promise<ObjectHeader[]> {
    return this.get<ObjectHeader[]>(
      'listObjectHeaders',
      '/metadata/listobjectheaders',
      {
        type: params.type,
        subtypes: params.subtypes,
        category: params.category,
        sort: params.sort,
        sortascending: params.sortAscending,
        offset: params.offset,
        batchsize: params.batchSize,
        tagname: params.tagNames,
        pattern: params.pattern,
        skipids: params.skipIds,
        fetchids: params.fetchIds,
        auto_created: params.autoCreated,
      },
      [],
      opts,
    );
  }

  /** `GET /metadata/listvizheaders?id=…`: the visualization headers of an answer or pinboard (docs/service-interface.md §4.2). */
  async listVizHeaders(id: string, opts: CallOptions = {}): Promise<VizHeader[]> {
    return this.get<VizHeader[]>('listVizHeaders', '/metadata/listvizheaders', { id }, [], opts);
  }

  /** `GET /metadata/details?type=…&id=[…]` (docs/service-notes.md §3.2). */
  async metadataDetails(type: MetadataType, ids: string[], opts: CallOptions & { showHidden?: boolean } = {}): Promise<MetadataDetails> {
    const r = await this.get<MetadataDetails>('metadataDetails', '/metadata/details', { type, id: ids, showhidden: opts.showHidden }, { storables: [] }, opts);
    if (!r || !Array.isArray(r.storables)) return { ...(r ?? {}), storables: [] };
    return r;
  }

  /** `POST /pinboarddata` (docs/service-interface.md §4.2): an object keyed by visualization id. */
  async pinboardData(params: PinboardDataParams & { formatType: 'FULL' }, opts?: CallOptions): Promise<Record<string, PinboardVizData<Record<string, CellValue>>>>;
  async pinboardData(params: PinboardDataParams, opts?: CallOptions): Promise<Record<string, PinboardVizData>>;
  async pinboardData(params: PinboardDataParams, opts: CallOptions = {}): Promise<Record<string, PinboardVizData<unknown>>> {
    const path = '/pinboarddata';
    const text = await this.post(
      'pinboardData',
      path,
      { query: { id: params.id, vizid: params.vizIds, batchsize: params.batchSize ?? -1, pagenumber: params.pageNumber ?? -1, offset: params.offset ?? -1, formattype: params.formatType ?? 'COMPACT' } },
      true,
      opts,
    );
    const raw = parseJson<Record<string, Record<string, unknown>>>(text, 'pinboardData', PUBLIC_PREFIX + path, 'POST', {});
    const out: Record<string, PinboardVizData<unknown>> = {};
    for (const [vizId, v] of Object.entries(raw ?? {})) out[vizId] = { ...normalizeResult<unknown>(v), name: String(v.name ?? '') };
    return out;
  }

  /**
   * `POST /searchdata` (docs/service-interface.md §4.2, all parameters in the query string), with `Accept-Language: en-US`
   * (docs/service-notes.md §1.1: keywords are American English only). Counts are normalized to numbers.
   * @throws ServiceError with status 400 for an invalid query or data source (docs/service-notes.md §1.6).
   */
  async searchData(params: SearchDataParams & { formatType: 'FULL' }, opts?: CallOptions): Promise<SearchDataResult<Record<string, CellValue>>>;
  async searchData(params: SearchDataParams, opts?: CallOptions): Promise<SearchDataResult>;
  async searchData(params: SearchDataParams, opts: CallOptions = {}): Promise<SearchDataResult<unknown>> {
    const path = '/searchdata';
    const text = await this.post(
      'searchData',
      path,
      {
        query: {
          query_string: params.queryString,
          data_source_guid: params.dataSourceGuid,
          batchsize: params.batchSize ?? -1,
          pagenumber: params.pageNumber ?? -1,
          offset: params.offset ?? -1,
          formattype: params.formatType ?? 'COMPACT',
        },
        // search keywords are American English only (docs/service-notes.md §1.1)
        headers: { 'accept-language': 'en-US' },
      },
      true,
      opts,
    );
    return normalizeResult<unknown>(parseJson<Record<string, unknown>>(text, 'searchData', PUBLIC_PREFIX + path, 'POST'));
  }

  /**
   * Every page of a search, as an async generator: `pagenumber` 1, 2, … with `batchsize = pageSize`
   * (docs/service-notes.md §1.4: page 1 first), until a page is short, empty, or `totalRowCount` rows came.
   * @param pageSize rows per page (default 10000; the service caps a call at 100000, docs/service-notes.md §1.2).
   */
  async *searchAllPages(params: Omit<SearchDataParams, 'batchSize' | 'pageNumber' | 'offset'> & { pageSize?: number }, opts: CallOptions = {}): AsyncGenerator<SearchDataResult<unknown>> {
    const fetch = (pageNumber: number, batchSize: number) => this.searchData({ queryString: params.queryString, dataSourceGuid: params.dataSourceGuid, formatType: params.formatType, batchSize, pageNumber }, opts);
    for await (const page of pagesOf(fetch, { pageSize: params.pageSize ?? 10_000 })) yield page.answer;
  }

  /** `GET /user/list`: all users, groups and their inter-dependencies (docs/service-interface.md §4.2; shape not shown, read by `parsePrincipals`). */
  async listPrincipals(opts: CallOptions = {}): Promise<Principal[]> {
    return parsePrincipals(await this.get<unknown>('listPrincipals', '/user/list', {}, [], opts));
  }

  /**
   * `POST /user/sync`: synchronize principals from an external system. Sent as the documentation shows
   * (https://developers.thoughtspot.com/docs/user-api#user-sync): `multipart/form-data` with `principals`
   * as a JSON file part (`principals.json`, `application/json`) and `applyChanges`, `removeDeleted`,
   * `password` (for new users) as fields. `removeDeleted` is always sent, since its documented default
   * differs between versions (true on the current page). Returns the parsed answer (200), or undefined for
   * an empty one.
   */
  async syncPrincipals(params: SyncPrincipalsParams, opts: CallOptions = {}): Promise<unknown> {
    const form = new FormData();
    form.append('principals', new Blob([JSON.stringify(params.principals)], { type: 'application/json' }), 'principals.json');
    form.append('applyChanges', String(params.applyChanges ?? false));
    form.append('removeDeleted', String(params.removeDeleted ?? false));
    if (params.password !== undefined) form.append('password', params.password);
    const text = await this.post('syncPrincipals', '/user/sync', { multipart: form }, SERVICE_OPERATIONS.syncPrincipals.idempotent, opts);
    return text ? safeJson(text) : undefined;
  }

  /**
   * `POST /user/updatepassword` (form fields `name`, `currentpassword`, `password`: https://developers.thoughtspot.com/docs/user-api;
   * docs/service-interface.md §4.2 lists it without its parameters). Neither password appears in errors.
   */
  async updatePassword(params: { name: string; currentPassword: string; newPassword: string }, opts: CallOptions = {}): Promise<void> {
    await this.post('updatePassword', '/user/updatepassword', { form: { name: params.name, currentpassword: params.currentPassword, password: params.newPassword } }, SERVICE_OPERATIONS.updatePassword.idempotent, opts);
  }

  /**
   * `POST /user/transfer/ownership?fromUserName=…&toUserName=…[&objectsID=[…]]`: the objects of one user
   * (all of them, or only those in `objectIds`, sent as the JSON array `objectsID`) to another
   * (https://developers.thoughtspot.com/docs/user-api#transfer-ownership). Success is 200 or 204.
   */
  async transferOwnership(params: { fromUserName: string; toUserName: string; objectIds?: string[] }, opts: CallOptions = {}): Promise<void> {
    await this.post('transferOwnership', '/user/transfer/ownership', { query: { fromUserName: params.fromUserName, toUserName: params.toUserName, objectsID: params.objectIds } }, SERVICE_OPERATIONS.transferOwnership.idempotent, opts);
  }

  /**
   * `POST /group/addprivilege` (docs/service-interface.md §4.2 lists it without its parameters; the form fields
   * `privilege` and `groupNames` are those of https://developers.thoughtspot.com/docs/group-api, the names here as a JSON array).
   */
  async addGroupPrivilege(params: { privilege: string; groupNames: string[] }, opts: CallOptions = {}): Promise<void> {
    await this.post('addGroupPrivilege', '/group/addprivilege', { form: { privilege: params.privilege, groupNames: JSON.stringify(params.groupNames) } }, SERVICE_OPERATIONS.addGroupPrivilege.idempotent, opts);
  }

  /**
   * `POST /group/removeprivilege` (docs/service-interface.md §4.2 lists it without its parameters; the form fields
   * `privilege` and `groupNames` are those of https://developers.thoughtspot.com/docs/group-api, the names here as a JSON array).
   */
  async removeGroupPrivilege(params: { privilege: string; groupNames: string[] }, opts: CallOptions = {}): Promise<void> {
    await this.post('removeGroupPrivilege', '/group/removeprivilege', { form: { privilege: params.privilege, groupNames: JSON.stringify(params.groupNames) } }, SERVICE_OPERATIONS.removeGroupPrivilege.idempotent, opts);
  }

  /**
   * `POST /materialization/refreshview/{id}`: re-executes the view's query and reloads it. Sent as the
   * example does, `Content-Type: *\/*` and no body; the answer is 204 "Refresh submitted" with no body
   * (undefined here), or a parsed body where a version sends one
   * (https://docs.thoughtspot.com/software/7.2/materialization-api).
   */
  async refreshMaterializedView(id: string, opts: CallOptions = {}): Promise<unknown> {
    const text = await this.post('refreshMaterializedView', `/materialization/refreshview/${encodeURIComponent(id)}`, { contentType: '*/*' }, SERVICE_OPERATIONS.refreshMaterializedView.idempotent, opts);
    return text ? safeJson(text) : undefined;
  }

  /**
   * `POST /dependency/listdependents` (form `type` LOGICAL_TABLE or LOGICAL_COLUMN, `id` a JSON array of
   * one GUID, `batchsize` -1: all; https://developers.thoughtspot.com/docs/dependent-objects-api): what
   * depends on the data source or the column `id` (a GUID), complete. @throws ServiceError (400 for an unknown GUID)
   */
  async listDependents(id: string, opts: CallOptions = {}, of: DependencyOf = 'LOGICAL_TABLE'): Promise<Dependents> {
    const form = { type: of, id: JSON.stringify([id]), batchsize: -1 };
    const text = await this.post('listDependents', '/dependency/listdependents', { form, headers: { 'x-requested-by': 'ThoughtSpot' } }, isRepeatable('listDependents'), opts);
    return { objects: dependentsIn(parseJson<unknown>(text, 'listDependents', `${PUBLIC_PREFIX}/dependency/listdependents`, 'POST', {}), id), complete: true };
  }

  /**
   * `POST /metadata/tml/export` (form `export_ids` a JSON array of GUIDs, `formattype`, `export_fqn`;
   * https://developers.thoughtspot.com/docs/tml-api): one `{info, edoc}` per id, in order. v1 exports by
   * GUID only (a reference's `type` is not sent: resolve a name first).
   * @throws ServiceError (the service refused the request)
   */
  async exportTml(refs: TmlExportRef[], options: { format?: 'YAML' | 'JSON'; fqn?: boolean } = {}, opts: CallOptions = {}): Promise<ExportedTmlObject[]> {
    const form = { export_ids: JSON.stringify(refs.map((x) => x.identifier)), formattype: options.format ?? 'YAML', export_fqn: options.fqn ?? false };
    const text = await this.post('exportTml', '/metadata/tml/export', { form, headers: { 'x-requested-by': 'ThoughtSpot' } }, isRepeatable('exportTml'), opts);
    return parseJson<{ object: ExportedTmlObject[] }>(text, 'exportTml', `${PUBLIC_PREFIX}/metadata/tml/export`, 'POST').object;
  }

  /**
   * `POST /metadata/tml/import` (form `import_objects` a JSON array of TML texts, `import_policy`,
   * `force_create`; https://developers.thoughtspot.com/docs/tml-api): one result per text, in order.
   * Repeated after a lost answer only with `VALIDATE_ONLY` (`isRepeatable`: an import writes).
   * @throws ServiceError (the service refused the whole request, e.g. 403 without DATAMANAGEMENT)
   */
  async importTml(texts: string[], policy: TmlImportPolicy, options: { createNew?: boolean } = {}, opts: CallOptions = {}): Promise<ImportedTmlObject[]> {
    const form = { import_objects: JSON.stringify(texts), import_policy: policy, force_create: options.createNew ?? false };
    const text = await this.post('importTml', '/metadata/tml/import', { form, headers: { 'x-requested-by': 'ThoughtSpot' } }, isRepeatable('importTml', policy === 'VALIDATE_ONLY'), opts);
    return parseJson<{ object: { response: ImportedTmlObject }[] }>(text, 'importTml', `${PUBLIC_PREFIX}/metadata/tml/import`, 'POST').object.map((o) => o.response);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Parameters of a principal sync (v1 `user/sync`, v2 `users/import`): the principals of a sync file (as
 * `user/list` shows them), whether to apply the changes (else a dry run), whether to delete the principals
 * the file does not list, and the password of new users.
 */
export interface SyncPrincipalsParams {
  principals: unknown[];
  applyChanges?: boolean;
  removeDeleted?: boolean;
  password?: string;
}

/** Encodes form fields (application/x-www-form-urlencoded); undefined and null are left out. */
export function formBody(fields: Record<string, unknown>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) p.append(k, String(v));
  return p.toString();
}
