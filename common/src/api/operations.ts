/**
 * The service operations TSQ calls, declared once (`SERVICE_OPERATIONS`): each one's name, its v1 call,
 * its REST API v2 call or the page saying there is none, idempotence, privilege and deadline class. The
 * facade's generation switch, the extension's service port, the deadline classes and the table of
 * docs/service-interface.md §10.6 are derived from it; `SERVICE_OPERATIONS` says how to add one.
 * Sources: docs/service-interface.md §4 and §10; the OpenAPI document of thoughtspot/rest-api-sdk,
 * `api-spec/openapiSpecv3-2_0.json` (26.8.0.cl); https://developers.thoughtspot.com/docs/rest-apiv2-reference.
 */
import { keysOf } from '../guards';
/** The deadline classes of calls (`tsq.http.*`): see `DeadlineClass` in session.ts. */
export type OperationDeadline = 'metadata' | 'query' | 'upload';

/** One service operation. */
export interface ServiceOperation {
  /** Which API of the service: the public API (v1 or v2) or the data-load API (no v2: docs/service-interface.md §10.1). */
  api: 'public' | 'load';
  /**
   * The call on the seed's API, `METHOD path` under its prefix (`/callosum/v1/tspublic/v1`,
   * `/ts_dataservice/v1/public`), or `none` with the page that says there is no such v1 call (the
   * operation is then sent on REST API v2 whatever the generation: `generationFor` in index.ts).
   */
  v1: string | { none: string };
  /**
   * The REST API v2 call (`METHOD path` under `/api/rest/2.0`, with the OpenAPI `operationId`), or
   * `none` with the page that says there is no such v2 operation.
   */
  v2: { call: string; operationId: string } | { none: string };
  /** True when sending it again changes nothing (reads; setting a privilege; assigning an owner). Only these are repeated after a lost answer or a 429. */
  idempotent: boolean;
  /**
   * For an operation that is not idempotent: the parameter value with which a call writes nothing (a
   * read), so that such a call is repeated like a read (`isRepeatable`), e.g. `import_policy VALIDATE_ONLY`.
   */
  readOnlyWith?: string;
  /** The privilege the service asks of the caller (as its documentation words it). */
  privilege: string;
  deadline: OperationDeadline;
}

const LOAD_NO_V2 = { none: 'the data-load API has no REST API v2 equivalent (docs/service-interface.md §10.1; https://docs.thoughtspot.com/software/latest/tsload-connector)' };
const READ = 'view access to the objects (none beyond signing in)';
const ADMIN = 'ADMINISTRATION (Can administer ThoughtSpot)';
const LOAD = 'DATAMANAGEMENT (Can manage data) or ADMINISTRATION';
/** The TML pages (docs/service-interface.md §11): v1 tml-api.adoc, v2 tml-import.adoc. */
const TML_V1_PAGE = 'https://developers.thoughtspot.com/docs/tml-api';
const TML_V2_PAGE = 'https://developers.thoughtspot.com/docs/tml-import';

/** The input-table page of the v2 reference (OpenAPI tag "Input Tables", 26.11.0.cl); v1 has none. */
const INPUT_TABLES_V1_NONE = { none: 'the v1 public API has no input tables: REST API v2 has input-tables/create, update and delete, "Version: 26.11.0.cl or later" (OpenAPI document of thoughtspot/rest-api-sdk, tag Input Tables)' };
const INPUT_TABLES_PRIVILEGE = 'DATAMANAGEMENT (Can manage data) or ADMINISTRATION; with RBAC, CAN_MANAGE_INPUT_TABLES; edit access to the model or input table (OpenAPI createInputTable)';

/**
 * The input-table operations (REST API v2 only): create one linked to a model, replace its rows, delete
 * it. `updateInputTable` replaces every row, so sending it again writes the same rows: idempotent.
 */
