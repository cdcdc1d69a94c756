/**
 * The REST API v2 operations TSQ's features need, mapped onto the shapes the rest of TSQ reads, so a
 * feature does not care which generation answered (docs/service-interface.md §10). The operations, the
 * v2 calls they make and the references are on `PublicApiV2`.
 */
import { ServiceError } from './errors';
import { isRepeatable } from './operations';
import type { ExportedTmlObject, ImportedTmlObject, TmlAsyncImportPolicy, TmlBatchType, TmlExportRef, TmlImportPolicy, TmlImportTask } from './tml';
import { principalsOfV2, type Principal } from './principals';
import { type SyncPrincipalsParams, type CallOptions, type DetailsColumn, type ListObjectHeadersParams, type Dependents, type DependencyOf, dependentsIn, type MetadataDetails, type MetadataType, type ObjectHeader, type PinboardDataParams, type PinboardVizData, type SearchDataParams, type SearchDataResult, type VizHeader } from './publicApi';
import type { HttpSession } from './session';
import type { OperationName } from './operations';
import { V2_PREFIX } from './serviceToday';
import { findOrg, notInOrgError, orgsOfSessionUser, type OrgList } from './orgs';
import { pagesOf } from './paging';
import { recordOr, memberOf } from '../guards';

/** Largest page TSQ asks of v2 searchdata, in rows (as v1's page size). */
export const V2_MAX_RECORD_SIZE = 100_000;

/** One entry of a metadata/search answer (only what TSQ reads is typed). */
export interface MetadataSearchEntry {
  metadata_id: string;
  metadata_name: string;
  metadata_type: string;
  metadata_header?: Record<string, unknown>;
  metadata_detail?: { columns?: DetailsColumn[]; [more: string]: unknown } | null;
  visualization_headers?: { id: string; name: string }[];
  [more: string]: unknown;
}

/** Parameters of metadata/search (the members TSQ sends). */
export interface MetadataSearchParams {
  metadata?: { identifier?: string; name_pattern?: string; type?: string; subtypes?: string[] }[];
  include_details?: boolean;
  include_visualization_headers?: boolean;
  include_dependent_objects?: boolean;
  dependent_objects_record_size?: number;
  record_offset?: number;
  record_size?: number;
  sort_options?: { field_name?: string; order?: 'ASC' | 'DESC' };
  tag_identifiers?: string[];
  created_by_user_identifiers?: string[];
  favorite_object_options?: { include?: boolean; user_identifiers?: string[] };
}

/** An object named to v2 (`metadata[]` of deleteMetadata, shareMetadata): a GUID or a name, and its v2 type (ANSWER, LIVEBOARD, LOGICAL_TABLE). */
export interface MetadataRef {
  identifier: string;
  type?: 'ANSWER' | 'LIVEBOARD' | 'LOGICAL_TABLE';
}

/** A user or group to share with (OpenAPI `SharePermissionsInput.principal`). */
export interface SharePrincipal {
  identifier: string;
  type: 'USER' | 'USER_GROUP';
}

/** The access a share gives (OpenAPI `SharePermissionsInput.share_mode`): NO_ACCESS takes it back. */
export type ShareMode = 'READ_ONLY' | 'MODIFY' | 'NO_ACCESS';

/** What `exportReport` exports: an answer, or a liveboard (its one visualization, or the one named by `vizId`); `id` a GUID or name. */
export interface ReportTarget {
  kind: 'answer' | 'liveboard';
  id: string;
  vizId?: string;
}

/** Dependents asked for per data source (`dependent_objects_record_size`; the v2 answer has no offset to page on). */
export const V2_MAX_DEPENDENTS = 10_000;

/** Calendars asked for per `calendars/search` page. */
const CALENDAR_PAGE = 100;

/** v1 metadata types and the v2 `metadata/search` type of each (OpenAPI `MetadataListItemInput.type`); the others have no v2 listing. */
const V1_TO_V2_TYPE: Record<string, string> = { LOGICAL_TABLE: 'LOGICAL_TABLE', PINBOARD_ANSWER_BOOK: 'LIVEBOARD', QUESTION_ANSWER_BOOK: 'ANSWER', LOGICAL_COLUMN: 'LOGICAL_COLUMN', TAG: 'TAG', USER: 'USER', USER_GROUP: 'USER_GROUP' };
const V2_TO_V1_TYPE: Record<string, string> = Object.fromEntries(Object.entries(V1_TO_V2_TYPE).map(([v1, v2]) => [v2, v1]));

