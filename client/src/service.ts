/**
 * The operations of the Analytics Service the extension's catalog, object tree and administration
 * commands use, as one narrow interface. `createService` (in `serviceAdapter.ts`) implements it over
 * `common/src/api`'s `AnalyticsServiceClient`; keeping the extension on this port lets the pure parts
 * (catalog, tree paging) be tested against the real emulator without `vscode`.
 *
 * No `vscode` here.
 */
import type { DetailsStorable, MetadataType } from '../../common/src/api/publicApi';
import type { AnalyticsServiceClient, PublicOperationName } from '../../common/src/api';
import { statusOf } from '../../common/src/catalog/serviceCatalog';

/**
 * Object and visualization headers of `metadata/listobjectheaders` and `listvizheaders`, and the search
 * data result with its cells: declared once, with the wire, in `common/src/api/publicApi.ts`.
 */
export type { CellValue, ObjectHeader, SearchDataResult, VizHeader } from '../../common/src/api/publicApi';

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

/** A user or group (`listPrincipals`): declared once, with its reading, in `common/src/api/principals.ts`. */
export type { Principal } from '../../common/src/api/principals';

/**
 * The service operations the extension calls: the facade's methods of every public-API operation of
 * `SERVICE_OPERATIONS` (common/src/api/operations.ts), the same names and shapes (no second list).
 * Every method rejects with a `ServiceError` carrying `status` (the HTTP status) and a message that
 * includes the service's own text when the service refused; on a v2-only service an operation v2 does
 * not have rejects with `OperationUnavailableError`, naming the page.
 */
export type ServiceOperations = Pick<AnalyticsServiceClient, PublicOperationName>;

/** What the extension calls on the service: the operations, plus sign-in and sign-out. */
export interface ServiceApi extends ServiceOperations {
  /** Logs in to the public API (POST session/login, or a v2 token); rejects with status 401 on a wrong password. */
  login(): Promise<void>;
  /** Logs out of both APIs' sessions; never rejects. */
  logout(): Promise<void>;
}

/** The HTTP status of an error thrown by the service client, or undefined for a network failure. */
export function errorStatus(error: unknown): number | undefined {
  return statusOf(error);
}

/** The message of any thrown value, for a person. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
