/**
 * `tsq tml export|validate|import`: Answers as files in Git (docs/service-interface.md §11).
 * - `export`: the TML of objects by GUID, by name with `--type`, or all of a type (`--all`; users and groups
 *   through `metadata/tml/export/batch`: `principalSource`), in batches of TML_BATCH_SIZE with progress on
 *   stderr, to `<out>/<name>.<type>.tml`: one file per object (`ExportFiles`: ` (2)`…, cut to NAME_MAX_BYTES,
 *   each rename said on stderr), written by common/src/safeWrite.ts (no link followed).
 * - `validate`: each file's local checks (common/src/tml/tmlService.ts), then the service's `VALIDATE_ONLY`
 *   in batches (common/src/tml/tmlFiles.ts, as TSQ: Validate TML); problems as `tsq check` prints them.
 * - `import`: the files under `--policy partial` (the default) or `all-or-none`; a file failing the local
 *   checks is not sent. Prints each file's outcome and the GUID of its answer. `--async`: tmlAsyncImport.ts.
 */
import { constants } from 'node:fs';
import { lstat, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { ServiceError, TML_BATCH_SIZE, type AnalyticsServiceClient, type ExportedTmlObject, type TmlImportPolicy } from '../../common/src/api';
import { pagesOf, type Page } from '../../common/src/api/paging';
import { readBoundedYaml, TML_LIMITS } from '../../common/src/tml/boundedYaml';
import { checkTmlTexts, importTmlFiles, isTmlError, validateTmlOnService, type TmlFile } from '../../common/src/tml/tmlFiles';
import { printDiagnostics, type DiagnosticFormat } from './diagnosticFormats';
import { terminalSafe, terminalText } from '../../common/src/terminalText';
import { cutToBytes, ensureFolder, NAME_MAX_BYTES, safeFileName, UnsafePathError, writeFileSafely } from '../../common/src/safeWrite';
import { ExitCode, ExitError, UsageError } from './exitCodes';
import { info, writeLine } from './output';
import { perSecond, reporterOf, type ProgressMode, type ProgressReporter } from './progress';
import { errnoCode, messageOf } from '../../common/src/guards';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--type` of `tsq tml export`, with the v1 header type each lists under. */
export const TML_EXPORT_TYPES: Record<string, string> = { answer: 'QUESTION_ANSWER_BOOK', liveboard: 'PINBOARD_ANSWER_BOOK', table: 'LOGICAL_TABLE', worksheet: 'LOGICAL_TABLE' };
const V2_TYPE: Record<string, string> = { answer: 'ANSWER', liveboard: 'LIVEBOARD', table: 'LOGICAL_TABLE', worksheet: 'LOGICAL_TABLE' };

/** A file name from an object name: `safeFileName` (common/src/safeWrite.ts), the one rule of every front end. */
const safeName = safeFileName;

/**
 * The file name of the `n`-th choice (1-based) for an object: `<name>.<type>.tml`, then
 * `<name> (n).<type>.tml`, the name made safe (`safeName`) and cut by bytes so that the whole file
 * name, suffix and ending included, is at most NAME_MAX_BYTES of UTF-8 (common/src/safeWrite.ts).
 */
export function exportFileName(name: string, type: string, n = 1): string {
  return fileNameOf(name, type, n).base;
}

/** `exportFileName` and whether the name was cut to fit. */
function fileNameOf(name: string, type: string, n: number): { base: string; cut: boolean } {
  const ending = `${n > 1 ? ` (${n})` : ''}.${safeName(type.toLowerCase())}.tml`;
  const safe = safeName(name);
  const kept = cutToBytes(safe, NAME_MAX_BYTES - Buffer.byteLength(ending));
  return { base: kept + ending, cut: kept !== safe };
}

/** What a name in the `--out` folder holds before the run writes it: nothing (or a link, which the write replaces), the object itself, or something else. */
type Holder = 'free' | 'same' | 'other';

/** The largest file `guidOfFile` reads (bytes: the TML reader's limit in characters, at most 4 bytes each): a bigger one is no TML file TSQ can read. */
const TML_FILE_MAX_BYTES = TML_LIMITS.chars * 4;

/**
 * The top-level `guid` of the TML file at `file`, read without following a link (and without waiting on
 * a pipe put there); undefined when there is none, it is not a regular file, or it exceeds TML_FILE_MAX_BYTES.
 */
async function guidOfFile(file: string): Promise<string | undefined> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > TML_FILE_MAX_BYTES) return undefined;
    // a file a repository put there: read within the TML reader's limits (over one, no GUID)
    const { doc, exceeded } = readBoundedYaml(await handle.readFile('utf8'));
    const guid: unknown = exceeded ? undefined : doc.get('guid');
    return typeof guid === 'string' ? guid : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The file names of one export run in one folder: each object gets a name no other object of the run
 * has (compared without case and in Unicode NFC, as macOS and Windows file systems compare), and that no
 * file of another object occupies: a file already there is replaced only when its top-level `guid` is
 * the object's own (re-exporting into the same folder updates the files), a link at the name is
 * replaced (never followed), anything else — another GUID, no GUID, a folder, a file that cannot be
 * read — keeps its name and the object takes the next ` (n)`.
 */
class ExportFiles {
  private readonly taken = new Set<string>();

  constructor(private readonly out: string) {}

  /**
   * The file for object `id` named `name` of `type`, and why it is not `<name>.<type>.tml` (empty when it is).
   * @throws the file system's error when a name cannot be looked at (EACCES, ENAMETOOLONG…)
   */
  async choose(id: string, name: string, type: string): Promise<{ file: string; reasons: string[] }> {
    const reasons: string[] = [];
    if (safeName(name) !== name) reasons.push('characters a file name cannot hold became _');
    for (let n = 1; ; n++) {
      const { base, cut } = fileNameOf(name, type, n);
      const key = base.normalize('NFC').toLowerCase();
      if (this.taken.has(key)) {
        reasons.push(`${base} is another object's file in this export`);
        continue;
      }
      if ((await this.holder(join(this.out, base), id)) === 'other') {
        reasons.push(`${base} holds another object`);
        continue;
      }
      if (cut) reasons.push(`the name is cut to ${NAME_MAX_BYTES} bytes`);
      this.taken.add(key);
      return { file: join(this.out, base), reasons };
    }
  }

  private async holder(file: string, id: string): Promise<Holder> {
    let st;
    try {
      st = await lstat(file);
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return 'free';
      throw e;
    }
    if (st.isSymbolicLink()) return 'free';
    if (!st.isFile()) return 'other';
    const guid = await guidOfFile(file).catch(() => undefined);
    return guid !== undefined && guid.toLowerCase() === id.toLowerCase() ? 'same' : 'other';
  }
}