/**
 * The v2 public API on one session.
 *
 * The REST API v2 operations TSQ's features need, mapped onto the shapes the rest of TSQ reads (the v1
 * client's `SearchDataResult`, `ObjectHeader`, `DataSourceColumns`), so that a feature does not care
 * which generation answered. Reference: https://developers.thoughtspot.com/docs/rest-apiv2-reference;
 * schemas from the OpenAPI document of thoughtspot/rest-api-sdk (`api-spec/openapiSpecv3-2_0.json`);
 * developer-docs `data-v2-api.adoc` (searchdata, paging by `record_offset`/`record_size`).
 *
 * | operation | v2 call |
 * |---|---|
 * | `searchData`, `searchAllPages` | `POST searchdata` (`logical_table_identifier`, `record_offset`, `record_size`, `data_format`), `Accept-Language: en-US` |
 * | `listObjectHeaders`, `listVizHeaders`, `metadataDetails` | `POST metadata/search` (`include_details`, `include_visualization_headers`) |
 * | `pinboardData` | `POST metadata/liveboard/data` |
 * | `sessionUser`, `listOrgs` | `GET auth/session/user` (`listOrgs`: its `orgs` and `current_org`) |
 * | `exportTml`, `importTml`, `answerSql` | `POST metadata/tml/export`, `POST metadata/tml/import`, `POST metadata/answer/sql` (docs/service-interface.md §11.2) |
 * | `listDependents` | `POST metadata/search` (`include_dependent_objects`, `dependent_objects_record_size`) |
 * | `searchCalendars` | `POST calendars/search` (the custom calendars' names) |
 * | `exportReport` | `POST report/answer`, `POST report/liveboard` (CSV) |
 * | `createInputTable`, `updateInputTable`, `deleteInputTable` | `POST input-tables/create`, `{id}/update` (replaces the rows), `{id}/delete` |
 *
 * `record_size: -1` is never sent: pages are bounded (a whole answer in one call is slow and can run
 * the service out of memory, as users report).
 */
export class PublicApiV2 {
  constructor(private readonly session: HttpSession) {}

