/**
 * `tsq tml export|validate|import`: Answers as files in Git (docs/service-interface.md §11).
 *
 * - `export`: the TML of objects by GUID, or by name with `--type`, or every answer (`--all`), written
 *   to `<out>/<name>.<type>.tml` (YAML), in batches of TML_BATCH_SIZE with progress on stderr.
 * - `validate`: each file's local checks (common/src/tml/answerTml.ts: YAML, the Answer's shape, its
 *   search_query against the live catalog), then the service's `VALIDATE_ONLY` in batches of at most
 *   TML_BATCH_SIZE (the service's advice, tml-import.adoc). One `file:line:col: severity: message` line
 *   per problem, as `tsq check` prints them; exit 1 when any file has an error.
 * - `import`: the files under `--policy partial` (the service's default) or `all-or-none`; a file that
 *   fails the local checks is not sent. Prints each file's outcome and the GUID of its answer.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { TML_BATCH_SIZE, type AnalyticsServiceClient, type ImportedTmlObject, type TmlImportPolicy } from '../../common/src/api';
import { ServiceCatalogProvider } from '../../common/src/catalog';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { readAnswerTml, validateAnswerTml } from '../../common/src/tml/answerTml';
import { printDiagnostics, type DiagnosticFormat } from './diagnosticFormats';
import { UsageError } from './exitCodes';
import { info, write } from './output';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--type` of `tsq tml export`, with the v1 header type each lists under. */
export const TML_EXPORT_TYPES: Record<string, string> = { answer: 'QUESTION_ANSWER_BOOK', liveboard: 'PINBOARD_ANSWER_BOOK', table: 'LOGICAL_TABLE', worksheet: 'LOGICAL_TABLE' };
const V2_TYPE: Record<string, string> = { answer: 'ANSWER', liveboard: 'LIVEBOARD', table: 'LOGICAL_TABLE', worksheet: 'LOGICAL_TABLE' };

