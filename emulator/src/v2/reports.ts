/**
 * REST API v2 `report/answer` and `report/liveboard` (OpenAPI `exportAnswerReport`,
 * `exportLiveboardReport` of thoughtspot/rest-api-sdk `api-spec/openapiSpecv3-2_0.json`): an answer's
 * or one liveboard visualization's rows as a CSV file (csv-stringify), the same rows searchdata gives.
 * PDF, PNG and XLSX are refused with the documented 400 error (the emulator draws no charts); the
 * readings taken are in docs/service-notes.md ("Reports").
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { stringify } from 'csv-stringify/sync';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import type { Visualization } from '../metadataStore';
import { isBook, objectsOf } from './objects';
import type { V2Deps } from './routes';
import { visualizationSource } from '../searchdata/formulaColumns';
import { body, str, stringList } from '../requestValues';

/** Most rows one report holds, as one searchdata page. */
const MAX_REPORT_ROWS = 100_000;

/** The members that change the rows at run time, which the emulator does not apply: refused when given. */
const RUNTIME_MEMBERS = ['runtime_filter', 'runtime_sort', 'runtime_param_override', 'override_filters', 'transient_content', 'personalised_view_identifier', 'session_identifier', 'generation_number'];

/** `file_format` upper-cased (`dflt` when absent); anything but CSV is refused. @throws ApiError 400 */
function csvOnly(b: Record<string, unknown>, formats: readonly string[], dflt: string): void {
  const f = (str(b, 'file_format') ?? dflt).toUpperCase();
  if (!formats.includes(f)) throw new ApiError(400, `Invalid value for file_format: ${f} (${formats.join(', ')}).`);
  if (f !== 'CSV') throw new ApiError(400, `file_format ${f} is not supported by the emulator: it exports CSV only (it draws no charts or workbooks).`);
  for (const m of RUNTIME_MEMBERS) {
    const v = b[m];
    if (v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v).length === 0)) throw new ApiError(400, `${m} is not supported by the emulator's reports.`);
  }
}

/**
 * Registers both routes in the v2 scope. Each needs view access to the object and its data source and
 * DATADOWNLOADING ("If RBAC is not enabled, the DATADOWNLOADING (Can download Data) privilege is
 * required"), else 403. The answer is the file (`application/octet-stream`, "extensionless"), with a
 * `Content-Disposition` naming it `<object name>.csv`.
 *
 * | route | what is exported |
 * |---|---|
 * | `POST report/answer` | `metadata_identifier` (an answer's GUID or name), `file_format` (CSV, the default) |
 * | `POST report/liveboard` | `metadata_identifier` (a liveboard) and one visualization: `visualization_identifiers` with one, or a liveboard of one (several would be a ZIP of CSV files on the service: refused) |
 */
export function registerReportsV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  const csvOf = async (user: EmulatorUser, v: Visualization): Promise<string> => {
    const ds = catalog.dataSource(v.dataSource);
    if (!ds) throw new ApiError(400, `Visualization ${v.name}: its data source no longer exists.`);
    if (!catalog.canRead(user, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
    const r = await deps.search.search(visualizationSource(ds, v), v.query, { batchsize: MAX_REPORT_ROWS, pagenumber: -1, offset: 0, formattype: 'COMPACT' });
    return stringify([r.columnNames, ...(r.data as unknown[][])]);
  };
  const send = (reply: FastifyReply, name: string, csv: string): FastifyReply =>
    reply
      .code(200)
      .type('application/octet-stream')
      .header('content-disposition', `attachment; filename="${name.replace(/[^\w .-]/g, '_')}.csv"`)
      .send(Buffer.from(csv, 'utf8'));
  const downloader = (user: EmulatorUser): void => {
    if (!user.privileges.has('DATADOWNLOADING')) throw new ApiError(403, `${FORBIDDEN_TEXT} Exporting a report needs DATADOWNLOADING (Can download data).`);
  };

  api.post('/report/answer', async (req, reply: FastifyReply) => {
    const user = req.v2User!;
    const b = body(req);
    const type = (str(b, 'type') ?? 'SAVED').toUpperCase();
    if (type !== 'SAVED') throw new ApiError(400, `type ${type} is not supported by the emulator: it exports saved answers (SAVED).`);
    csvOnly(b, ['CSV', 'PDF', 'XLSX', 'PNG'], 'CSV');
    const [answer] = objectsOf(catalog, user, [{ identifier: str(b, 'metadata_identifier', true), type: 'ANSWER' }], 'metadata_identifier').filter(isBook);
    downloader(user);
    const v = answer!.visualizations[0];
    if (!v) throw new ApiError(400, `Answer ${answer!.name} has no search.`);
    return send(reply, answer!.name, await csvOf(user, v));
  });

  api.post('/report/liveboard', async (req, reply: FastifyReply) => {
    const user = req.v2User!;
    const b = body(req);
    csvOnly(b, ['PDF', 'PNG', 'CSV', 'XLSX'], 'CSV');
    if ((stringList(b, 'tab_identifiers') ?? []).length > 0) throw new ApiError(400, "tab_identifiers is not supported by the emulator: its liveboards have no tabs.");
    const [board] = objectsOf(catalog, user, [{ identifier: str(b, 'metadata_identifier', true), type: 'LIVEBOARD' }], 'metadata_identifier').filter(isBook);
    downloader(user);
    const wanted = stringList(b, 'visualization_identifiers')?.map((x) => x.toLowerCase());
    const vizs = wanted === undefined ? board!.visualizations : board!.visualizations.filter((v) => wanted.includes(v.id) || wanted.includes(v.name.toLowerCase()));
    if (wanted !== undefined && vizs.length !== wanted.length) throw new ApiError(400, `Invalid value for visualization_identifiers: liveboard ${board!.name} does not have them all.`);
    if (vizs.length !== 1) throw new ApiError(400, `A CSV report of several visualizations is a ZIP file, which the emulator does not write: give visualization_identifiers with one of the ${vizs.length} visualizations of ${board!.name}.`);
    return send(reply, `${board!.name} - ${vizs[0]!.name}`, await csvOf(user, vizs[0]!));
  });
}
