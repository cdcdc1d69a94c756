/**
 * The operations of the Analytics Service the extension's catalog, object tree and administration
 * commands use, as one narrow interface. `createService` (in `serviceAdapter.ts`) implements it over
 * `common/src/api`'s `AnalyticsServiceClient`; keeping the extension on this port lets the pure parts
 * (catalog, tree paging) be tested against the real emulator without `vscode`.
 *
 * No `vscode` here.
 */
import type { DetailsStorable, MetadataType } from '../../common/src/api/publicApi';

/**
 * Object and visualization headers of `metadata/listobjectheaders` and `listvizheaders`, and the search
 * data result with its cells: declared once, with the wire, in `common/src/api/publicApi.ts`.
 */
export type { CellValue, ObjectHeader, SearchDataResult, VizHeader } from '../../common/src/api/publicApi';
import type { ObjectHeader, SearchDataResult, VizHeader } from '../../common/src/api/publicApi';

/**
 * Metadata types of `listobjectheaders` (docs/service-interface.md §4.2; docs/service-notes.md §3.1 adds USER and USER_GROUP), and the
 * column and storable shapes of `metadata/details` (docs/service-notes.md §3.2): declared once, with the wire, in
 * `api/publicApi.ts` (type-only imports; nothing there imports `vscode`).
 */
export type { DetailsColumn, MetadataType } from '../../common/src/api/publicApi';

/** Sort values of `listobjectheaders` (docs/service-interface.md §4.2). */
export type HeaderSort = 'DEFAULT' | 'NAME' | 'DISPLAY_NAME' | 'AUTHOR' | 'CREATED' | 'MODIFIED';
/** Category values the tree offers (docs/service-interface.md §4.2; REQUESTED is not offered). */
export type HeaderCategory = 'ALL' | 'MY' | 'FAVORITE';

/** Parameters of `listobjectheaders` (docs/service-interface.md §4.2), camel-cased; undefined members are not sent. */
export interface ListHeadersParams {
  type: MetadataType;
  /** LOGICAL_TABLE subtypes, sent as a JSON array. */
  subtypes?: string[];
  category?: HeaderCategory;
  sort?: HeaderSort;
  sortAscending?: boolean;
  /** 0-based offset of the first header; -1 (or undefined) is the first page. */
  offset?: number;
  /** Page size; -1 means no pagination. */
  batchSize?: number;
  /** Name pattern, `%` the wildcard (case-insensitive). */
  pattern?: string;
  fetchIds?: string[];
}

/** One storable of `metadata/details?type=LOGICAL_TABLE` (docs/service-notes.md §3.2): the header, `type`, and its `columns`. */
export type TableDetails = DetailsStorable;

/** A user or group of `user/list` (docs/service-interface.md §4.2 catalogued; shape from the service, docs/service-notes.md). */
export interface Principal {
  id?: string;
  name: string;
  displayName?: string;
  /** 'USER' or 'GROUP' (what `principalTypeEnum` or `type` says). */
  kind: 'USER' | 'GROUP';
  /** Names of the groups this principal belongs to. */
  groupNames?: string[];
  /** For groups, its privileges when the service lists them. */
  privileges?: string[];
}

/**
 * What the extension calls on the service. Every method rejects with an error carrying `status`
 * (the HTTP status) and a message that includes the service's own text when the service refused.
 */
export interface ServiceApi {
  /** Logs in to the public API (POST session/login); rejects with status 401 on a wrong password. */
  login(): Promise<void>;
  /** Logs out of both APIs' sessions; never rejects. */
  logout(): Promise<void>;
  listObjectHeaders(params: ListHeadersParams): Promise<ObjectHeader[]>;
  /** `metadata/details?type=LOGICAL_TABLE&id=[...]` storables. */
  tableDetails(ids: string[]): Promise<TableDetails[]>;
  /** `metadata/listvizheaders?id=` of a pinboard or answer. */
  listVizHeaders(id: string): Promise<VizHeader[]>;
  /** `searchdata` in the COMPACT format: rows as arrays in the order of `columnNames`. */
  searchData(params: { queryString: string; dataSourceGuid: string; batchSize?: number; offset?: number }): Promise<SearchDataResult>;
  /** `user/list`: all users and groups. */
  listPrincipals(): Promise<Principal[]>;
  updatePassword(params: { name: string; currentPassword: string; newPassword: string }): Promise<void>;
  transferOwnership(params: { fromUserName: string; toUserName: string }): Promise<void>;
  addGroupPrivilege(params: { groupName: string; privilege: string }): Promise<void>;
  removeGroupPrivilege(params: { groupName: string; privilege: string }): Promise<void>;
  /** `user/sync` with the principals JSON (an array) read from a file; returns the service's summary. */
  syncPrincipals(params: { principals: unknown[]; applyChanges: boolean; removeDeleted: boolean; password?: string }): Promise<unknown>;
  /** `materialization/refreshview/{id}`. */
  refreshMaterializedView(id: string): Promise<void>;
}

/** The HTTP status of an error thrown by the service client, or undefined for a network failure. */
export function errorStatus(error: unknown): number | undefined {
  const e = error as { status?: unknown; statusCode?: unknown } | undefined;
  const s = e?.status ?? e?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

/** The message of any thrown value, for a person. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
