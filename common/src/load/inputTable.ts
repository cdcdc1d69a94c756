/**
 * The input-table path of `runLoad` (pipeline.ts): a CSV loaded into a REST API v2 input table (Cloud,
 * 26.11.0.cl; OpenAPI `createInputTable`, `updateInputTable`), where the data-load API is absent. The
 * file is read and parsed under the load definition's format (the same sniffing and review as the
 * data-load path), its columns mapped by name onto the input table's (every file column must be one; the
 * key columns, the model's columns the table references, must be in the file), each field checked and
 * written as the API takes it (inputValues.ts), then sent in ONE `update`: the API replaces the table's
 * rows on every call ("Each call fully replaces the previously loaded rows"), so the whole file is one
 * batch, a refused batch writes nothing, and a re-run of the same file gives the same rows. What differs
 * from the data-load API is said once, `INPUT_TABLE_DIFFERENCES`.
 */
import { ConnectionError, PermissionError, ServiceError } from '../api/errors';
import type { LoadDefinition } from '../api/loadApi';
import type { AnalyticsServiceClient } from '../api/index';
import type { InputColumnDefinition } from '../api/publicApiV2';
import { isFamily, isKnownDataType, type ColumnDataType } from '../model';
import { inputValueConverter } from './inputValues';
import type { LoadProgress } from './pipeline';
import { LoadError, targetName, type LoadResult } from './result';
import { parseRows } from './sniff';
import { openSource, type LoadInput } from './source';
import { fullFormat, valueCheck, type FullFormat } from './values';

/** What a load through an input table does differently from the data-load API, for `--help` and the review. */
export const INPUT_TABLE_DIFFERENCES =
  'An input table (REST API v2, ThoughtSpot Cloud) takes rows in one update that replaces all its rows: the file is sent as one batch, ' +
  'so the table afterwards holds exactly the file\'s rows (loading the same file again gives the same rows), there is no append to the rows it had, ' +
  'no load cycle, no bad records (one bad value refuses the whole file and nothing is written), and the file\'s columns must be columns of the input table, its key columns included.';

/** Where an input-table load goes: an input table by GUID, or a new one created on a model. */
export interface InputTableChoice {
  /** The input table's GUID; absent: the input table named like the definition's table. */
  id?: string;
  /** Create the input table (named like the definition's table) on `model` (a GUID or name), referencing its `keys` columns. */
  create?: { model: string; keys: string[] };
}

/** The input table a load writes: its GUID, name and columns. */
interface InputTableTarget {
  id: string;
  name: string;
  columns: { name: string; dataType: ColumnDataType }[];
  keys: string[];
}

/** Options of `runInputTableLoad`: those of `runLoad` it reads. */
export interface InputTableLoadOptions {
  encoding?: string;
  signal?: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
  log?: (line: string) => void;
  inputTable?: InputTableChoice;
}

const asType = (t: string): ColumnDataType => (isKnownDataType(t) ? t : 'VARCHAR');

/** The narrowest column type every field of a column fits (`valueCheck`), for a new input table's columns. */
function inferType(values: (string | null)[], format: FullFormat): ColumnDataType {
  for (const t of ['INT64', 'DOUBLE', 'DATE', 'DATE_TIME', 'BOOL'] as const) {
    const check = valueCheck(t, format);
    if (values.some((v) => v !== null && v.trim() !== '') && values.every((v) => check(v) === undefined)) return t;
  }
  return 'VARCHAR';
}

/** A `ServiceError` of the update or create as a `LoadError` saying what it means for the table. */
function loadErrorOf(e: unknown, what: string, signal?: AbortSignal): LoadError {
  const text = e instanceof Error ? e.message : String(e);
  if (signal?.aborted) return new LoadError('cancelled', `${what} was cancelled while it was sent: the input table may hold the file's rows or the rows it had.`, false, undefined, undefined, { cause: e });
  if (e instanceof PermissionError) return new LoadError('permission', `${what} was refused: ${text}. Nothing was written.`, true, undefined, undefined, { cause: e });
  if (e instanceof ConnectionError) return new LoadError('unknown', `${what}: no answer (${text}); the input table may hold the file's rows or the rows it had — load the file again to be sure (it replaces the rows).`, false, undefined, undefined, { cause: e });
  if (e instanceof ServiceError && e.status >= 400 && e.status < 500) return new LoadError('refused', `${what} was refused: ${text}. Nothing of it was written; the input table holds the rows it had.`, true, undefined, undefined, { cause: e });
  return new LoadError('failed', `${what} failed: ${text}.`, false, undefined, undefined, { cause: e });
}

