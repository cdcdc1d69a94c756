/**
 * `tsq load FILE.csv`: one load cycle through the same pipeline as the extension's Load CSV into Table
 * (common/src/load; docs/service-interface.md §3 "Order of operations for one cycle").
 * The definition: `--definition FILE.load.json`; else, with `--table`, the file is sniffed (against the
 * table's columns when the service describes it) unless a `<file>.load.json` for the same table gives
 * the format (as Load Again does); else that saved file alone. `--replace` and `--max-ignored` override
 * its options. The definition guard of common/src/load/definition.ts decides from the nested form (the
 * flat members of the StartLoad example moved into it): a definition naming another table than `--table`
 * is refused (exit 2), and one that empties the table runs only with `--replace`.
 * Progress: a cli-progress bar (bytes, rows, rate) on a terminal; plain lines otherwise (cli/src/progress.ts). Ctrl-C before
 * the commit aborts the cycle (AbortLoad) and the table is unchanged; after it, tsq says it is too late.
 */
import { existsSync } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AnalyticsServiceClient, LoadDefinition } from '../../common/src/api';
import { formatSummary, fromSaved, guardLoad, LoadDefinitionError, parseSavedDefinition, parseTargetText, sameTarget, savedDefinitionPath, targetText, type LoadTarget } from '../../common/src/load/definition';
import { DEFAULT_CHUNK_BYTES, LoadError, loadPathOf, runLoad, type LoadPath, type LoadProgress, type LoadResult } from '../../common/src/load/pipeline';
import { INPUT_TABLE_DIFFERENCES, type InputTableChoice } from '../../common/src/load/inputTable';
import { isSupportedEncoding, sniffCsv, type TargetColumn } from '../../common/src/load/sniff';
import { toDataType } from '../../common/src/catalog/columns';
import { ExitCode, ExitError, exitCodeOf, UsageError } from './exitCodes';
import { info, mb, warn, write } from './output';
import { terminalText } from '../../common/src/terminalText';
import { progressReporter, type ProgressMode } from './progress';
import { messageOf, recordOr, memberOf } from '../../common/src/guards';

/** Options of `tsq load`. */
export interface LoadOptions {
  definition?: string;
  table?: string;
  replace?: boolean;
  maxIgnored?: number;
  /** Bytes per chunk. */
  chunkSize?: number;
  /** Print the result as JSON on stdout. */
  json?: boolean;
  /** How the person confirms a replace, for the refusal of a definition that empties the table (default: `run again with --replace to confirm`). */
  confirmReplace?: string;
  /** Aborts the load (Ctrl-C). */
  signal: AbortSignal;
  /** A progress bar or plain lines (`progressMode` of cli/src/progress.ts). */
  progress: ProgressMode;
  /**
   * How the saved `<file>.load.json` beside the file is read: its text, or `undefined` when there is none
   * (default: `readFile` when it exists). `load_csv` reads it under the rule of its file (roots.ts).
   * @throws an Error whose message says why it may not be read.
   */
  readSavedDefinition?: (path: string) => Promise<string | undefined>;
  /** `--input-table NAME|GUID`: load into that input table (REST API v2), whatever the connection. */
  inputTable?: string;
  /** `--create-input-table --model M --key COL…`: create the input table (named by `--table`) on model M first. */
  createInputTable?: { model: string; keys: string[] };
}

const GUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The input table the options choose (inputTable.ts `InputTableChoice`), or undefined for the path `loadPathOf` picks. */
function inputTableChoice(opts: LoadOptions): InputTableChoice | undefined {
  if (opts.createInputTable) return { create: opts.createInputTable };
  if (opts.inputTable !== undefined) return GUID_RE.test(opts.inputTable) ? { id: opts.inputTable } : {};
  return undefined;
}

/** Bytes of the file read for sniffing. */
const SAMPLE_BYTES = 1024 * 1024;

/**
 * Reads and parses a load definition file; with `reader`, through it (`undefined`: there is none).
 * @throws UsageError when it cannot be read or is not a load definition.
 */
async function readSaved(path: string, reader?: LoadOptions['readSavedDefinition']): Promise<{ definition: LoadDefinition; encoding: string } | undefined> {
  let text: string | undefined;
  try {
    text = reader ? await reader(path) : await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`The load definition ${path} cannot be read: ${messageOf(e)}`);
  }
  if (text === undefined) return undefined;
  try {
    return fromSaved(parseSavedDefinition(text, basename(path)));
  } catch (e) {
    throw new UsageError(messageOf(e));
  }
}

/**
 * The file `tsq load` reads: a path, or a file already open and checked (`load_csv` of `tsq mcp`,
 * common/src/load/roots.ts), which is then read through its handle only, never reopened by `path`
 * (`path` names it in messages and finds its saved `<file>.load.json`). The caller closes the handle.
 */