/** Options of `tsq tml export`. */
export interface TmlExportOptions {
  type?: string;
  all?: boolean;
  out: string;
  fqn?: boolean;
  /** Ctrl-C: the listing stops at once; the export stops after the batch in flight (its files are written). */
  signal?: AbortSignal;
  /** A bar or plain lines on stderr (cli/src/progress.ts), or a reporter of one's own; default plain lines. */
  progress?: ProgressMode | ProgressReporter;
  /** Where the written files' paths go, one a line, shown through `terminalSafe` (default stdout). */
  stdout?: Writable;
}

/** What `runTmlExport` did. */
export interface TmlExportResult {
  /** Objects whose export answered ERROR, or whose file could not be written (each said on stderr). */
  failed: number;
  /** Files written. */
  written: number;
  /** Batches sent (of at most TML_BATCH_SIZE objects). */
  batches: number;
}

/** The bar of `tsq tml export` and `tsq tml validate`: objects done of all, batches, objects per second. */
export const BATCH_BAR = '{verb} [{bar}] {value}/{total} {unit} | batch {batch}/{batches} | {rate}/s | {eta_formatted} left';

/** The interruption of a batched run: exit 130, saying what was done. */
function interrupted(what: string): ExitError {
  return new ExitError(`interrupted (Ctrl-C): ${what}`, ExitCode.INTERRUPTED);
}

/** Says on stderr, when the signal aborts, that the run stops after the batch in flight; returns the remover of the listener. */
function onInterrupt(signal: AbortSignal | undefined, progress: ProgressReporter): () => void {
  const say = () => progress.log('Ctrl-C: stopping after the batch in flight (press Ctrl-C again to stop at once)');
  signal?.addEventListener('abort', say, { once: true });
  return () => signal?.removeEventListener('abort', say);
}

/** `--type user|group` of `tsq tml export`: the principals, with the v2 type the export names them by. */
export const PRINCIPAL_TML_TYPES: Record<string, 'USER' | 'USER_GROUP'> = { user: 'USER', group: 'USER_GROUP' };

/**
 * Where the batches of one export come from: `next` answers the next batch (undefined after the last);
 * `total` and `batches` are what is known so far (a batched export learns the end when a page is short).
 */
interface ExportSource {
  total: number;
  batches: number;
  next(): Promise<ExportedTmlObject[] | undefined>;
}

