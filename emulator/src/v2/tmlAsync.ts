/**
 * REST API v2 `metadata/tml/async/import`, `metadata/tml/async/status` and `metadata/tml/export/batch`
 * (OpenAPI `importMetadataTMLAsync`, `fetchAsyncImportTaskStatus`, `exportMetadataTMLBatched` of
 * thoughtspot/rest-api-sdk `api-spec/openapiSpecv3-2_0.json`). An async import is the synchronous
 * import of tml/routes.ts run as a task, kept in memory with its answer; the batched export is of users
 * and groups only, as the document says. Readings taken: docs/service-notes.md ("Async TML import").
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import type { MetadataStore } from '../metadataStore';
import { IMPORT_POLICIES, TmlService, type ImportedTml, type ImportPolicy } from '../tml/answers';
import { exportPrincipal, principalsInOrg, type ExportedPrincipal } from '../tml/principals';
import { MAX_TML_OBJECTS } from '../tml/routes';
import type { V2Deps } from './routes';
import { isOneOf } from '../../../common/src/guards';
import { body, bool, int, str, stringList } from '../requestValues';

/** The statuses of a task (`ImportEPackAsyncTaskStatus.task_status`). */
const TASK_STATUSES = ['COMPLETED', 'IN_QUEUE', 'IN_PROGRESS', 'FAILED'] as const;
/** Tasks kept per emulator; the oldest go first. */
const MAX_TASKS = 1000;

/** One async import task, as `ImportEPackAsyncTaskStatus` shows it (times in epoch milliseconds). */
interface ImportTask {
  task_id: string;
  task_name: string;
  task_status: (typeof TASK_STATUSES)[number];
  author_id: string;
  author_display_name: string;
  /** The Org the import ran in (the author's session's). */
  org_id: number;
  import_policy: ImportPolicy;
  created_at: number;
  in_progress_at: number;
  completed_at: number;
  modified_at: number;
  total_object_count: number;
  object_processed_count: number;
  import_response: { object: ImportedTml[] } | { error: string };
}

/**
 * Registers the three routes in the v2 scope:
 *
 * | route | privilege | answer |
 * |---|---|---|
 * | `POST metadata/tml/async/import` | as tml/import: DATAMANAGEMENT or ADMINISTRATION | `ImportEPackAsyncTaskStatus` of the new task; the emulator completes it before answering (COMPLETED, or FAILED with the import's error) |
 * | `POST metadata/tml/async/status` | the task's author; ADMINISTRATION sees every task | `{status_list, last_batch}` for `task_ids`, `task_status`, `author_identifier`, paged by `record_offset` (0) and `record_size` (5); `import_response` only with `include_import_response` |
 * | `POST metadata/tml/export/batch` | ADMINISTRATION (the document's DATAMANAGEMENT and USERMANAGEMENT) | `[{info, edoc}]` of the users (`USER`) or groups (`USER_GROUP`) from `batch_offset` (0), `batch_size` (20); `ROLE`: none (the emulator has no roles) |
 */