  /** A JSON POST; repeated after a lost answer when the table says so (`isRepeatable`; `readOnly`: the call carries the row's `readOnlyWith`). */
  private async post<T>(operation: OperationName | 'metadataSearch', path: string, body: unknown, opts: CallOptions, headers: Record<string, string> = {}, readOnly = false): Promise<T> {
    const repeatable = operation === 'metadataSearch' || isRepeatable(operation, readOnly);
    const r = await this.session.call({ operation, method: 'POST', path: V2_PREFIX + path, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), repeatable, signal: opts.signal });
    // 204 (the administration calls) has no body
    return (r.text.trim() ? parse<T>(r.text, operation, V2_PREFIX + path) : undefined) as T;
  }

  /** `GET auth/session/user`: the signed-in user (`{id, name, display_name, privileges, …}`). */
  async sessionUser(opts: CallOptions = {}): Promise<Record<string, unknown>> {
    const r = await this.session.call({ operation: 'sessionUser', method: 'GET', path: `${V2_PREFIX}/auth/session/user`, repeatable: true, signal: opts.signal });
    return parse<Record<string, unknown>>(r.text, 'sessionUser', `${V2_PREFIX}/auth/session/user`);
  }

  /**
   * The id of the Org `wanted` names, for `org_id` of auth/token/full: digits as they are; a name looked
   * up in the `orgs` of `auth/session/user` with a token `probe` obtained without an Org (orgs.ts).
   * @throws AuthenticationError (`notInOrgError`) when the user has no Org of that name.
   */
  static async orgIdOf(session: HttpSession, username: string, wanted: string | number, probe: string, signal?: AbortSignal): Promise<number> {
    const text = String(wanted).trim();
    if (/^\d+$/.test(text)) return Number(text);
    const path = `${V2_PREFIX}/auth/session/user`;
    const r = await session.call({ operation: 'sessionUser', method: 'GET', path, headers: { authorization: `Bearer ${probe}` }, repeatable: true, authenticated: false, signal });
    const { orgs } = orgsOfSessionUser(parse<Record<string, unknown>>(r.text, 'sessionUser', path));
    const org = findOrg(orgs, text);
    if (!org) throw notInOrgError(username, session.origin, wanted, orgs, `${V2_PREFIX}/auth/token/full`);
    return org.id;
  }

  /** The user's Orgs and the token's, from `GET auth/session/user` (`orgs`, `current_org`; orgs.ts). */
  async listOrgs(opts: CallOptions = {}): Promise<OrgList> {
    const r = await this.session.call({ operation: 'listOrgs', method: 'GET', path: `${V2_PREFIX}/auth/session/user`, repeatable: true, signal: opts.signal });
    return orgsOfSessionUser(parse<Record<string, unknown>>(r.text, 'listOrgs', `${V2_PREFIX}/auth/session/user`));
  }

  /** `POST metadata/search` as the service answers it. */
  metadataSearch(params: MetadataSearchParams, opts: CallOptions = {}): Promise<MetadataSearchEntry[]> {
    return this.post<MetadataSearchEntry[]>('metadataSearch', '/metadata/search', params, opts);
  }

  /**
   * One page of `POST searchdata`, in the v1 result's shape: `offset` is the `record_offset` sent
   * (`pageNumber` n means offset (n−1) × batchSize), `pageSize` the `record_size`, `totalRowCount`
   * the `available_data_row_count`.
   */
  async searchData(params: SearchDataParams, opts: CallOptions = {}): Promise<SearchDataResult<unknown>> {
    const size = params.batchSize === undefined || params.batchSize < 1 ? V2_MAX_RECORD_SIZE : Math.min(params.batchSize, V2_MAX_RECORD_SIZE);
    const offset = params.pageNumber !== undefined && params.pageNumber >= 1 ? (params.pageNumber - 1) * size : Math.max(0, params.offset ?? 0);
    const a = await this.post<{ contents?: Record<string, unknown>[] }>(
      'searchData',
      '/searchdata',
      { query_string: params.queryString, logical_table_identifier: params.dataSourceGuid, data_format: params.formatType ?? 'COMPACT', record_offset: offset, record_size: size },
      opts,
      // search keywords are American English only (developer-docs data-v2-api.adoc)
      { 'accept-language': 'en-US' },
    );
    return toResult(a.contents?.[0] ?? {}, offset, size);
  }

  /**
   * pinboarddata's shape from `POST metadata/liveboard/data` (`data-v2-api.adoc`): keyed by visualization
   * id, each with its name; paging as `searchData` (per visualization).
   */
  async pinboardData(params: PinboardDataParams, opts: CallOptions = {}): Promise<Record<string, PinboardVizData<unknown>>> {
    const size = params.batchSize === undefined || params.batchSize < 1 ? V2_MAX_RECORD_SIZE : Math.min(params.batchSize, V2_MAX_RECORD_SIZE);
    const offset = params.pageNumber !== undefined && params.pageNumber >= 1 ? (params.pageNumber - 1) * size : Math.max(0, params.offset ?? 0);
    const a = await this.post<{ contents?: Record<string, unknown>[] }>(
      'pinboardData',
      '/metadata/liveboard/data',
      { metadata_identifier: params.id, ...(params.vizIds?.length ? { visualization_identifiers: params.vizIds } : {}), data_format: params.formatType ?? 'COMPACT', record_offset: offset, record_size: size },
      opts,
      { 'accept-language': 'en-US' },
    );
    const out: Record<string, PinboardVizData<unknown>> = {};
    for (const c of a.contents ?? []) out[String(c.visualization_id)] = { ...toResult(c, offset, size), name: String(c.visualization_name ?? '') };
    return out;
  }

  /** Every page of a search (`pagesOf` of paging.ts: `record_offset` (n − 1) × size), until a page is short or empty or every row came. */
  async *searchAllPages(params: Omit<SearchDataParams, 'batchSize' | 'pageNumber' | 'offset'> & { pageSize?: number }, opts: CallOptions = {}): AsyncGenerator<SearchDataResult<unknown>> {
    const fetch = (pageNumber: number, batchSize: number) => this.searchData({ queryString: params.queryString, dataSourceGuid: params.dataSourceGuid, formatType: params.formatType, batchSize, pageNumber }, opts);
    for await (const page of pagesOf(fetch, { pageSize: Math.min(params.pageSize ?? 10_000, V2_MAX_RECORD_SIZE) })) yield page.answer;
  }

  /**
   * listobjectheaders through metadata/search: LOGICAL_TABLE (with subtypes), PINBOARD_ANSWER_BOOK
   * (LIVEBOARD) and QUESTION_ANSWER_BOOK (ANSWER); `pattern`, `offset`/`batchSize`, `sort`,
   * `fetchIds`, `tagNames` and `category` (MY: `created_by_user_identifiers` of the signed-in user,
   * FAVORITE: `favorite_object_options.include`) map onto their v2 members. A header's `type` is the
   * LOGICAL_TABLE subtype.
   * LOGICAL_COLUMN, TAG, USER and USER_GROUP are v2 types of their own; a column's `owner` is its table.
   * @throws ServiceError for a type v2 metadata/search does not list (sheets, DATA_SOURCE, LOGICAL_RELATIONSHIP).
   */
  async listObjectHeaders(params: ListObjectHeadersParams = {}, opts: CallOptions = {}): Promise<ObjectHeader[]> {
    const v1type = params.type ?? 'LOGICAL_TABLE';
    const type = V1_TO_V2_TYPE[v1type];
    if (!type) throw new ServiceError({ status: 0, serviceMessage: '', operation: 'listObjectHeaders', method: 'POST', path: `${V2_PREFIX}/metadata/search` }, `Listing ${v1type} objects is not available on REST API v2: metadata/search has no such type (OpenAPI MetadataListItemInput, https://developers.thoughtspot.com/docs/rest-apiv2-reference).`);
    const base = { type, ...(params.pattern ? { name_pattern: params.pattern } : {}), ...(type === 'LOGICAL_TABLE' && params.subtypes?.length ? { subtypes: params.subtypes } : {}) };
    const metadata = params.fetchIds?.length ? params.fetchIds.map((id) => ({ ...base, identifier: id })) : [base];
    // category MY: the signed-in user's objects; FAVORITE: their favorites (REQUESTED has no v2 member: all)
    const category =
      params.category === 'MY'
        ? { created_by_user_identifiers: [String((await this.sessionUser(opts)).name ?? '')] }
        : params.category === 'FAVORITE'
          ? { favorite_object_options: { include: true } }
          : {};
    const entries = await this.metadataSearch(
      {
        metadata,
        ...category,
        record_offset: Math.max(0, params.offset ?? 0),
        record_size: params.batchSize === undefined || params.batchSize < 1 ? -1 : params.batchSize,
        ...(params.sort && params.sort !== 'DEFAULT' ? { sort_options: { field_name: params.sort, order: params.sortAscending === false ? 'DESC' : 'ASC' } } : {}),
        ...(params.tagNames?.length ? { tag_identifiers: params.tagNames } : {}),
      },
      opts,
    );
    const skip = new Set(params.skipIds ?? []);
    return entries.filter((e) => !skip.has(e.metadata_id)).map((e) => toHeader(e));
  }

  /** The visualizations of a liveboard or answer (`include_visualization_headers`), `owner` = the book. */
  async listVizHeaders(id: string, opts: CallOptions = {}): Promise<VizHeader[]> {
    const [e] = await this.metadataSearch({ metadata: [{ identifier: id }], include_visualization_headers: true }, opts);
    if (!e) return [];
    const h = toHeader(e);
    return (e.visualization_headers ?? []).map((v) => ({ id: v.id, name: v.name, author: h.author, created: h.created, modified: h.modified, modifiedBy: h.modifiedBy, owner: e.metadata_id }));
  }

  /**
   * metadata/details' shape from metadata/search with `include_details` (storables with their columns), for
   * `type` as v2 names it (`V1_TO_V2_TYPE`; the facade sends only LOGICAL_TABLE here, other types on v1).
   */
  async metadataDetails(type: MetadataType, ids: string[], opts: CallOptions = {}): Promise<MetadataDetails> {
    const v2type = V1_TO_V2_TYPE[type] ?? type;
    const entries = await this.metadataSearch({ metadata: ids.map((id) => ({ identifier: id, type: v2type })), include_details: true, record_size: -1 }, opts);
    return {
      storables: entries.map((e) => ({ header: { id: e.metadata_id, name: e.metadata_name }, type: typeof e.metadata_header?.type === 'string' ? e.metadata_header.type : undefined, columns: e.metadata_detail?.columns ?? [] })),
    };
  }

  /**
   * All users and groups: `POST users/search` and `POST groups/search` (OpenAPI `searchUsers`,
   * `searchUserGroups`), every record (`record_size: -1`), as `Principal`s (groups first).
   */
  async listPrincipals(opts: CallOptions = {}): Promise<Principal[]> {
    const users = await this.post<unknown>('listPrincipals', '/users/search', { record_offset: 0, record_size: -1 }, opts);
    const groups = await this.post<unknown>('listPrincipals', '/groups/search', { record_offset: 0, record_size: -1 }, opts);
    return principalsOfV2(users, groups);
  }

  /**
   * A v1 sync file's principals on v2: its groups through `POST groups/import` (OpenAPI
   * `importUserGroups`: `group_identifier` the name, `display_name`, `privileges`), then its users through
   * `POST users/import` (`importUsers`: `user_identifier` the name, `display_name` (default the name),
   * `email` from `mail`, `group_identifiers` from `groupNames`, `password`), with `default_password`,
   * `dry_run` = not `applyChanges`, `delete_unspecified_…` = `removeDeleted`. On a dry run a user's groups
   * that only the file creates are left out of its `group_identifiers` (the service does not know them
   * yet). Answers the two answers merged: `{groups_added, groups_updated, groups_deleted, users_added,
   * users_updated, users_deleted}`. groups/import is called only when the file holds groups.
   */
  async syncPrincipals(params: SyncPrincipalsParams, opts: CallOptions = {}): Promise<unknown> {
    const entries = params.principals.map((p) => recordOr(p));
    const isGroup = (e: Record<string, unknown>) => /GROUP/i.test(String(e.principalTypeEnum ?? e.type ?? ''));
    const groups = entries.filter(isGroup);
    const dryRun = !params.applyChanges;
    const removeDeleted = params.removeDeleted ?? false;
    let groupAnswer: unknown = {};
    if (groups.length) {
      groupAnswer = await this.post<unknown>(
        'syncPrincipals',
        '/groups/import',
        {
          groups: groups.map((g) => ({
            group_identifier: String(g.name),
            display_name: typeof g.displayName === 'string' && g.displayName ? g.displayName : String(g.name),
            ...(Array.isArray(g.privileges) ? { privileges: g.privileges.map(String) } : {}),
            type: 'LOCAL_GROUP',
          })),
          dry_run: dryRun,
          delete_unspecified_groups: removeDeleted,
        },
        opts,
      );
    }
    const fileOnly = new Set(dryRun ? groups.map((g) => String(g.name).toLowerCase()) : []);
    const users = entries.filter((e) => !isGroup(e)).map((e) => ({
      user_identifier: String(e.name),
      display_name: typeof e.displayName === 'string' && e.displayName ? e.displayName : String(e.name),
      ...(typeof e.mail === 'string' ? { email: e.mail } : {}),
      ...(typeof e.password === 'string' ? { password: e.password } : {}),
      ...(Array.isArray(e.groupNames) ? { group_identifiers: e.groupNames.map(String).filter((g) => !fileOnly.has(g.toLowerCase())) } : {}),
      account_type: 'LOCAL_USER',
    }));
    const userAnswer = await this.post<unknown>('syncPrincipals', '/users/import', { users, ...(params.password !== undefined ? { default_password: params.password } : {}), dry_run: dryRun, delete_unspecified_users: removeDeleted }, opts);
    const obj = recordOr;
    return { ...obj(groupAnswer), ...obj(userAnswer) };
  }

  /** `POST users/change-password` (OpenAPI `changeUserPassword`): `user_identifier`, `current_password`, `new_password`; 204. */
  async updatePassword(params: { name: string; currentPassword: string; newPassword: string }, opts: CallOptions = {}): Promise<void> {
    await this.post<unknown>('updatePassword', '/users/change-password', { user_identifier: params.name, current_password: params.currentPassword, new_password: params.newPassword }, opts);
  }

  /**
   * `POST security/metadata/assign` (OpenAPI `assignChangeAuthor`): `metadata` (the objects, required),
   * `user_identifier` (the new author), `current_owner_identifier`. Without `objectIds`, every liveboard,
   * answer and data source the user authored (`metadata/search` with `created_by_user_identifiers`);
   * nothing is sent when there is none. 204.
   */
  async transferOwnership(params: { fromUserName: string; toUserName: string; objectIds?: string[] }, opts: CallOptions = {}): Promise<void> {
    let metadata: { identifier: string; type?: string }[];
    if (params.objectIds?.length) metadata = params.objectIds.map((identifier) => ({ identifier }));
    else {
      const owned = await this.post<MetadataSearchEntry[]>(
        'transferOwnership',
        '/metadata/search',
        { metadata: ['LIVEBOARD', 'ANSWER', 'LOGICAL_TABLE'].map((type) => ({ type })), created_by_user_identifiers: [params.fromUserName], record_offset: 0, record_size: -1 },
        opts,
      );
      metadata = (owned ?? []).map((e) => ({ identifier: e.metadata_id, type: e.metadata_type }));
      if (metadata.length === 0) return;
    }
    await this.post<unknown>('transferOwnership', '/security/metadata/assign', { metadata, user_identifier: params.toUserName, current_owner_identifier: params.fromUserName }, opts);
  }

  /** `POST groups/{group_identifier}/update` (OpenAPI `updateUserGroup`) for each group: `privileges: [privilege]`, `operation: ADD`; 204. */
  async addGroupPrivilege(params: { privilege: string; groupNames: string[] }, opts: CallOptions = {}): Promise<void> {
    for (const g of params.groupNames) await this.post<unknown>('addGroupPrivilege', `/groups/${encodeURIComponent(g)}/update`, { privileges: [params.privilege], operation: 'ADD' }, opts);
  }

  /** As `addGroupPrivilege` with `operation: REMOVE`. */
  async removeGroupPrivilege(params: { privilege: string; groupNames: string[] }, opts: CallOptions = {}): Promise<void> {
    for (const g of params.groupNames) await this.post<unknown>('removeGroupPrivilege', `/groups/${encodeURIComponent(g)}/update`, { privileges: [params.privilege], operation: 'REMOVE' }, opts);
  }

  /**
   * `POST metadata/tml/export` (OpenAPI `exportMetadataTML`: `metadata: [{identifier, type?}]`, the type
   * needed when the identifier is a name; `edoc_format`; `export_fqn`): one `{info, edoc}` per reference.
   * @throws ServiceError (the service refused the request, or answered no list)
   */
  async exportTml(refs: TmlExportRef[], options: { format?: 'YAML' | 'JSON'; fqn?: boolean } = {}, opts: CallOptions = {}): Promise<ExportedTmlObject[]> {
    const body = { metadata: refs.map((r) => ({ identifier: r.identifier, ...(r.type ? { type: r.type } : {}) })), edoc_format: options.format ?? 'YAML', export_fqn: options.fqn ?? false };
    return listOf(await this.post<ExportedTmlObject[]>('exportTml', '/metadata/tml/export', body, opts), 'exportTml', '/metadata/tml/export');
  }

  /**
   * `POST metadata/tml/export/batch` (OpenAPI `exportMetadataTMLBatched`, 10.1.0.cl or later): one page of
   * the users (`USER`), groups (`USER_GROUP`) or roles of the Org, `size` objects from `offset` (0-based),
   * each `{info, edoc}` as `metadata/tml/export` answers. A page shorter than `size` is the last.
   * @throws ServiceError (404 on a service older than the operation; 403 without the privileges)
   */
  async exportTmlBatch(type: TmlBatchType, offset: number, size: number, options: { format?: 'YAML' | 'JSON' } = {}, opts: CallOptions = {}): Promise<ExportedTmlObject[]> {
    const body = { metadata_type: type, batch_offset: offset, batch_size: size, edoc_format: options.format ?? 'YAML', export_dependent: false };
    return listOf(await this.post<ExportedTmlObject[]>('exportTmlBatch', '/metadata/tml/export/batch', body, opts), 'exportTmlBatch', '/metadata/tml/export/batch');
  }

  /**
   * `POST metadata/tml/async/import` (OpenAPI `importMetadataTMLAsync`, 10.4.0.cl or later): starts an
   * import task of the texts and answers it (its `task_id`, then `importTaskStatus`). Never repeated after
   * a lost answer (a second task would import again).
   * @throws ServiceError (400 for a bad policy; 403 without DATAMANAGEMENT); a ServiceError of status 0 when the answer names no task
   */
  async importTmlAsync(texts: string[], policy: TmlAsyncImportPolicy, options: { createNew?: boolean } = {}, opts: CallOptions = {}): Promise<TmlImportTask> {
    const body = { metadata_tmls: texts, import_policy: policy, create_new: options.createNew ?? false };
    const task = await this.post<TmlImportTask | undefined>('importTmlAsync', '/metadata/tml/async/import', body, opts);
    if (!task || typeof task.task_id !== 'string') throw new ServiceError({ status: 0, serviceMessage: '', operation: 'importTmlAsync', method: 'POST', path: `${V2_PREFIX}/metadata/tml/async/import` }, 'The service answered the async import without a task_id.');
    return task;
  }

  /**
   * `POST metadata/tml/async/status` (OpenAPI `fetchAsyncImportTaskStatus`): the task `taskId`, with its
   * `import_response` when `withResponse`; undefined when the service lists no such task (another
   * user's, another Org's, or one it no longer keeps). @throws ServiceError
   */
  async importTaskStatus(taskId: string, options: { withResponse?: boolean } = {}, opts: CallOptions = {}): Promise<TmlImportTask | undefined> {
    const body = { task_ids: [taskId], record_offset: 0, record_size: 1, include_import_response: options.withResponse ?? false };
    const r = await this.post<{ status_list?: TmlImportTask[] | null }>('importTaskStatus', '/metadata/tml/async/status', body, opts);
    return (r?.status_list ?? []).find((t) => t.task_id === taskId);
  }

  /**
   * `POST metadata/delete` (OpenAPI `deleteMetadata`): deletes the objects (`identifier` a GUID or a name,
   * `type` ANSWER, LIVEBOARD or LOGICAL_TABLE). Never repeated after a lost answer.
   * @throws ServiceError (403 without edit access; 400 for an object another still uses)
   */
  async deleteMetadata(objects: MetadataRef[], opts: CallOptions = {}): Promise<void> {
    await this.post<unknown>('deleteMetadata', '/metadata/delete', { metadata: objects.map((o) => ({ identifier: o.identifier, ...(o.type ? { type: o.type } : {}) })), delete_disabled_objects: false }, opts);
  }

  /**
   * `POST security/metadata/share` (OpenAPI `shareMetadata`): gives each principal `shareMode` on the
   * objects (READ_ONLY, MODIFY; NO_ACCESS takes a share back), replacing the mode it had. No mail is asked for.
   * @throws ServiceError (403 without edit access; 400 for an unknown object or principal)
   */
  async shareMetadata(objects: MetadataRef[], principals: SharePrincipal[], shareMode: ShareMode, opts: CallOptions = {}): Promise<void> {
    const body = { metadata: objects.map((o) => ({ identifier: o.identifier, ...(o.type ? { type: o.type } : {}) })), permissions: principals.map((p) => ({ principal: { identifier: p.identifier, type: p.type }, share_mode: shareMode })), notify_on_share: false };
    await this.post<unknown>('shareMetadata', '/security/metadata/share', body, opts);
  }

  /**
   * `POST metadata/tml/import` (OpenAPI `importMetadataTML`: `metadata_tmls`, `import_policy`,
   * `create_new`): one result per text, in order. Repeated after a lost answer only with `VALIDATE_ONLY`
   * (`isRepeatable`: an import writes).
   * @throws ServiceError (the service refused the whole request, e.g. 403 without DATAMANAGEMENT)
   */
  async importTml(texts: string[], policy: TmlImportPolicy, options: { createNew?: boolean } = {}, opts: CallOptions = {}): Promise<ImportedTmlObject[]> {
    const body = { metadata_tmls: texts, import_policy: policy, create_new: options.createNew ?? false };
    const r = await this.post<{ response: ImportedTmlObject }[]>('importTml', '/metadata/tml/import', body, opts, {}, policy === 'VALIDATE_ONLY');
    return listOf(r, 'importTml', '/metadata/tml/import').map((o) => o.response);
  }

  /**
   * `POST calendars/search` (OpenAPI `searchCalendars`, 10.12.0.cl or later): the names of the service's
   * custom calendars (docs.thoughtspot.com cloud/latest/connections-cust-cal), the names a query writes
   * after `calendar.`, in pages of 100 (the document warns against `record_size: -1`), at most 1,000.
   * Entries without a `calendar_name` are skipped. @throws ServiceError (403 without DATAMANAGEMENT or ADMINISTRATION)
   */
  async searchCalendars(opts: CallOptions = {}): Promise<string[]> {
    const names: string[] = [];
    const fetch = async (pageNumber: number, size: number) => {
      const body = { record_offset: (pageNumber - 1) * size, record_size: size };
      return { data: listOf(await this.post<unknown[]>('searchCalendars', '/calendars/search', body, opts), 'searchCalendars', '/calendars/search'), totalRowCount: Infinity };
    };
    for await (const page of pagesOf(fetch, { pageSize: CALENDAR_PAGE, maxRows: 1000 })) {
      for (const c of page.rows) {
        const name = memberOf(c, 'calendar_name');
        if (typeof name === 'string' && name.trim()) names.push(name);
      }
    }
    return names;
  }

  /** `POST metadata/answer/sql` (OpenAPI `fetchAnswerSqlQuery`): the SQL of an answer, by GUID or name. @throws ServiceError */
  /**
   * `POST report/answer` (an answer) or `POST report/liveboard` (one visualization of a liveboard,
   * `vizId`): the report as CSV text, header row first (OpenAPI `exportAnswerReport`,
   * `exportLiveboardReport`; `file_format` CSV). @throws ServiceError as every call (403 without
   * DATADOWNLOADING or view access)
   */
  async exportReport(target: ReportTarget, opts: CallOptions = {}): Promise<string> {
    const [path, body] = target.kind === 'answer' ? ['/report/answer', { metadata_identifier: target.id, file_format: 'CSV' }] : ['/report/liveboard', { metadata_identifier: target.id, file_format: 'CSV', ...(target.vizId ? { visualization_identifiers: [target.vizId] } : {}) }];
    const r = await this.session.call({ operation: 'exportReport', method: 'POST', path: V2_PREFIX + path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), repeatable: isRepeatable('exportReport'), signal: opts.signal });
    return r.text;
  }

  /**
   * What depends on the data source `id` (GUID or name), or on the column `id` (GUID) when `of` is
   * LOGICAL_COLUMN: `metadata/search` of it as that type with
   * `include_dependent_objects`, at most `V2_MAX_DEPENDENTS` (`complete` false when that many came: the
   * OpenAPI document's `dependent_objects_record_size` bounds them and offers no offset; docs/service-notes.md).
   * @throws ServiceError; a ServiceError of status 0 when the service has no such data source
   */
  async listDependents(id: string, opts: CallOptions = {}, of: DependencyOf = 'LOGICAL_TABLE'): Promise<Dependents> {
    const params: MetadataSearchParams = { metadata: [{ identifier: id, type: of }], include_dependent_objects: true, dependent_objects_record_size: V2_MAX_DEPENDENTS, record_size: 1 };
    const [entry] = await this.post<MetadataSearchEntry[]>('listDependents', '/metadata/search', params, opts);
    if (!entry) throw new ServiceError({ status: 0, serviceMessage: '', operation: 'listDependents', method: 'POST', path: `${V2_PREFIX}/metadata/search` }, `The service has no ${of === 'LOGICAL_COLUMN' ? 'column' : 'data source'} ${id} (or this user may not see it).`);
    const objects = dependentsIn(entry.dependent_objects, entry.metadata_id);
    return { objects, complete: objects.length < V2_MAX_DEPENDENTS };
  }

  async answerSql(identifier: string, opts: CallOptions = {}): Promise<AnswerSql> {
    return this.post<AnswerSql>('answerSql', '/metadata/answer/sql', { metadata_identifier: identifier }, opts);
  }

  /**
   * `POST input-tables/create` (OpenAPI `createInputTable`, 26.11.0.cl): an input table named `tableName`
   * linked to a model, with the model's `referencedColumns` (column GUIDs) and `newColumns`.
   * @returns the input table's GUID. @throws ServiceError (403 without the privilege, 404 unknown model, 400 bad definition)
   */
  async createInputTable(params: CreateInputTableParams, opts: CallOptions = {}): Promise<string> {
    const body = { table_name: params.tableName, model_identifier: params.model, table_definition: { referenced_columns: params.referencedColumns, new_columns: params.newColumns.map((c) => ({ name: c.name, data_type: c.dataType, type: c.type, ...(c.allowedValues ? { allowed_values: c.allowedValues } : {}) })) } };
    const r = await this.post<{ input_table_identifier?: unknown }>('createInputTable', '/input-tables/create', body, opts);
    if (typeof r?.input_table_identifier !== 'string') throw new ServiceError({ status: 200, serviceMessage: '', operation: 'createInputTable', method: 'POST', path: `${V2_PREFIX}/input-tables/create` }, 'createInputTable answered without input_table_identifier');
    return r.input_table_identifier;
  }

  /**
   * `POST input-tables/{id}/update` (OpenAPI `updateInputTable`): the input table's rows become `rows`
   * (every cell a string, in the order of `columns`; "Each call fully replaces the previously loaded rows").
   * @returns `rows_loaded`. @throws ServiceError (400 unknown column or bad value: nothing written; 403; 404 unknown input table)
   */
  async updateInputTable(id: string, columns: string[], rows: string[][], opts: CallOptions = {}): Promise<number> {
    const path = `/input-tables/${encodeURIComponent(id)}/update`;
    const r = await this.post<{ rows_loaded?: unknown }>('updateInputTable', path, { columns, rows }, opts);
    return typeof r?.rows_loaded === 'number' ? r.rows_loaded : rows.length;
  }

  /** `POST input-tables/{id}/delete` (OpenAPI `deleteInputTable`, 204): drops the input table and its data. @throws ServiceError */
  async deleteInputTable(id: string, opts: CallOptions = {}): Promise<void> {
    await this.post<void>('deleteInputTable', `/input-tables/${encodeURIComponent(id)}/delete`, {}, opts);
  }
}