/** The objects `ids` (of v2 type `v2Type` when given), TML_BATCH_SIZE to a `metadata/tml/export` call. */
function idSource(client: AnalyticsServiceClient, ids: string[], v2Type: string | undefined, fqn: boolean | undefined): ExportSource {
  let i = 0;
  return {
    total: ids.length,
    batches: Math.ceil(ids.length / TML_BATCH_SIZE),
    next: async () => {
      if (i >= ids.length) return undefined;
      const batch = ids.slice(i, (i += TML_BATCH_SIZE));
      // no signal here: Ctrl-C lets the batch in flight finish and its files be written
      return client.exportTml(batch.map((identifier) => ({ identifier, ...(v2Type ? { type: v2Type } : {}) })), { format: 'YAML', fqn });
    },
  };
}

/**
 * Every user or group of the Org, TML_BATCH_SIZE a page of `metadata/tml/export/batch` (REST API v2,
 * 10.1.0.cl or later) until a page is short; the count `listPrincipals` gives is the first estimate of
 * the total. A service without the batched export (404 on the first page) is exported by GUID through
 * `metadata/tml/export` instead (`idSource`), which `say` tells on stderr.
 */
async function principalSource(client: AnalyticsServiceClient, kind: 'USER' | 'USER_GROUP', say: (line: string) => void, signal?: AbortSignal): Promise<ExportSource> {
  const listed = (await client.listPrincipals({ signal })).filter((p) => p.kind === (kind === 'USER' ? 'USER' : 'GROUP') && p.id !== undefined);
  let fallback: ExportSource | undefined;
  const fetch = async (pageNumber: number, size: number) => ({ data: await client.exportTmlBatch(kind, (pageNumber - 1) * size, size, { format: 'YAML' }), totalRowCount: Infinity });
  const pages = pagesOf(fetch, { pageSize: TML_BATCH_SIZE });
  let last = false;
  let firstPage = true;
  const source: ExportSource = {
    total: listed.length,
    batches: Math.max(1, Math.ceil(listed.length / TML_BATCH_SIZE)),
    next: async () => {
      if (fallback) return fallback.next();
      if (last) return undefined;
      let page: Page<{ data: ExportedTmlObject[]; totalRowCount: number }>;
      try {
        const step = await pages.next();
        if (step.done) return undefined;
        page = step.value;
      } catch (e) {
        if (!(e instanceof ServiceError && e.status === 404 && firstPage)) throw e;
        say('tsq: the service has no metadata/tml/export/batch (REST API v2 before 10.1.0.cl): exporting by GUID through metadata/tml/export');
        fallback = idSource(client, listed.map((p) => p.id!), kind, false);
        return fallback.next();
      }
      firstPage = false;
      const offset = page.loaded;
      last = page.done;
      source.total = last ? offset : Math.max(source.total, offset + 1);
      source.batches = Math.max(Math.ceil(source.total / TML_BATCH_SIZE), Math.ceil(offset / TML_BATCH_SIZE) + (last ? 0 : 1));
      return page.rows.length ? page.rows : undefined;
    },
  };
  return source;
}

/**
 * The GUIDs of the objects an export names: every object of `--type` (`--all`), then each ref (a GUID,
 * or a name of `--type`), each once (compared without case). Users and groups are looked up in `listPrincipals`.
 * @throws UsageError for a name without --type, a name no object has, or nothing named
 */
async function idsToExport(client: AnalyticsServiceClient, refs: string[], opts: TmlExportOptions, signal?: AbortSignal): Promise<string[]> {
  const type = opts.type;
  const principal = type !== undefined ? PRINCIPAL_TML_TYPES[type] : undefined;
  const principals = principal ? (await client.listPrincipals({ signal })).filter((p) => p.kind === (principal === 'USER' ? 'USER' : 'GROUP') && p.id !== undefined) : [];
  const named = async (pattern?: string): Promise<{ id: string; name: string }[]> =>
    principal ? principals.map((p) => ({ id: p.id!, name: p.name })) : client.listObjectHeaders({ type: TML_EXPORT_TYPES[type ?? 'answer'] as never, ...(pattern !== undefined ? { pattern } : {}) }, { signal });
  let ids: string[] = opts.all ? (await named()).map((h) => h.id) : [];
  for (const ref of refs) {
    if (GUID.test(ref)) {
      ids.push(ref);
      continue;
    }
    if (!type) throw new UsageError(`${ref} is not a GUID: give --type to export by name`);
    const hit = (await named(ref)).find((h) => h.name.toLowerCase() === ref.toLowerCase());
    if (!hit) throw new UsageError(`no ${type} named ${ref}`);
    ids.push(hit.id);
  }
  if (ids.length === 0) throw new UsageError('nothing to export: give GUIDs, names with --type, or --all');
  const seen = new Set<string>();
  // an object named twice is exported once (GUIDs compared without case)
  ids = ids.filter((id) => !seen.has(id.toLowerCase()) && seen.add(id.toLowerCase()));
  return ids;
}