export type LoadFile = string | { path: string; handle: FileHandle };

/** The path that names a `LoadFile`. */
const pathOf = (file: LoadFile): string => (typeof file === 'string' ? file : file.path);

/** The first bytes of the file and whether that is all of it. */
async function readSample(file: LoadFile): Promise<{ sample: Buffer; complete: boolean }> {
  const fh = typeof file === 'string' ? await open(file, 'r') : file.handle;
  try {
    const buf = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return { sample: buf.subarray(0, bytesRead), complete: bytesRead >= (await fh.stat()).size };
  } finally {
    if (typeof file === 'string') await fh.close();
  }
}

/** The typed columns of the target table, when the service lists it (they make sniffing surer); [] otherwise. */
async function targetColumns(client: AnalyticsServiceClient, target: LoadTarget, signal: AbortSignal, inputTable = false): Promise<TargetColumn[]> {
  try {
    const headers = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: ['ONE_TO_ONE_LOGICAL', 'USER_DEFINED'], batchSize: -1, pattern: target.table }, { signal });
    if (!headers.length) return [];
    const details = await client.metadataDetails('LOGICAL_TABLE', headers.map((h) => h.id), { signal });
    for (const s of details.storables) {
      // an input table is found by its name alone (inputTable.ts)
      if (inputTable && s.header.name?.toLowerCase() === target.table.toLowerCase()) return (s.columns ?? []).filter((c) => c.header?.name).map((c) => ({ name: c.header.name, dataType: toDataType(c.dataType) }));
      const h = s.header as { databaseStripe?: unknown; schemaStripe?: unknown; name?: string };
      const physical = memberOf(memberOf(s, 'logicalTableContent'), 'physicalTableName');
      const table = typeof physical === 'string' ? physical : h.name;
      if (typeof h.databaseStripe !== 'string' || !table) continue;
      if (!sameTarget({ database: h.databaseStripe, schema: typeof h.schemaStripe === 'string' ? h.schemaStripe : undefined, table }, target)) continue;
      return (s.columns ?? []).filter((c) => c.header?.name).map((c) => ({ name: c.header.name, dataType: toDataType(c.dataType) }));
    }
  } catch (e) {
    if (memberOf(e, 'status') === 401 || memberOf(e, 'status') === 0) throw e;
    // only a help for sniffing
  }
  return [];
}

/**
 * Builds the load definition of the options (see the module comment), through the definition guard of
 * common/src/load/definition.ts (`guardLoad`): the table is `--table` when given, and a definition that
 * empties it needs `--replace`.
 * @throws UsageError (exit 2) for a definition that cannot be read, names another table than `--table`, or
 * empties the table without `--replace`.
 */
async function definitionOf(client: AnalyticsServiceClient, input: LoadFile, opts: LoadOptions, via: LoadPath = 'dataLoad'): Promise<{ definition: LoadDefinition; encoding: string; how: string }> {
  const file = pathOf(input);
  const savedPath = savedDefinitionPath(file);
  let base: { definition: LoadDefinition; encoding: string; how: string } | undefined;
  const tableText = opts.table ?? opts.inputTable;
  // an input table is named by its name alone (its model says where it lives)
  const target = tableText !== undefined ? (parseTargetText(tableText) ?? (inputTableChoice(opts) ? { database: '', table: tableText.trim() } : undefined)) : undefined;
  if (opts.createInputTable && !opts.table) throw new UsageError('--create-input-table: name the new input table with --table NAME.');
  if (opts.table !== undefined && !target) throw new UsageError(`--table ${opts.table}: give the table as database.schema.table (or database.table).`);
  const readBeside = () => readSaved(savedPath, opts.readSavedDefinition ?? ((p) => (existsSync(p) ? readFile(p, 'utf8') : Promise.resolve(undefined))));
  if (opts.definition) {
    const given = await readSaved(opts.definition);
    if (!given) throw new UsageError(`The load definition ${opts.definition} cannot be read.`);
    base = { ...given, how: `the definition ${opts.definition}` };
  } else if (target) {
    const saved = await readBeside();
    if (saved && sameTarget(saved.definition.target, target)) {
      base = { ...saved, how: `the saved definition ${basename(savedPath)}` };
    } else {
      if (saved) info(`${basename(savedPath)} is for ${targetText(saved.definition.target)}, not ${targetText(target)}: it is not used.`);
      const { sample, complete } = await readSample(input);
      const sniffed = sniffCsv(sample, { fileName: file, complete, targetColumns: await targetColumns(client, target, opts.signal, via === 'inputTable') });
      if (!isSupportedEncoding(sniffed.encoding)) throw new UsageError(`${basename(file)} is encoded as ${sniffed.encoding}; save it as UTF-8 to load it.`);
      info(`sniffed ${basename(file)}: ${sniffed.notes.join('; ')}`);
      // a new input table takes its column names from the header row, which it must then have
      if (opts.createInputTable && !sniffed.format.has_header_row) {
        sniffed.format.has_header_row = true;
        info('--create-input-table: the first row is read as the header row (the new columns take their names from it)');
      }
      base = {
        definition: { target, format: sniffed.format, load_options: { empty_target: false, max_ignored_rows: 0 }, advanced_options: { max_reported_parsing_errors: 100 } },
        encoding: sniffed.encoding,
        how: 'the sniffed format',
      };
    }
  }
  const alone = base || target ? undefined : await readBeside();
  if (alone) {
    base = { ...alone, how: `the saved definition ${basename(savedPath)}` };
  } else if (!base) {
    throw new UsageError(`Where to? Give --table database.schema.table, or --definition FILE.load.json (there is no ${basename(savedPath)} next to the file).`);
  }
  let guarded;
  try {
    guarded = guardLoad(base.definition, { target, replace: opts.replace === true, source: base.how, confirm: opts.confirmReplace ?? 'run again with --replace to confirm' });
  } catch (e) {
    throw e instanceof LoadDefinitionError ? new UsageError(e.message) : e;
  }
  const loadOptions = { ...guarded.definition.load_options };
  if (opts.maxIgnored !== undefined) loadOptions.max_ignored_rows = opts.maxIgnored;
  return { ...base, definition: { ...guarded.definition, load_options: loadOptions } };
}