/** A new column of an input table (OpenAPI `InputColumnSchemaInput`). */
export interface InputColumnDefinition {
  name: string;
  /** The warehouse type, e.g. `VARCHAR`, `INT64`, `DOUBLE`, `BOOL`, `DATE`. */
  dataType: string;
  type: 'ATTRIBUTE' | 'MEASURE';
  /** Values the column accepts (26.9.0.cl or later); absent: any of its type. */
  allowedValues?: string[];
}

/** What `createInputTable` takes (OpenAPI `CreateInputTableRequest`). */
export interface CreateInputTableParams {
  tableName: string;
  /** The model's GUID or name. */
  model: string;
  /** GUIDs of the model's columns the input table takes (its key columns). */
  referencedColumns: string[];
  newColumns: InputColumnDefinition[];
}

/** The SQL of an answer (OpenAPI `SqlQueryResponse`): its id and name, one `sql_query` per query it runs. */
export interface AnswerSql {
  metadata_id: string;
  metadata_name: string;
  sql_queries: { sql_query: string }[];
}

/** The SQL text of an `AnswerSql`: each statement the service lists, trailing line breaks removed, a blank line between them. */
export function sqlTextOf(answer: AnswerSql): string {
  return answer.sql_queries.map((q) => q.sql_query.replace(/\n+$/, '')).join('\n\n');
}

