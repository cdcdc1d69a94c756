/**
 * `tsq tml export|validate|import`: Answers as files in Git (docs/service-interface.md §11).
 * - `export`: the TML of objects by GUID, or by name with `--type`, or every answer (`--all`), written
 *   to `<out>/<name>.<type>.tml` (YAML), in batches of TML_BATCH_SIZE with progress on stderr. Every
 *   object gets its own file (`exportFileName`, `ExportFiles`: ` (2)`…, cut to NAME_MAX_BYTES, each
 *   rename said on stderr), written by common/src/safeWrite.ts (no link followed).
 * - `validate`: each file's local checks (common/src/tml/tmlService.ts), then the service's `VALIDATE_ONLY`
 *   in batches of TML_BATCH_SIZE (tml-import.adoc), by common/src/tml/tmlFiles.ts, which TSQ: Validate TML
 *   calls too; problems as `tsq check` prints them, exit 1 on an error.
 * - `import`: the files under `--policy partial` (the default) or `all-or-none`; a file failing the local
 *   checks is not sent. Prints each file's outcome and the GUID of its answer.
 */
import { constants } from 'node:fs';
import { lstat, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { TML_BATCH_SIZE, type AnalyticsServiceClient, type TmlImportPolicy } from '../../common/src/api';
import { readBoundedYaml, TML_LIMITS } from '../../common/src/tml/boundedYaml';
import { checkTmlTexts, importTmlFiles, isTmlError, validateTmlOnService, type TmlFile } from '../../common/src/tml/tmlFiles';
import { printDiagnostics, type DiagnosticFormat } from './diagnosticFormats';
import { terminalSafe, terminalText } from '../../common/src/terminalText';
import { cutToBytes, ensureFolder, NAME_MAX_BYTES, safeFileName, UnsafePathError, writeFileSafely } from '../../common/src/safeWrite';
import { ExitCode, ExitError, UsageError } from './exitCodes';
import { info, writeLine } from './output';
import { perSecond, reporterOf, type ProgressMode, type ProgressReporter } from './progress';

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
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'free';
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

/**
 * Exports objects' TML to files, TML_BATCH_SIZE objects a call, with progress (a bar or a line per batch).
 * Each object gets a file of its own (`ExportFiles`: renames said on stderr); each file is written whole
 * and never through a link (`writeFileSafely`), so an interrupted run leaves only whole files. An object
 * whose file cannot be written is said on stderr and counted in `failed`; the others are written.
 * @throws UsageError for a name without --type, a name no object has, or an `--out` through a link
 *   (`ensureFolder`); ServiceError from the service;
 *   ExitError (INTERRUPTED) when the signal aborts between batches, saying how many files were written
 */
export async function runTmlExport(client: AnalyticsServiceClient, refs: string[], opts: TmlExportOptions): Promise<TmlExportResult> {
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
  const seen = new Set<string>();
  // an object named twice is exported once (GUIDs compared without case)
  ids = ids.filter((id) => !seen.has(id.toLowerCase()) && seen.add(id.toLowerCase()));
  try {
    await ensureFolder(opts.out);
  } catch (e) {
    if (e instanceof UnsafePathError) throw new UsageError(`--out ${opts.out}: ${e.message}`);
    throw e;
  }
  const files = new ExportFiles(opts.out);
  const stdout = opts.stdout ?? process.stdout;
  const batches = Math.ceil(ids.length / TML_BATCH_SIZE);
  const progress = reporterOf(opts.progress, BATCH_BAR);
  const started = performance.now();
  const result: TmlExportResult = { failed: 0, written: 0, batches: 0 };
  const stopping = onInterrupt(opts.signal, progress);
  try {
    for (let i = 0; i < ids.length; i += TML_BATCH_SIZE) {
      if (opts.signal?.aborted) throw interrupted(`${result.written} of ${ids.length} files written to ${opts.out} (batch ${result.batches} of ${batches}); the rest were not exported`);
      const batch = ids.slice(i, i + TML_BATCH_SIZE);
      // no signal here: Ctrl-C lets the batch in flight finish and its files be written
      const objects = await client.exportTml(batch.map((identifier) => ({ identifier, ...(type ? { type: V2_TYPE[type] } : {}) })), { format: 'YAML', fqn: opts.fqn });
      for (const o of objects) {
        if (o.info.status.status_code === 'ERROR') {
          result.failed++;
          progress.log(terminalText`tsq: ${o.info.id}: ${o.info.status.error_message ?? 'export failed'}`);
          continue;
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
          progress.log(`tsq: ${what} is not written: ${terminalSafe((e as Error).message)}`);
          continue;
        }
        result.written++;
        await writeLine(stdout, file);
      }
      result.batches++;
      const done = Math.min(i + TML_BATCH_SIZE, ids.length);
      progress.update({
        value: done,
        total: ids.length,
        payload: { verb: 'export', unit: 'objects', batch: String(result.batches), batches: String(batches), rate: perSecond(done, performance.now() - started) },
        line: `exported ${done} of ${ids.length} (batch ${result.batches} of ${batches})`,
      });
    }
  } finally {
    stopping();
    progress.stop();
  }
  return result;
}

/** One file read for validation or import, with its local diagnostics (its `uri` is the path given). */
type CheckedFile = TmlFile;

/** Reads the files and makes their local checks (`checkTmlTexts`, common/src/tml/tmlFiles.ts). @throws UsageError when a file cannot be read; the catalog's errors */
async function checkFiles(client: AnalyticsServiceClient, files: string[]): Promise<CheckedFile[]> {
  const texts: { uri: string; text: string }[] = [];
  for (const file of files) {
    try {
      texts.push({ uri: file, text: await readFile(file, 'utf8') });
    } catch (e) {
      throw new UsageError(`${file} cannot be read: ${(e as Error).message}`);
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