/** Finds the input table the load writes, or creates it. @throws LoadError */
async function targetOf(client: AnalyticsServiceClient, definition: LoadDefinition, header: string[] | undefined, rows: (string | null)[][], format: FullFormat, opts: InputTableLoadOptions): Promise<InputTableTarget> {
  const name = definition.target.table;
  const signal = opts.signal;
  const choice = opts.inputTable ?? {};
  if (choice.create) {
    const { model, keys } = choice.create;
    if (!header) throw new LoadError('source', `A new input table takes its columns from the file's header row, and ${name}'s file has none. Nothing was sent.`, true);
    const models = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 }, { signal });
    const m = models.find((h) => h.id === model.toLowerCase()) ?? models.find((h) => h.name.toLowerCase() === model.toLowerCase());
    if (!m) throw new LoadError('refused', `There is no model ${model} to create the input table ${name} on. Nothing was written.`, true);
    const modelColumns = (await client.metadataDetails('LOGICAL_TABLE', [m.id], { signal })).storables[0]?.columns ?? [];
    const refs = keys.map((k) => {
      const c = modelColumns.find((x) => x.header.name.toLowerCase() === k.toLowerCase());
      if (!c) throw new LoadError('refused', `The model ${m.name} has no column ${k} (its columns: ${modelColumns.map((x) => x.header.name).join(', ')}). Nothing was written.`, true);
      if (!header.some((h) => h.toLowerCase() === k.toLowerCase())) throw new LoadError('source', `The key column ${k} is not a column of the file (${header.join(', ')}). Nothing was sent.`, true);
      return c;
    });
    const isKey = (h: string): boolean => refs.some((r) => r.header.name.toLowerCase() === h.toLowerCase());
    const newColumns: InputColumnDefinition[] = header.filter((h) => !isKey(h)).map((h) => {
      const t = inferType(rows.map((r) => r[header.indexOf(h)] ?? null), format);
      return { name: h, dataType: t, type: isFamily(t, 'number') ? 'MEASURE' : 'ATTRIBUTE' };
    });
    let id: string;
    try {
      id = await client.createInputTable({ tableName: name, model: m.id, referencedColumns: refs.map((r) => r.header.id), newColumns }, { signal });
    } catch (e) {
      throw loadErrorOf(e, `Creating the input table ${name} on ${m.name}`, signal);
    }
    opts.log?.(`created the input table ${name} (${id}) on ${m.name}, keys ${keys.join(', ')}`);
    return { id, name, keys: refs.map((r) => r.header.name), columns: [...refs.map((r) => ({ name: r.header.name, dataType: asType(r.dataType) })), ...newColumns.map((c) => ({ name: c.name, dataType: asType(c.dataType) }))] };
  }
  let id = choice.id;
  if (!id) {
    const found = (await client.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: name, batchSize: -1 }, { signal })).filter((h) => h.name.toLowerCase() === name.toLowerCase());
    if (found.length === 0) throw new LoadError('refused', `There is no input table ${name} (create one with --create-input-table --model MODEL --key COLUMN). Nothing was written.`, true);
    if (found.length > 1) throw new LoadError('refused', `Several tables are named ${name} (${found.map((h) => h.id).join(', ')}): give the input table's GUID. Nothing was written.`, true);
    id = found[0]!.id;
  }
  const s = (await client.metadataDetails('LOGICAL_TABLE', [id], { signal })).storables[0];
  if (!s) throw new LoadError('refused', `There is no input table ${id}. Nothing was written.`, true);
  return { id, name: s.header.name, keys: [], columns: (s.columns ?? []).map((c) => ({ name: c.header.name, dataType: asType(c.dataType) })) };
}

/** The file's bytes as text in `encoding` (a leading byte-order mark dropped). @throws LoadError of kind `source` */
async function readText(input: LoadInput, encoding: string, table: string): Promise<{ text: string; bytes: number }> {
  try {
    const source = await openSource(input);
    const parts: Buffer[] = [];
    for await (const b of source.scan()) parts.push(Buffer.from(b));
    const all = Buffer.concat(parts);
    return { text: new TextDecoder(encoding).decode(all), bytes: all.length };
  } catch (e) {
    throw new LoadError('source', `The file to load into ${table} cannot be read: ${e instanceof Error ? e.message : String(e)}. Nothing was sent; the input table was not changed.`, true, undefined, undefined, { cause: e });
  }
}