/** `value` when it is a list; otherwise a `ServiceError` (a 2xx answer that is not the documented list). */
function listOf<T>(value: T[] | undefined, operation: OperationName, path: string): T[] {
  if (Array.isArray(value)) return value;
  throw new ServiceError({ status: 200, serviceMessage: '', operation, method: 'POST', path: V2_PREFIX + path }, `${operation} (${V2_PREFIX + path}) answered without the list of objects`);
}

/** The v1 result shape from one v2 answer content (`AnswerContent`, `LiveboardContent`). */
function toResult(c: Record<string, unknown>, offset: number, size: number): SearchDataResult<unknown> {
  const rows: unknown[] = Array.isArray(c.data_rows) ? c.data_rows : [];
  return {
    columnNames: Array.isArray(c.column_names) ? c.column_names.map(String) : [],
    data: rows,
    samplingRatio: typeof c.sampling_ratio === 'number' ? c.sampling_ratio : 1,
    totalRowCount: typeof c.available_data_row_count === 'number' ? c.available_data_row_count : offset + rows.length,
    rowCount: typeof c.returned_data_row_count === 'number' ? c.returned_data_row_count : rows.length,
    pageSize: size,
    offset,
  };
}

/** A v1 object header from a metadata/search entry. */
function toHeader(e: MetadataSearchEntry): ObjectHeader {
  const h = e.metadata_header ?? {};
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    ...h,
    id: e.metadata_id,
    name: e.metadata_name,
    ...(typeof h.description === 'string' ? { description: h.description } : {}),
    type: e.metadata_type === 'LOGICAL_TABLE' ? s(h.type) : V2_TO_V1_TYPE[e.metadata_type] ?? e.metadata_type,
    author: s(h.author),
    created: num(h.created),
    modified: num(h.modified),
    modifiedBy: s(h.modifiedBy),
    owner: s(h.owner) || e.metadata_id,
    isAutoCreated: h.isAutoCreated === true,
    isAutoDelete: false,
  };
}

function parse<T>(text: string, operation: string, path: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ServiceError({ status: 200, serviceMessage: text.slice(0, 200), operation, method: 'POST', path }, `${operation} (${path}) answered with a body that is not JSON`);
  }
}