export function registerTmlAsyncV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  const tml = new TmlService(catalog, deps.search, deps.now);
  const tasks: ImportTask[] = [];
  api.post('/metadata/tml/async/import', async (req) => {
    const user = req.v2User!;
    const b = body(req);
    const texts = stringList(b, 'metadata_tmls');
    if (!texts || texts.length === 0) throw new ApiError(400, 'Missing parameter metadata_tmls: a list of TML texts.');
    if (texts.length > MAX_TML_OBJECTS) throw new ApiError(400, `Invalid value for metadata_tmls: ${texts.length} objects; at most ${MAX_TML_OBJECTS} in one call.`);
    const policy = (str(b, 'import_policy') ?? 'PARTIAL_OBJECT').toUpperCase();
    if (!isOneOf(IMPORT_POLICIES, policy)) throw new ApiError(400, `Invalid value for import_policy: ${policy} (${IMPORT_POLICIES.join(', ')}).`);
    if (!user.privileges.has('DATAMANAGEMENT') && !user.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
    const createNew = bool(b, 'create_new', false);
    const start = deps.now().getTime();
    let response: ImportTask['import_response'];
    let status: ImportTask['task_status'] = 'COMPLETED';
    try {
      response = { object: tml.importAll(user, texts, policy, createNew) };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      response = { error: e.message };
      status = 'FAILED';
    }
    const end = deps.now().getTime();
    const task: ImportTask = { task_id: randomUUID(), task_name: `TML import of ${texts.length} object${texts.length === 1 ? '' : 's'}`, task_status: status, author_id: user.id, author_display_name: user.displayName, org_id: user.orgId, import_policy: policy, created_at: start, in_progress_at: start, completed_at: end, modified_at: end, total_object_count: texts.length, object_processed_count: status === 'COMPLETED' ? texts.length : 0, import_response: response };
    tasks.push(task);
    if (tasks.length > MAX_TASKS) tasks.shift();
    return shown(task, false);
  });
  api.post('/metadata/tml/async/status', async (req) => {
    const user = req.v2User!;
    const b = body(req);
    const ids = stringList(b, 'task_ids');
    const statuses = stringList(b, 'task_status')?.map((s) => s.toUpperCase());
    const bad = statuses?.find((s) => !isOneOf(TASK_STATUSES, s));
    if (bad !== undefined) throw new ApiError(400, `Invalid value for task_status: ${bad} (${TASK_STATUSES.join(', ')}).`);
    const authorName = str(b, 'author_identifier')?.toLowerCase();
    const author = authorName === undefined ? undefined : (catalog.userByName(authorName) ?? catalog.storedUser(authorName))?.id ?? authorName;
    const offset = int(b, 'record_offset', 0, 0);
    const size = int(b, 'record_size', 5, -1);
    const full = bool(b, 'include_import_response', false);
    const mine = (t: ImportTask): boolean => t.org_id === user.orgId && (t.author_id === user.id || user.privileges.has('ADMINISTRATION'));
    const list = tasks.filter((t) => mine(t) && (ids === undefined || ids.includes(t.task_id)) && (statuses === undefined || statuses.includes(t.task_status)) && (author === undefined || t.author_id === author));
    const page = size === -1 ? list.slice(offset) : list.slice(offset, offset + size);
    return { status_list: page.map((t) => shown(t, full)), last_batch: offset + page.length >= list.length };
  });
  api.post('/metadata/tml/export/batch', async (req) => exportBatch(catalog, req.v2User!, body(req)));
}

/** A task as the status answers it: the Org, and the import's answer only when asked for. */
function shown(t: ImportTask, withResponse: boolean): Record<string, unknown> {
  const { import_response, ...rest } = t;
  return { ...rest, ...(withResponse ? { import_response } : {}) };
}

/** metadata/tml/export/batch: a page of the user or group TML of the caller's Org (tml/principals.ts). @throws ApiError 400, 403 */
function exportBatch(catalog: MetadataStore, user: EmulatorUser, b: Record<string, unknown>): ExportedPrincipal[] {
  if (!user.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
  const type = str(b, 'metadata_type', true)!.toUpperCase();
  if (!isOneOf(['USER', 'USER_GROUP', 'ROLE'] as const, type)) throw new ApiError(400, `Invalid value for metadata_type: ${type} (USER, USER_GROUP or ROLE; other objects export through metadata/tml/export).`);
  const offset = int(b, 'batch_offset', 0, 0);
  const size = int(b, 'batch_size', 20, 1);
  const format = (str(b, 'edoc_format') ?? 'JSON').toUpperCase();
  if (format !== 'JSON' && format !== 'YAML') throw new ApiError(400, `Invalid value for edoc_format: ${format} (JSON or YAML).`);
  bool(b, 'export_dependent', false);
  bool(b, 'all_orgs_override', false);
  if (type === 'ROLE') return [];
  const kind = type;
  return principalsInOrg(catalog, user, kind).slice(offset, offset + size).map((p) => exportPrincipal(catalog, kind, p, format));
}