/** A file name from an object name: path separators and control characters become `_`. */
function safeName(name: string): string {
  return name.replace(/[/\\:*?"<>|\u0000-\u001f]/g, '_').replace(/^\.+/, '_').slice(0, 200) || '_';
}

/** Options of `tsq tml export`. */
export interface TmlExportOptions {
  type?: string;
  all?: boolean;
  out: string;
  fqn?: boolean;
  signal?: AbortSignal;
}

/**
 * Exports objects' TML to files; returns the number of objects that failed (ERROR status).
 * @throws UsageError for a name without --type, or a name no object has; ServiceError from the service
 */
export async function runTmlExport(client: AnalyticsServiceClient, refs: string[], opts: TmlExportOptions): Promise<number> {
  const type = opts.type;
  if (type !== undefined && !(type in TML_EXPORT_TYPES)) throw new UsageError(`--type must be one of ${Object.keys(TML_EXPORT_TYPES).join(', ')}`);
  let ids: string[] = [];
  if (opts.all) {
    const headers = await client.listObjectHeaders({ type: TML_EXPORT_TYPES[type ?? 'answer'] as never }, { signal: opts.signal });
    ids = headers.map((h) => h.id);
  }
  for (const ref of refs) {
    if (GUID.test(ref)) {
      ids.push(ref);
      continue;
    }
    if (!type) throw new UsageError(`${ref} is not a GUID: give --type to export by name`);
    const headers = await client.listObjectHeaders({ type: TML_EXPORT_TYPES[type] as never, pattern: ref }, { signal: opts.signal });
    const hit = headers.find((h) => h.name.toLowerCase() === ref.toLowerCase());
    if (!hit) throw new UsageError(`no ${type} named ${ref}`);
    ids.push(hit.id);
  }
  if (ids.length === 0) throw new UsageError('nothing to export: give GUIDs, names with --type, or --all');
  await mkdir(opts.out, { recursive: true });
  let failed = 0;
  for (let i = 0; i < ids.length; i += TML_BATCH_SIZE) {
    const batch = ids.slice(i, i + TML_BATCH_SIZE);
    const objects = await client.exportTml(batch.map((identifier) => ({ identifier, ...(type ? { type: V2_TYPE[type] } : {}) })), { format: 'YAML', fqn: opts.fqn }, { signal: opts.signal });
    for (const o of objects) {
      if (o.info.status.status_code === 'ERROR') {
        failed++;
        process.stderr.write(`tsq: ${o.info.id}: ${o.info.status.error_message ?? 'export failed'}\n`);
        continue;
      }
      const file = join(opts.out, `${safeName(o.info.name)}.${safeName(o.info.type.toLowerCase())}.tml`);
      await writeFile(file, o.edoc);
      await write(process.stdout, `${file}\n`);
    }
    info(`exported ${Math.min(i + TML_BATCH_SIZE, ids.length)} of ${ids.length}`);
  }
  return failed;
}

/** One file read for validation or import, with its local diagnostics. */
interface CheckedFile {
  file: string;
  text: string;
  diagnostics: Diagnostic[];
}

async function checkFiles(client: AnalyticsServiceClient, files: string[]): Promise<CheckedFile[]> {
  const catalog = new ServiceCatalogProvider(client);
  const service = getLanguageService({ catalog });
  const out: CheckedFile[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new UsageError(`${file} cannot be read: ${(e as Error).message}`);
    }
    const diagnostics = await validateAnswerTml(service, file, text);
    if (catalog.lastError) throw catalog.lastError;
    out.push({ file, text, diagnostics });
  }
  return out;
}

const isError = (d: Diagnostic): boolean => (d.severity ?? DiagnosticSeverity.Error) === DiagnosticSeverity.Error;

/** The service's answer for one file as a diagnostic on its search_query (or its first line). */
function serviceDiagnostic(f: CheckedFile, r: ImportedTmlObject): Diagnostic | undefined {
  if (r.status.status_code === 'OK') return undefined;
  const file = readAnswerTml(f.text);
  const node = file.query?.node.range;
  const pos = node ? file.lines.linePos(node[0]) : { line: 1, col: 1 };
  return {
    range: { start: { line: pos.line - 1, character: pos.col - 1 }, end: { line: pos.line - 1, character: pos.col - 1 } },
    severity: r.status.status_code === 'WARNING' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Error,
    message: `the service: ${r.status.error_message ?? r.status.status_code}`,
    code: 'tml.service',
    source: 'tsq',
  };
}

/**
 * `tsq tml validate`: local checks, then `VALIDATE_ONLY` in batches for the files that passed them.
 * Prints the diagnostics in `format`; returns the number of errors.
 */
export async function runTmlValidate(client: AnalyticsServiceClient, files: string[], format: DiagnosticFormat, signal?: AbortSignal): Promise<number> {
  const checked = await checkFiles(client, files);
  const toSend = checked.filter((f) => !f.diagnostics.some(isError));
  for (let i = 0; i < toSend.length; i += TML_BATCH_SIZE) {
    const batch = toSend.slice(i, i + TML_BATCH_SIZE);
    const results = await client.importTml(batch.map((f) => f.text), 'VALIDATE_ONLY', {}, { signal });
    batch.forEach((f, k) => {
      const d = results[k] && serviceDiagnostic(f, results[k]);
      if (d) f.diagnostics.push(d);
    });
    if (toSend.length > TML_BATCH_SIZE) info(`validated ${Math.min(i + TML_BATCH_SIZE, toSend.length)} of ${toSend.length} on the service`);
  }
  await printDiagnostics(checked.map((f) => ({ file: f.file, diagnostics: f.diagnostics })), format);
  const errors = checked.reduce((n, f) => n + f.diagnostics.filter(isError).length, 0);
  info(`${errors} error${errors === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}`);
  return errors;
}

/**
 * `tsq tml import`: files that pass the local checks are imported under `policy` (in batches of
 * TML_BATCH_SIZE; with all-or-none a failed file stops everything, so nothing is sent when one fails
 * locally). Prints `file: OK <guid>` or the error; returns the number of files not imported.
 */
export async function runTmlImport(client: AnalyticsServiceClient, files: string[], policy: TmlImportPolicy, signal?: AbortSignal): Promise<number> {
  const checked = await checkFiles(client, files);
  const bad = checked.filter((f) => f.diagnostics.some(isError));
  await printDiagnostics(bad.map((f) => ({ file: f.file, diagnostics: f.diagnostics.filter(isError) })), 'text');
  if (policy === 'ALL_OR_NONE' && bad.length) {
    info(`nothing imported: ${bad.length} file${bad.length === 1 ? '' : 's'} failed the checks (--policy all-or-none)`);
    return files.length;
  }
  if (policy === 'ALL_OR_NONE' && checked.length > TML_BATCH_SIZE) info(`all-or-none holds per batch of ${TML_BATCH_SIZE} files: an earlier batch stays imported when a later one fails`);
  const toSend = checked.filter((f) => !bad.includes(f));
  let failed = bad.length;
  for (let i = 0; i < toSend.length; i += TML_BATCH_SIZE) {
    const batch = toSend.slice(i, i + TML_BATCH_SIZE);
    const results = await client.importTml(batch.map((f) => f.text), policy, {}, { signal });
    for (const [k, f] of batch.entries()) {
      const r = results[k];
      if (r?.status.status_code === 'OK' || r?.status.status_code === 'WARNING') await write(process.stdout, `${f.file}: ${r.status.status_code} ${r.header?.id_guid ?? ''}\n`);
      else {
        failed++;
        await write(process.stdout, `${f.file}: ERROR ${r?.status.error_message ?? 'no answer from the service'}\n`);
      }
    }
  }
  info(`${files.length - failed} of ${files.length} imported`);
  return failed;
}