/**
 * Exports objects' TML to files, TML_BATCH_SIZE objects a call, with progress (a bar or a line per batch):
 * answers, liveboards, tables and worksheets through `metadata/tml/export`; every user or group of the
 * Org (`--type user|group --all`) through `metadata/tml/export/batch` where the service has it (REST API
 * v2), `metadata/tml/export` by GUID otherwise (`principalSource`).
 * Each object gets a file of its own (`ExportFiles`: renames said on stderr); each file is written whole
 * and never through a link (`writeFileSafely`), so an interrupted run leaves only whole files. An object
 * whose file cannot be written is said on stderr and counted in `failed`; the others are written.
 * @throws UsageError for a name without --type, a name no object has, or an `--out` through a link
 *   (`ensureFolder`); ServiceError from the service;
 *   ExitError (INTERRUPTED) when the signal aborts between batches, saying how many files were written
 */
export async function runTmlExport(client: AnalyticsServiceClient, refs: string[], opts: TmlExportOptions): Promise<TmlExportResult> {
  const type = opts.type;
  if (type !== undefined && !(type in TML_EXPORT_TYPES) && !(type in PRINCIPAL_TML_TYPES)) throw new UsageError(`--type must be one of ${[...Object.keys(TML_EXPORT_TYPES), ...Object.keys(PRINCIPAL_TML_TYPES)].join(', ')}`);
  const principal = type !== undefined ? PRINCIPAL_TML_TYPES[type] : undefined;
  const progress = reporterOf(opts.progress, BATCH_BAR);
  const source = principal && opts.all && refs.length === 0
    ? await principalSource(client, principal, (line) => progress.log(line), opts.signal)
    : idSource(client, await idsToExport(client, refs, opts, opts.signal), principal ?? (type ? V2_TYPE[type] : undefined), opts.fqn);
  try {
    await ensureFolder(opts.out);
  } catch (e) {
    if (e instanceof UnsafePathError) throw new UsageError(`--out ${opts.out}: ${e.message}`);
    throw e;
  }
  const files = new ExportFiles(opts.out);
  const stdout = opts.stdout ?? process.stdout;
  const started = performance.now();
  const result: TmlExportResult = { failed: 0, written: 0, batches: 0 };
  const stopping = onInterrupt(opts.signal, progress);
  let done = 0;
  try {
    for (;;) {
      if (opts.signal?.aborted) throw interrupted(`${result.written} of ${source.total} files written to ${opts.out} (batch ${result.batches} of ${source.batches}); the rest were not exported`);
      const objects = await source.next();
      if (!objects) break;
      for (const o of objects) await writeExported(o, files, result, progress, stdout);
      result.batches++;
      done += objects.length;
      progress.update({
        value: done,
        total: source.total,
        payload: { verb: 'export', unit: 'objects', batch: String(result.batches), batches: String(source.batches), rate: perSecond(done, performance.now() - started) },
        line: `exported ${done} of ${source.total} (batch ${result.batches} of ${source.batches})`,
      });
    }
  } finally {
    stopping();
    progress.stop();
  }
  return result;
}

/** Writes one exported object to its file (`ExportFiles`), its path on stdout; an ERROR status or a file that cannot be written is said on stderr and counted in `failed`. */
async function writeExported(o: ExportedTmlObject, files: ExportFiles, result: TmlExportResult, progress: ProgressReporter, stdout: Writable): Promise<void> {
  if (o.info.status.status_code === 'ERROR') {
    result.failed++;
    progress.log(terminalText`tsq: ${o.info.id}: ${o.info.status.error_message ?? 'export failed'}`);
    return;
  }
  const what = `${o.info.type.toLowerCase()} "${terminalSafe(o.info.name)}" (${terminalSafe(o.info.id)})`;
  let file: string;
  try {
    const chosen = await files.choose(o.info.id, o.info.name, o.info.type);
    file = chosen.file;
    if (chosen.reasons.length) progress.log(`tsq: ${what} is written as ${terminalSafe(file)}: ${terminalSafe(chosen.reasons.join('; '))}`);
    await writeFileSafely(file, o.edoc);
  } catch (e) {
    result.failed++;
    progress.log(`tsq: ${what} is not written: ${terminalSafe(messageOf(e))}`);
    return;
  }
  result.written++;
  await writeLine(stdout, file);
}