/**
 * The load's progress through the one reporter of cli/src/progress.ts: a bar (bytes sent of the file,
 * rows, rate, phase) on a terminal, once the cycle runs; otherwise a line per phase, and per progress
 * event while uploading (every 2 s).
 */
function loadProgress(file: string, table: string, mode: ProgressMode): { onProgress: (p: LoadProgress) => void; stop: () => void } {
  const reporter = progressReporter(mode, '{file} → {table} [{bar}] {percentage}% | {sent} of {size} | {rows} rows | {rate}/s | {phase}');
  let phase = '';
  return {
    onProgress: (p) => {
      // the bar starts once the cycle runs, after the line that names the cycle
      if (mode === 'bar' && p.phase === 'starting') return;
      const percent = p.bytesTotal ? Math.floor((p.bytesSent / p.bytesTotal) * 100) : 100;
      const line =
        p.phase === 'uploading'
          ? `uploading: ${mb(p.bytesSent)} of ${mb(p.bytesTotal)} (${percent}%), ${p.rows.toLocaleString('en-US')} rows, ${mb(p.bytesPerSecond)}/s`
          : p.phase === 'committing'
            ? `committing cycle ${p.cycleId} (Ctrl-C no longer aborts)`
            : p.phase === 'starting'
              ? `starting the load cycle`
              : 'done';
      const repeated = p.phase !== 'uploading' && p.phase === phase;
      phase = p.phase;
      reporter.update({
        // a header row counts once in the file but is not counted as sent: a finished upload is 100%
        value: p.phase === 'uploading' ? p.bytesSent : p.bytesTotal,
        total: p.bytesTotal,
        payload: { file: basename(file), table, sent: mb(p.bytesSent), size: mb(p.bytesTotal), rows: p.rows.toLocaleString('en-US'), rate: mb(p.bytesPerSecond), phase: p.phase === 'committing' ? 'committing (Ctrl-C no longer aborts)' : p.phase },
        line: repeated ? undefined : line,
      });
    },
    stop: () => reporter.stop(),
  };
}

/**
 * Runs `tsq load` on `input` (a path, or a file open and checked: see `LoadFile`).
 * @throws ExitError (with the exit code) when the load did not succeed.
 */
