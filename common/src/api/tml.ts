/**
 * The shapes of the TML operations (docs/service-interface.md §11.2; sources there: developer-docs
 * `tml-api.adoc` for v1, `tml-import.adoc` and the OpenAPI document of thoughtspot/rest-api-sdk for v2).
 * The operations themselves (`exportTml`, `importTml`, `answerSql`) are rows of `SERVICE_OPERATIONS`
 * (operations.ts), implemented on `PublicApi` and `PublicApiV2` and switched by the facade like the others.
 */
/** The import policies (OpenAPI `ImportMetadataTMLRequest.import_policy`; v1 knows the first three). */
export type TmlImportPolicy = 'PARTIAL' | 'ALL_OR_NONE' | 'VALIDATE_ONLY';

/** Most objects TSQ sends in one `VALIDATE_ONLY` or `ALL_OR_NONE` call: the service's advice (tml-import.adoc, "limit tasks to approximately 50 TML objects"). */
export const TML_BATCH_SIZE = 50;

/** The status of one object (`status_code` OK, WARNING or ERROR, with the service's message). */
export interface TmlObjectStatus {
  status_code: 'OK' | 'WARNING' | 'ERROR' | string;
  error_message?: string;
}

/** One exported object: its TML text and what the service says of it. */
export interface ExportedTmlObject {
  info: { name: string; filename?: string; status: TmlObjectStatus; type: string; id: string };
  /** The TML text (YAML or JSON as asked); empty when the status is ERROR. */
  edoc: string;
}

/** One imported (or validated) object: its status and, when it names one, the object's header. */
export interface ImportedTmlObject {
  status: TmlObjectStatus;
  header?: { id_guid?: string; name?: string; metadata_type?: string; [more: string]: unknown };
}

/** What to export: a GUID, or a name with its type (v2 type names: `ANSWER`, `LIVEBOARD`, `LOGICAL_TABLE`). */
export interface TmlExportRef {
  identifier: string;
  type?: string;
}

/** What `metadata/tml/export/batch` exports (OpenAPI `ExportMetadataTMLBatchedRequest.metadata_type`): users, groups or roles. */
export type TmlBatchType = 'USER' | 'USER_GROUP' | 'ROLE';

/** The policies of an async import (OpenAPI `ImportMetadataTMLAsyncRequest.import_policy`). */
export type TmlAsyncImportPolicy = TmlImportPolicy | 'PARTIAL_OBJECT';

/** The states of an async import task (OpenAPI `ImportEPackAsyncTaskStatus.task_status`). */
export type TmlImportTaskStatus = 'COMPLETED' | 'IN_QUEUE' | 'IN_PROGRESS' | 'FAILED';

/**
 * One async import task as `metadata/tml/async/import` and `metadata/tml/async/status` answer it
 * (OpenAPI `ImportEPackAsyncTaskStatus`; times in epoch milliseconds, every member may be absent or null).
 * `import_response` comes only with `include_import_response`; its shape the document leaves open
 * (`any`): TSQ reads `object` as the synchronous import's list and `error` as the task's message.
 */
export interface TmlImportTask {
  task_id?: string | null;
  task_name?: string | null;
  task_status?: TmlImportTaskStatus | null;
  org_id?: number | null;
  author_id?: string | null;
  author_display_name?: string | null;
  import_policy?: TmlAsyncImportPolicy | null;
  created_at?: number | null;
  in_progress_at?: number | null;
  completed_at?: number | null;
  modified_at?: number | null;
  total_object_count?: number | null;
  object_processed_count?: number | null;
  import_response?: unknown;
}