/** One file read for validation or import, with its local diagnostics (its `uri` is the path given). */
type CheckedFile = TmlFile;

/** Reads the files and makes their local checks (`checkTmlTexts`, common/src/tml/tmlFiles.ts). @throws UsageError when a file cannot be read; the catalog's errors */
export async function checkFiles(client: AnalyticsServiceClient, files: string[]): Promise<CheckedFile[]> {
  const texts: { uri: string; text: string }[] = [];
  for (const file of files) {
    try {
      texts.push({ uri: file, text: await readFile(file, 'utf8') });
    } catch (e) {
      throw new UsageError(`${file} cannot be read: ${messageOf(e)}`);
    }
  }
  return checkTmlTexts(client, texts);
}

/** Options of `tsq tml validate`. */
export interface TmlValidateOptions {
  format: DiagnosticFormat;
  /** Ctrl-C: stops after the batch in flight; nothing is printed on stdout then. */
  signal?: AbortSignal;
  /** A bar or plain lines on stderr (cli/src/progress.ts), or a reporter of one's own; default plain lines. */
  progress?: ProgressMode | ProgressReporter;
}

/**
 * `tsq tml validate`: local checks, then `VALIDATE_ONLY` in batches for the files that passed them, with
 * progress (a bar, or a line per batch when there is more than one). Prints the diagnostics in `format`
 * on stdout once all are known; returns the number of errors.
 * @throws ExitError (INTERRUPTED) when the signal aborts between batches (stdout stays empty); the
 *   errors of `checkFiles` and the service's
 */
export async function runTmlValidate(client: AnalyticsServiceClient, files: string[], opts: TmlValidateOptions): Promise<number> {
  const checked = await checkFiles(client, files);
  const progress = reporterOf(opts.progress, BATCH_BAR);
  const started = performance.now();
  const stopping = onInterrupt(opts.signal, progress);
  try {
    await validateTmlOnService(client, checked, {
      beforeBatch: (sent, total, batch, all) => {
        if (opts.signal?.aborted) throw interrupted(`${sent} of ${total} files validated on the service (batch ${batch - 1} of ${all}); no result printed`);
      },
      progress: (done, total, batch, all) =>
        progress.update({
          value: done,
          total,
          payload: { verb: 'validate', unit: 'files', batch: String(batch), batches: String(all), rate: perSecond(done, performance.now() - started) },
          line: all > 1 ? `validated ${done} of ${total} on the service (batch ${batch} of ${all})` : undefined,
        }),
    });
  } finally {
    stopping();
    progress.stop();
  }
  await printDiagnostics(checked.map((f) => ({ file: f.uri, diagnostics: f.diagnostics })), opts.format);
  const errors = checked.reduce((n, f) => n + f.diagnostics.filter(isTmlError).length, 0);
  info(`${errors} error${errors === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}`);
  return errors;
}

/**
 * `tsq tml import`: files that pass the local checks are imported under `policy` (in batches of
 * TML_BATCH_SIZE; with all-or-none a failed file stops everything, so nothing is sent when one fails
 * locally). Prints `file: OK <guid>` or `file: ERROR <the service's message>` (through terminalSafe: the message can carry an object's name); returns the number of files not imported.
 */
export async function runTmlImport(client: AnalyticsServiceClient, files: string[], policy: TmlImportPolicy, signal?: AbortSignal): Promise<number> {
  const checked = await checkFiles(client, files);
  const bad = checked.filter((f) => f.diagnostics.some(isTmlError));
  await printDiagnostics(bad.map((f) => ({ file: f.uri, diagnostics: f.diagnostics.filter(isTmlError) })), 'text');
  if (policy === 'ALL_OR_NONE' && bad.length) {
    info(`nothing imported: ${bad.length} file${bad.length === 1 ? '' : 's'} failed the checks (--policy all-or-none)`);
    return files.length;
  }
  if (policy === 'ALL_OR_NONE' && checked.length > TML_BATCH_SIZE) info(`all-or-none holds per batch of ${TML_BATCH_SIZE} files: an earlier batch stays imported when a later one fails`);
  let failed = 0;
  for (const o of await importTmlFiles(client, checked, policy, signal)) {
    if (o.status === 'OK' || o.status === 'WARNING') await writeLine(process.stdout, terminalText`${o.file.uri}: ${o.status} ${o.guid ?? ''}`);
    else {
      failed++;
      if (o.status === 'ERROR') await writeLine(process.stdout, terminalText`${o.file.uri}: ERROR ${o.message ?? ''}`);
    }
  }
  info(`${files.length - failed} of ${files.length} imported`);
  return failed;
}