const INPUT_TABLE_OPERATIONS = {
  createInputTable: { api: 'public', v1: INPUT_TABLES_V1_NONE, v2: { call: 'POST input-tables/create', operationId: 'createInputTable' }, idempotent: false, privilege: INPUT_TABLES_PRIVILEGE, deadline: 'metadata' },
  updateInputTable: { api: 'public', v1: INPUT_TABLES_V1_NONE, v2: { call: 'POST input-tables/{input_table_identifier}/update', operationId: 'updateInputTable' }, idempotent: true, privilege: INPUT_TABLES_PRIVILEGE, deadline: 'upload' },
  deleteInputTable: { api: 'public', v1: INPUT_TABLES_V1_NONE, v2: { call: 'POST input-tables/{input_table_identifier}/delete', operationId: 'deleteInputTable' }, idempotent: true, privilege: INPUT_TABLES_PRIVILEGE, deadline: 'metadata' },
} as const satisfies Record<string, ServiceOperation>;

/**
 * Every service operation TSQ calls, by its one name: the method of `AnalyticsServiceClient`, of
 * `PublicApi`/`PublicApiV2`/`LoadApi` where they implement it, of the extension's `ServiceApi`, and the
 * `operation` of its HTTP calls in logs and errors. Order: the public API's reads, its administration,
 * then the data-load API.
 *
 * Derived from it: the facade's generation switch (`generationFor` in index.ts: an operation with no v2
 * call fails plainly on a v2-only service, citing `v2.none`; one with no v1 call goes to v2), the
 * repeatability of calls (`isRepeatable`), the extension's service port (`ServiceApi`
 * in client/src/service.ts, bound by `createService` from `FACADE_OPERATIONS`), the deadline classes
 * (`deadlineClassOf` in session.ts) and docs/service-interface.md §10.6 (`operationsTableRows`).
 * test/unit/operations.test.ts checks each, and that no second list of names exists.
 *
 * To add an operation: add its row here; implement it on `PublicApi` (v1) and `PublicApiV2` (v2) under
 * the same name (or give `v1.none` / `v2.none` with the page that says that API has none); add the facade method to
 * `AnalyticsServiceClient`, sent through `apiFor(name)` (the one generation switch); the extension's port picks it up from
 * `FACADE_OPERATIONS`; paste `operationsTableRows()` into docs/service-interface.md §10.6. The unit test
 * names what is missing.
 */
