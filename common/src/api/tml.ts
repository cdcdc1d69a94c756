/**
 * The TML operations of the service on either API generation, answering in one shape
 * (docs/service-interface.md §11.2; sources there: developer-docs `tml-api.adoc` for v1,
 * `tml-import.adoc` and the OpenAPI document of thoughtspot/rest-api-sdk for v2).
 *
 * | operation | v1 (`/tspublic/v1`, form body) | v2 (`/api/rest/2.0`, JSON) |
 * |---|---|---|
 * | `exportTml` | `POST metadata/tml/export` `export_ids`, `formattype`, `export_fqn` | `POST metadata/tml/export` `metadata`, `edoc_format`, `export_fqn` |
 * | `importTml` | `POST metadata/tml/import` `import_objects`, `import_policy`, `force_create` | `POST metadata/tml/import` `metadata_tmls`, `import_policy`, `create_new` |
 * | `answerSql` | — | `POST metadata/answer/sql` `metadata_identifier` |
 * An import is never repeated by the transport (it writes); an export and `VALIDATE_ONLY` are.
 */
import { ServiceError } from './errors';
import type { CallOptions } from './publicApi';
import { PUBLIC_PREFIX } from './publicApi';
import type { HttpSession } from './session';
import { V2_PREFIX } from './serviceToday';

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

function parse<T>(text: string, operation: string, path: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ServiceError({ status: 200, serviceMessage: text.slice(0, 200), operation, method: 'POST', path }, `${operation} (${path}) answered with a body that is not JSON`);
  }
}

/** The TML operations on one session; `generation` says which API to speak (the client's `apiGeneration`). */
export class TmlApi {
  constructor(
    private readonly session: HttpSession,
    private readonly generation: (signal?: AbortSignal) => Promise<'v1' | 'v2'>,
  ) {}

  private async v2<T>(operation: string, path: string, body: unknown, repeatable: boolean, opts: CallOptions): Promise<T> {
    const full = V2_PREFIX + path;
    const r = await this.session.call({ operation, method: 'POST', path: full, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), repeatable, signal: opts.signal });
    return parse<T>(r.text, operation, full);
  }

  private async v1<T>(operation: string, path: string, form: Record<string, string>, repeatable: boolean, opts: CallOptions): Promise<T> {
    const full = PUBLIC_PREFIX + path;
    const r = await this.session.call({ operation, method: 'POST', path: full, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-requested-by': 'ThoughtSpot' }, body: new URLSearchParams(form).toString(), repeatable, signal: opts.signal });
    return parse<T>(r.text, operation, full);
  }

  /**
   * Exports objects' TML, one result per reference in order. On v1 the identifier is sent as an id (v1
   * exports by GUID only: resolve a name first); v2 takes a name with its type. `fqn` adds the
   * referenced data sources' GUIDs.
   * @throws ServiceError (the service refused the request)
   */
  async exportTml(refs: TmlExportRef[], options: { format?: 'YAML' | 'JSON'; fqn?: boolean } = {}, opts: CallOptions = {}): Promise<ExportedTmlObject[]> {
    const format = options.format ?? 'YAML';
    if ((await this.generation(opts.signal)) === 'v2') {
      return this.v2<ExportedTmlObject[]>('exportTml', '/metadata/tml/export', { metadata: refs.map((r) => ({ identifier: r.identifier, ...(r.type ? { type: r.type } : {}) })), edoc_format: format, export_fqn: options.fqn ?? false }, true, opts);
    }
    const r = await this.v1<{ object: ExportedTmlObject[] }>('exportTml', '/metadata/tml/export', { export_ids: JSON.stringify(refs.map((x) => x.identifier)), formattype: format, export_fqn: String(options.fqn ?? false) }, true, opts);
    return r.object;
  }

  /**
   * Imports (or with `VALIDATE_ONLY` only validates) TML texts, one result per text in order.
   * `createNew` creates new objects even where a `guid` names an existing one.
   * @throws ServiceError (the service refused the whole request, e.g. 403 without DATAMANAGEMENT)
   */
  async importTml(texts: string[], policy: TmlImportPolicy, options: { createNew?: boolean } = {}, opts: CallOptions = {}): Promise<ImportedTmlObject[]> {
    const repeatable = policy === 'VALIDATE_ONLY';
    if ((await this.generation(opts.signal)) === 'v2') {
      const r = await this.v2<{ response: ImportedTmlObject }[]>('importTml', '/metadata/tml/import', { metadata_tmls: texts, import_policy: policy, create_new: options.createNew ?? false }, repeatable, opts);
      return r.map((o) => o.response);
    }
    const r = await this.v1<{ object: { response: ImportedTmlObject }[] }>('importTml', '/metadata/tml/import', { import_objects: JSON.stringify(texts), import_policy: policy, force_create: String(options.createNew ?? false) }, repeatable, opts);
    return r.object.map((o) => o.response);
  }

  /** `metadata/answer/sql` (v2 only): the SQL of an answer, by GUID or name. @throws ServiceError */
  async answerSql(identifier: string, opts: CallOptions = {}): Promise<{ metadata_id: string; metadata_name: string; sql_queries: { sql_query: string }[] }> {
    return this.v2('answerSql', '/metadata/answer/sql', { metadata_identifier: identifier }, true, opts);
  }
}