/**
 * Loads `input` into an input table (see the module comment): the one named like `definition.target.table`,
 * the one `opts.inputTable.id` names, or a new one (`opts.inputTable.create`).
 * @returns the result, `via: 'inputTable'`, `cycleId` the input table's GUID, `chunks` 1 (the batch).
 * @throws LoadError for every failure: `source` (file, bad value, unknown column: nothing sent), `refused`
 * (the service refused the batch: nothing written), `permission`, `cancelled`, `unknown`.
 */
export async function runInputTableLoad(client: AnalyticsServiceClient, input: LoadInput, definition: LoadDefinition, opts: InputTableLoadOptions = {}): Promise<LoadResult> {
  const started = performance.now();
  const table = targetName(definition);
  const format = fullFormat(definition.format);
  const progress: LoadProgress = { phase: 'starting', bytesSent: 0, bytesTotal: 0, rows: 0, chunks: 0, bytesPerSecond: 0 };
  opts.onProgress?.({ ...progress });
  const { text, bytes } = await readText(input, opts.encoding ?? 'utf-8', table);
  progress.bytesTotal = bytes;
  let rows: (string | null)[][];
  try {
    rows = parseRows(text, format);
  } catch (e) {
    throw new LoadError('source', `${table}: the file is not well formed (${e instanceof Error ? e.message : String(e)}). Nothing was sent; the input table was not changed.`, true, undefined, undefined, { cause: e });
  }
  const header = format.has_header_row ? rows.shift()?.map((h) => (h ?? '').trim()) : undefined;
  const target = await targetOf(client, definition, header, rows, format, opts);
  const byName = (n: string) => target.columns.find((c) => c.name.toLowerCase() === n.toLowerCase());
  const columns = header ? header.map((h) => byName(h) ?? h) : target.columns.slice(0, rows[0]?.length ?? 0);
  const unknown = columns.filter((c): c is string => typeof c === 'string');
  if (unknown.length) throw new LoadError('source', `The file's column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not in the input table ${target.name} (its columns: ${target.columns.map((c) => c.name).join(', ')}). Nothing was sent.`, true);
  const cols = columns.filter((c) => typeof c !== 'string');
  const missingKey = target.keys.find((k) => !cols.some((c) => c.name === k));
  if (missingKey) throw new LoadError('source', `The key column ${missingKey} of ${target.name} is not in the file. Nothing was sent.`, true);
  const converters = cols.map((c) => inputValueConverter(c.dataType, format));
  const first = header ? 2 : 1;
  const out = rows.map((r, i) => {
    if (r.length !== cols.length) throw new LoadError('source', `Record ${i + first} has ${r.length} fields, not ${cols.length}. Nothing was sent; the input table was not changed.`, true);
    return r.map((v, j) => {
      const c = converters[j]!(v);
      if ('problem' in c) throw new LoadError('source', `Record ${i + first}, column ${cols[j]!.name}: ${c.problem}. Nothing was sent; the input table was not changed.`, true);
      return c.value;
    });
  });
  if (opts.signal?.aborted) throw new LoadError('cancelled', `The load into ${target.name} was cancelled before anything was sent; the input table was not changed.`, true);
  progress.phase = 'uploading';
  opts.onProgress?.({ ...progress, cycleId: target.id });
  const batch = `Batch 1 of 1 (records ${first}–${rows.length + first - 1}) into the input table ${target.name}`;
  const sent = performance.now();
  let loaded: number;
  try {
    loaded = await client.updateInputTable(target.id, cols.map((c) => c.name), out, { signal: opts.signal });
  } catch (e) {
    throw loadErrorOf(e, batch, opts.signal);
  }
  opts.log?.(`${target.name}: batch 1 of 1 written, ${loaded} rows`);
  const uploadMs = performance.now() - sent;
  Object.assign(progress, { phase: 'done', bytesSent: bytes, rows: loaded, chunks: 1, bytesPerSecond: (bytes / Math.max(1, uploadMs)) * 1000 });
  opts.onProgress?.({ ...progress, cycleId: target.id });
  return {
    via: 'inputTable',
    cycleId: target.id,
    status: { cycleId: target.id, internalStage: 'DONE', status: { code: 'OK' }, rowsWritten: loaded, ignoredRowCount: 0, raw: { rows_loaded: loaded } },
    rowsWritten: loaded,
    ignoredRows: 0,
    chunks: 1,
    bytes,
    ms: performance.now() - started,
    uploadMs,
  };
}