export async function runLoadCommand(client: AnalyticsServiceClient, input: LoadFile, opts: LoadOptions): Promise<LoadResult> {
  const file = pathOf(input);
  if (typeof input === 'string' && !existsSync(file)) throw new UsageError(`${file} does not exist.`);
  const inputTable = inputTableChoice(opts);
  const via = await loadPathOf(client, { inputTable, signal: opts.signal });
  // an input table's update replaces every row it has: as a load that empties a table, it runs only when confirmed
  if (via === 'inputTable' && !opts.createInputTable && opts.replace !== true) {
    throw new UsageError(`${opts.inputTable ?? opts.table ?? 'The target'} is loaded through an input table, whose update replaces all its rows with the file's: ${opts.confirmReplace ?? 'run again with --replace to confirm'}.`);
  }
  const { definition, encoding, how } = await definitionOf(client, input, opts, via);
  const table = targetText(definition.target);
  const maxIgnored = definition.load_options?.max_ignored_rows ?? 0;
  if (via === 'inputTable') {
    info(`loading ${basename(file)} into the input table ${table}${opts.createInputTable ? ` (created on ${opts.createInputTable.model}, keys ${opts.createInputTable.keys.join(', ')})` : ''} with ${how}: ${formatSummary(definition.format, encoding)}; its rows are replaced by the file's, in one batch`);
    info(INPUT_TABLE_DIFFERENCES);
  } else {
    info(`loading ${basename(file)} into ${table} with ${how}: ${formatSummary(definition.format, encoding)}; ${definition.load_options?.empty_target ? 'replace all rows' : 'append'}, max ignored rows ${maxIgnored}`);
  }
  const reporter = loadProgress(file, table, opts.progress);
  let cycleId: string | undefined;
  let committing = false;
  const onInterrupt = () => {
    if (committing) info(terminalText`\nCtrl-C: cycle ${cycleId} was already committed and cannot be taken back; waiting for its result (press Ctrl-C again to stop waiting — the load then goes on without tsq; \`tsq status ${cycleId}\` tells how it ended).`);
  };
  opts.signal.addEventListener('abort', onInterrupt, { once: true });
  try {
    const result = await runLoad(client, typeof input === 'string' ? input : { handle: input.handle, name: input.path }, definition, {
      chunkBytes: Math.max(64 * 1024, opts.chunkSize ?? DEFAULT_CHUNK_BYTES),
      encoding,
      signal: opts.signal,
      via,
      inputTable,
      progressIntervalMs: opts.progress === 'bar' ? 100 : 2000,
      log: (line) => {
        if (/^cycle \S+ started/.test(line)) info(line);
      },
      onProgress: (p) => {
        cycleId = p.cycleId ?? cycleId;
        committing = p.phase === 'committing' || p.phase === 'done';
        reporter.onProgress(p);
      },
    });
    reporter.stop();
    if (result.via === 'inputTable') info(`Loaded ${result.rowsWritten.toLocaleString('en-US')} rows into the input table ${table} (${result.cycleId}; batch 1 of 1, ${mb(result.bytes)} in ${(result.ms / 1000).toFixed(1)} s).`);
    else info(`Loaded ${result.rowsWritten.toLocaleString('en-US')} rows into ${table}${result.ignoredRows ? `; ${result.ignoredRows.toLocaleString('en-US')} rows were ignored` : ''} (cycle ${result.cycleId}, ${mb(result.bytes)} in ${(result.ms / 1000).toFixed(1)} s).`);
    if (result.ignoredRows) {
      reportParsingErrors(result.status.parsingErrors);
      info(`The ignored rows: tsq bad-records ${result.cycleId}`);
    }
    if (opts.json) await write(process.stdout, `${JSON.stringify({ via: result.via, cycleId: result.cycleId, table, rowsWritten: result.rowsWritten, ignoredRows: result.ignoredRows, chunks: result.chunks, bytes: result.bytes, ms: Math.round(result.ms) })}\n`);
    return result;
  } catch (e) {
    reporter.stop();
    const code = exitCodeOf(e, maxIgnored);
    const err = e instanceof LoadError ? e : undefined;
    if (err?.status?.ignoredRowCount) reportParsingErrors(err.status.parsingErrors);
    const hint = code === ExitCode.BAD_RECORDS && err?.cycleId ? ` Read them with \`tsq bad-records ${err.cycleId}\`, fix the file or raise --max-ignored, and load again.` : '';
    throw new ExitError(`${e instanceof Error ? e.message : String(e)}${hint}`, code);
  } finally {
    opts.signal.removeEventListener('abort', onInterrupt);
  }
}

/** The first parsing errors of a status (their shape is the service's; docs/service-notes.md §4.3), on stderr. */
export function reportParsingErrors(parsingErrors: unknown, limit = 10): void {
  const errors: unknown[] = Array.isArray(parsingErrors) ? parsingErrors : [];
  for (const pe of errors.slice(0, limit)) {
    const p = recordOr(pe);
    if (p && typeof p === 'object' && (p.row !== undefined || p.reason !== undefined)) warn(`${p.chunk !== undefined ? `chunk ${String(p.chunk)}, ` : ''}row ${String(p.row ?? '?')}: ${String(p.reason ?? JSON.stringify(pe))}`);
    else warn(`parsing error: ${JSON.stringify(pe)}`);
  }
  if (errors.length > limit) warn(`… and ${errors.length - limit} more parsing errors`);
}