export const SERVICE_OPERATIONS = {
  listObjectHeaders: { api: 'public', v1: 'GET metadata/listobjectheaders', v2: { call: 'POST metadata/search', operationId: 'searchMetadata' }, idempotent: true, privilege: READ, deadline: 'metadata' },
  listVizHeaders: { api: 'public', v1: 'GET metadata/listvizheaders', v2: { call: 'POST metadata/search (include_visualization_headers)', operationId: 'searchMetadata' }, idempotent: true, privilege: READ, deadline: 'metadata' },
  metadataDetails: { api: 'public', v1: 'GET metadata/details', v2: { call: 'POST metadata/search (include_details)', operationId: 'searchMetadata' }, idempotent: true, privilege: READ, deadline: 'metadata' },
  pinboardData: { api: 'public', v1: 'POST pinboarddata', v2: { call: 'POST metadata/liveboard/data', operationId: 'fetchLiveboardData' }, idempotent: true, privilege: 'view access to the liveboard', deadline: 'query' },
  searchData: { api: 'public', v1: 'POST searchdata', v2: { call: 'POST searchdata', operationId: 'searchData' }, idempotent: true, privilege: 'view access to the data source', deadline: 'query' },
  exportTml: {
    api: 'public',
    v1: 'POST metadata/tml/export',
    v2: { call: 'POST metadata/tml/export', operationId: 'exportMetadataTML' },
    idempotent: true,
    privilege: `view access to the objects; on v2 also DATADOWNLOADING (Can download data) (${TML_V1_PAGE}; OpenAPI exportMetadataTML)`,
    deadline: 'query',
  },
  exportTmlBatch: {
    api: 'public',
    v1: { none: `the v1 public API has no batched export: v1 metadata/tml/export takes the objects' GUIDs (${TML_V1_PAGE}); REST API v2 has metadata/tml/export/batch for users, groups and roles, "Version: 10.1.0.cl or later" (OpenAPI exportMetadataTMLBatched)` },
    v2: { call: 'POST metadata/tml/export/batch', operationId: 'exportMetadataTMLBatched' },
    idempotent: true,
    privilege: 'DATAMANAGEMENT (Can manage data) and USERMANAGEMENT (Can manage users) (OpenAPI exportMetadataTMLBatched)',
    deadline: 'query',
  },
  importTmlAsync: {
    api: 'public',
    v1: { none: `the v1 public API imports TML only synchronously (POST metadata/tml/import, ${TML_V1_PAGE}); REST API v2 has metadata/tml/async/import, "Version: 10.4.0.cl or later" (OpenAPI importMetadataTMLAsync)` },
    v2: { call: 'POST metadata/tml/async/import', operationId: 'importMetadataTMLAsync' },
    idempotent: false,
    privilege: `DATAMANAGEMENT (Can manage data) or ADMINISTRATION, and edit access to the objects (${TML_V2_PAGE}; OpenAPI importMetadataTMLAsync)`,
    deadline: 'metadata',
  },
  importTaskStatus: {
    api: 'public',
    v1: { none: 'the v1 public API has no import tasks (its import is synchronous); REST API v2 has metadata/tml/async/status, "Version: 10.4.0.cl or later" (OpenAPI fetchAsyncImportTaskStatus)' },
    v2: { call: 'POST metadata/tml/async/status', operationId: 'fetchAsyncImportTaskStatus' },
    idempotent: true,
    privilege: 'the task\'s author; ADMINISTRATION sees every task of the Org (OpenAPI fetchAsyncImportTaskStatus)',
    deadline: 'metadata',
  },
  deleteMetadata: {
    api: 'public',
    v1: { none: 'TSQ sends it on REST API v2 whatever the generation (v1 has POST metadata/delete with type and id, https://developers.thoughtspot.com/docs/metadata-api, which TSQ does not call)' },
    v2: { call: 'POST metadata/delete', operationId: 'deleteMetadata' },
    idempotent: false,
    privilege: 'edit access to each object (OpenAPI deleteMetadata)',
    deadline: 'metadata',
  },
  shareMetadata: {
    api: 'public',
    v1: { none: 'TSQ sends it on REST API v2 whatever the generation (v1 has POST security/share, https://developers.thoughtspot.com/docs/security-api, which TSQ does not call)' },
    v2: { call: 'POST security/metadata/share', operationId: 'shareMetadata' },
    idempotent: true,
    privilege: 'edit access to each object; an administrator shares with any user or group (OpenAPI shareMetadata)',
    deadline: 'metadata',
  },
  answerSql: {
    api: 'public',
    v1: { none: `the v1 public API has no call for an answer's SQL: the v1 TML and metadata pages (${TML_V1_PAGE}, https://developers.thoughtspot.com/docs/metadata-api) list none; REST API v2 has metadata/answer/sql (OpenAPI document 26.8.0.cl)` },
    v2: { call: 'POST metadata/answer/sql', operationId: 'fetchAnswerSqlQuery' },
    idempotent: true,
    privilege: 'view access to the answer',
    deadline: 'metadata',
  },
  listDependents: {
    api: 'public',
    v1: 'POST dependency/listdependents',
    v2: { call: 'POST metadata/search (include_dependent_objects)', operationId: 'searchMetadata' },
    idempotent: true,
    privilege: 'edit access to the data source (v1, https://developers.thoughtspot.com/docs/dependent-objects-api); view access on v2',
    deadline: 'metadata',
  },
  searchCalendars: {
    api: 'public',
    v1: { none: 'the v1 public API has no call for custom calendars: REST API v2 has calendars/search, "Version: 10.12.0.cl or later" (OpenAPI document 26.8.0.cl, searchCalendars; https://docs.thoughtspot.com/cloud/latest/connections-cust-cal)' },
    v2: { call: 'POST calendars/search', operationId: 'searchCalendars' },
    idempotent: true,
    privilege: 'DATAMANAGEMENT (Can manage data) or ADMINISTRATION; with RBAC, CAN_MANAGE_CUSTOM_CALENDAR (OpenAPI searchCalendars)',
    deadline: 'metadata',
  },
  exportReport: {
    api: 'public',
    v1: { none: 'the v1 public API exports only a liveboard as PDF (POST export/pinboard/pdf, https://developers.thoughtspot.com/docs/pinboard-export-api), no CSV report of an answer or a visualization; REST API v2 has report/answer and report/liveboard (OpenAPI document 26.8.0.cl)' },
    v2: { call: 'POST report/answer, POST report/liveboard', operationId: 'exportAnswerReport, exportLiveboardReport' },
    idempotent: true,
    privilege: 'view access to the object and DATADOWNLOADING (Can download data); with RBAC, CAN_DOWNLOAD_DETAILED_DATA (OpenAPI exportAnswerReport, exportLiveboardReport)',
    deadline: 'query',
  },
  listOrgs: {
    api: 'public',
    v1: 'GET session/orgs',
    v2: { call: 'GET auth/session/user (orgs, current_org)', operationId: 'getCurrentUserInfo' },
    idempotent: true,
    privilege: 'none beyond signing in (the user\'s own Orgs; an Org is entered at login: v1 PUT session/orgs, v2 org_id of auth/token/full)',
    deadline: 'metadata',
  },
  listPrincipals: { api: 'public', v1: 'GET user/list', v2: { call: 'POST users/search, POST groups/search', operationId: 'searchUsers, searchUserGroups' }, idempotent: true, privilege: `${ADMIN} (v1 user/list; v2's users/search and groups/search: any signed-in user)`, deadline: 'metadata' },
  syncPrincipals: { api: 'public', v1: 'POST user/sync', v2: { call: 'POST groups/import, POST users/import', operationId: 'importUserGroups, importUsers' }, idempotent: false, privilege: ADMIN, deadline: 'query' },
  updatePassword: { api: 'public', v1: 'POST user/updatepassword', v2: { call: 'POST users/change-password', operationId: 'changeUserPassword' }, idempotent: false, privilege: 'the user themself, or ADMINISTRATION', deadline: 'metadata' },
  transferOwnership: { api: 'public', v1: 'POST user/transfer/ownership', v2: { call: 'POST security/metadata/assign', operationId: 'assignChangeAuthor' }, idempotent: true, privilege: ADMIN, deadline: 'metadata' },
  addGroupPrivilege: { api: 'public', v1: 'POST group/addprivilege', v2: { call: 'POST groups/{group_identifier}/update (operation ADD)', operationId: 'updateUserGroup' }, idempotent: true, privilege: ADMIN, deadline: 'metadata' },
  removeGroupPrivilege: { api: 'public', v1: 'POST group/removeprivilege', v2: { call: 'POST groups/{group_identifier}/update (operation REMOVE)', operationId: 'updateUserGroup' }, idempotent: true, privilege: ADMIN, deadline: 'metadata' },
  refreshMaterializedView: {
    api: 'public',
    v1: 'POST materialization/refreshview/{id}',
    v2: { none: 'REST API v2 has no materialization operation: the v2 reference (https://developers.thoughtspot.com/docs/rest-apiv2-reference, OpenAPI document 26.8.0.cl) lists none; the v1 call is https://docs.thoughtspot.com/software/latest/materialization-api' },
    idempotent: true,
    privilege: ADMIN,
    deadline: 'query',
  },
  importTml: {
    api: 'public',
    v1: 'POST metadata/tml/import',
    v2: { call: 'POST metadata/tml/import', operationId: 'importMetadataTML' },
    // an import creates or updates objects: sent again after a lost answer it could create a second answer
    idempotent: false,
    readOnlyWith: 'import_policy VALIDATE_ONLY',
    privilege: `DATAMANAGEMENT (Can manage data) or ADMINISTRATION, and edit access to each object it updates (${TML_V1_PAGE}, ${TML_V2_PAGE})`,
    deadline: 'query',
  },
  ...INPUT_TABLE_OPERATIONS,
  ping: { api: 'load', v1: 'GET ping', v2: LOAD_NO_V2, idempotent: true, privilege: 'none', deadline: 'metadata' },
  startLoad: { api: 'load', v1: 'POST loads', v2: LOAD_NO_V2, idempotent: false, privilege: LOAD, deadline: 'metadata' },
  uploadChunk: { api: 'load', v1: 'POST loads/{cycle_id}', v2: LOAD_NO_V2, idempotent: false, privilege: LOAD, deadline: 'upload' },
  commitLoad: { api: 'load', v1: 'POST loads/{cycle_id}/commit', v2: LOAD_NO_V2, idempotent: false, privilege: LOAD, deadline: 'upload' },
  abortLoad: { api: 'load', v1: 'POST loads/{cycle_id}/cancel', v2: LOAD_NO_V2, idempotent: true, privilege: LOAD, deadline: 'metadata' },
  loadStatus: { api: 'load', v1: 'GET loads/{cycle_id}', v2: LOAD_NO_V2, idempotent: true, privilege: LOAD, deadline: 'metadata' },
  badRecords: { api: 'load', v1: 'GET loads/{cycle_id}/bad_records_file', v2: LOAD_NO_V2, idempotent: true, privilege: LOAD, deadline: 'metadata' },
  inputSummary: { api: 'load', v1: 'GET loads/{cycle_id}/input_summary', v2: LOAD_NO_V2, idempotent: true, privilege: LOAD, deadline: 'metadata' },
} as const satisfies Record<string, ServiceOperation>;

/** The name of a service operation. */
export type OperationName = keyof typeof SERVICE_OPERATIONS;

/** The operations of the public API (those the generation switch applies to). */
export type PublicOperationName = { [N in OperationName]: (typeof SERVICE_OPERATIONS)[N]['api'] extends 'public' ? N : never }[OperationName];

/**
 * The public operations both generations implement (a v1 call and a v2 call in `SERVICE_OPERATIONS`):
 * the facade sends each on the generation `generationFor` chooses, through `apiFor` (index.ts).
 */
export type BothGenerationsOperation = {
  [N in PublicOperationName]: (typeof SERVICE_OPERATIONS)[N]['v1'] extends string ? ((typeof SERVICE_OPERATIONS)[N]['v2'] extends { call: string } ? N : never) : never;
}[PublicOperationName];

/** Every operation name, in the table's order. */
export const OPERATION_NAMES: OperationName[] = keysOf(SERVICE_OPERATIONS);

/**
 * The operations the extension's service port (`ServiceApi`, client/src/service.ts) offers: the public
 * API's. The data-load API is reached through the load pipeline on the client itself.
 */
export const FACADE_OPERATIONS = OPERATION_NAMES.filter((n): n is PublicOperationName => SERVICE_OPERATIONS[n].api === 'public');

/** The page saying that v1 has no such call, or undefined when it has one. */
export function v1Absence(name: OperationName): string | undefined {
  const v1: ServiceOperation['v1'] = SERVICE_OPERATIONS[name].v1;
  return typeof v1 === 'string' ? undefined : v1.none;
}

/**
 * True when a call of `name` may be sent again after a lost answer, a 429 or a 401 (`repeatable` of
 * session.ts): the operation is idempotent, or `readOnly` says the call carries the row's `readOnlyWith`
 * (e.g. an import with `VALIDATE_ONLY`).
 */
export function isRepeatable(name: OperationName, readOnly = false): boolean {
  const o: ServiceOperation = SERVICE_OPERATIONS[name];
  return o.idempotent || (readOnly && o.readOnlyWith !== undefined);
}

/** The page saying that v2 has no such operation, or undefined when it has one. */
export function v2Absence(name: OperationName): string | undefined {
  const v2: ServiceOperation['v2'] = SERVICE_OPERATIONS[name].v2;
  return 'none' in v2 ? v2.none : undefined;
}

/**
 * The rows of the operations table of docs/service-interface.md §10.6 (Markdown, one line per
 * operation: name, v1 call, v2 call or why none, idempotent, privilege), in the table's order. The page
 * holds exactly these lines (test/unit/operations.test.ts).
 */
export function operationsTableRows(): string[] {
  return OPERATION_NAMES.map((n) => {
    const o: ServiceOperation = SERVICE_OPERATIONS[n];
    const v1 = typeof o.v1 === 'string' ? `\`${o.v1}\`` : `none: ${o.v1.none}`;
    const v2 = 'none' in o.v2 ? `none: ${o.v2.none}` : `\`${o.v2.call}\` (\`${o.v2.operationId}\`)`;
    const idempotent = o.idempotent ? 'yes' : o.readOnlyWith ? `no (yes with \`${o.readOnlyWith}\`)` : 'no';
    return `| \`${n}\` | ${v1} | ${v2} | ${idempotent} | ${o.privilege} |`;
  });
}
