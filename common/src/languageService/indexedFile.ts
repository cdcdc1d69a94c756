/**
 * One file of the workspace index read for navigation (workspaceIndex.ts): a `.tsq` file, an Answer or
 * Liveboard TML (each `search_query` read through answerTml.ts `scalarOffsets`), or a worksheet, model,
 * table or view TML that declares columns. Each column reference keeps its span in the file, the data
 * sources it may belong to (`@datasource`; the TML's `tables`, a table path `[id::column]` naming one)
 * and, inside TML, the YAML scalar it sits in; each data-source reference its span.
 *
 * Pure: no `vscode`, no LSP server, no I/O. Never throws on any text.
 */
import { isMap, isScalar, isSeq, type Node, type Scalar, type YAMLMap } from 'yaml';
import { parseDocument as parse } from '../language/parser';
import { splitColumnPath } from '../language/keywords';
import type { Clause, ColumnRef } from '../language/ast';
import { readAnswerTml, readTmlDocument, scalarOffsets, type AnswerParts, nodeOf } from '../tml/answerTml';
import { readLiveboardTml } from '../tml/liveboardTml';
import { tmlKindOfUri } from '../tml/kinds';
import { keysOf } from '../guards';

/**
 * The TML kinds that declare columns, by the member that holds the object and the member of its columns
 * (docs.thoughtspot.com tml-worksheets `worksheet_columns`, tml-models `columns`, tml-tables `columns`,
 * tml-views `view_columns`, tml-sql-views `sql_view_columns`); a file is one by its `<name>.<kind>.tml` suffix.
 */
export const DEFINITION_TML = { worksheet: 'worksheet_columns', model: 'columns', table: 'columns', view: 'view_columns', sql_view: 'sql_view_columns' } as const;

/** A kind of file the index reads. */
export type IndexedKind = 'tsq' | 'answer' | 'liveboard' | keyof typeof DEFINITION_TML;

/** A YAML scalar of a TML file holding column references: its span in the file and its YAML type. */
export interface IndexedScalar {
  start: number;
  end: number;
  type: Scalar['type'];
  value: string;
}

/** A column reference (or, with `declaration`, a column's definition in a worksheet/model/table TML). */
export interface ColumnUse {
  /** The span of the column's name in the file (UTF-16 offsets, `end` exclusive; a table path excluded). */
  start: number;
  end: number;
  /** The column's name as written (trimmed, no table path). */
  column: string;
  /** The data sources it may belong to, as written, the first the default; empty when none is in force. */
  dataSources: string[];
  /** Set on the definition of the column (a worksheet/model/table TML's column `name`). */
  declaration?: boolean;
  /** The scalar it is in (an index into `IndexedFile.scalars`), and its span in the scalar's value. */
  scalar?: number;
  valueStart?: number;
  valueEnd?: number;
  /** The YAML type of the scalar of a declaration's `name` (its span excludes the quotes). */
  quote?: Scalar['type'];
  /** The column's properties, on a declaration: `column_type`, `aggregation`, data type, description, formula. */
  info?: ColumnInfo;
}

/** What a definition TML says of a column. */
export interface ColumnInfo {
  kind?: string;
  aggregation?: string;
  dataType?: string;
  description?: string;
  formula?: string;
}

/** A data-source reference (`@datasource`, a `tables` entry) or, with `declaration`, its definition. */
export interface DataSourceUse {
  start: number;
  end: number;
  dataSource: string;
  declaration?: boolean;
}

/** An answer or liveboard of a TML file, for `workspace/symbol`. */
export interface IndexedObject {
  kind: 'answer' | 'liveboard';
  name: string;
  start: number;
  end: number;
}

/** One file as the index holds it. */
export interface IndexedFile {
  uri: string;
  kind: IndexedKind;
  /** The offset of each line's start (for LSP positions without the text). */
  lineStarts: Uint32Array;
  length: number;
  columns: ColumnUse[];
  dataSources: DataSourceUse[];
  objects: IndexedObject[];
  scalars: IndexedScalar[];
  /** `[GUID, name]` pairs the file states of a data source (a `tables` entry with both, a definition). */
  aliases: [string, string][];
}

/** The kind of file a URI names for the index, or undefined when the index does not read it. */
export function indexedKindOf(uri: string): IndexedKind | undefined {
  const path = (uri.split(/[?#]/)[0] ?? '').toLowerCase();
  if (path.endsWith('.tsq')) return 'tsq';
  const tml = tmlKindOfUri(uri);
  if (tml) return tml;
  return keysOf(DEFINITION_TML).find((k) => path.endsWith(`.${k}.tml`));
}

function lineStartsOf(text: string): Uint32Array {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return Uint32Array.from(starts);
}

/** Every column reference of a clause, the subsearch's own clauses included. */
export function columnRefsOf(c: Clause): ColumnRef[] {
  switch (c.kind) {
    case 'column': case 'filter': case 'sort': return [c.column];
    case 'dateFilter': case 'location': return c.column ? [c.column] : [];
    case 'topBottom': return c.rankedBy ? [c.rankedBy] : [];
    case 'growth': return [c.measure, c.by];
    case 'subsearch': return [...(c.column ? [c.column] : []), ...c.clauses.flatMap(columnRefsOf)];
    default: return [];
  }
}

/** The span of a reference's column name in its text and the name (table path excluded, trimmed), or undefined for an empty name. */
function nameSpan(ref: ColumnRef): { start: number; end: number; column: string; path?: string } | undefined {
  const { path, column } = splitColumnPath(ref.name);
  const from = ref.start + 1 + (path === undefined ? 0 : ref.name.lastIndexOf(column));
  const lead = column.length - column.trimStart().length;
  const name = column.trim();
  if (!name) return undefined;
  return { start: from + lead, end: from + lead + name.length, column: name, ...(path !== undefined ? { path: path.trim() } : {}) };
}

/** Reads a `.tsq` text: each column of each query against its `@datasource`, each `@datasource` value. */
function readTsq(file: IndexedFile, text: string): void {
  const doc = parse(text);
  for (const d of doc.directives) if (d.value && d.valueSpan) file.dataSources.push({ start: d.valueSpan.start, end: d.valueSpan.end, dataSource: d.value });
  for (const q of doc.queries) {
    const dataSources = q.dataSource ? [q.dataSource] : [];
    for (const clause of q.clauses) for (const ref of columnRefsOf(clause)) {
      const s = nameSpan(ref);
      if (s) file.columns.push({ start: s.start, end: s.end, column: s.column, dataSources });
    }
  }
}

/** One entry of an answer's `tables`: what names it (`id`, `name`, `fqn`) and the node of its name. */
interface TableEntry {
  id?: string;
  name?: string;
  fqn?: string;
  ref: string;
  node?: Node;
}

function tableEntries(answer: YAMLMap): TableEntry[] {
  const tables = answer.get('tables', true);
  if (!isSeq(tables)) return [];
  return tables.items.flatMap((t): TableEntry[] => {
    if (!isMap(t)) return [];
    const s = (k: string) => { const v = t.get(k); return typeof v === 'string' && v !== '' ? v : undefined; };
    const id = s('id'), name = s('name'), fqn = s('fqn');
    const ref = name ?? fqn ?? id;
    if (!ref) return [];
    const node = nodeOf(t.get(name ? 'name' : fqn ? 'fqn' : 'id', true));
    return [{ ...(id ? { id } : {}), ...(name ? { name } : {}), ...(fqn ? { fqn } : {}), ref, ...(node ? { node } : {}) }];
  });
}

/** Reads one `answer` mapping (an Answer TML's, or a liveboard visualization's): its tables and its `search_query`. */
function readAnswer(file: IndexedFile, text: string, answer: YAMLMap, parts: AnswerParts): void {
  const tables = tableEntries(answer);
  for (const t of tables) {
    const r = t.node?.range;
    if (r && isScalar(t.node)) file.dataSources.push({ start: r[0] + quoteWidth(t.node), end: r[1] - quoteWidth(t.node) - trailing(text, r), dataSource: t.ref });
    if (t.fqn && t.name) file.aliases.push([t.fqn, t.name]);
  }
  if (!parts.query) return;
  const formulas = new Set((parts.formulas ?? []).flatMap((f) => [f.name.toLowerCase(), ...(f.id ? [f.id.toLowerCase()] : [])]));
  const { value, node } = parts.query;
  const map = scalarOffsets(text, node, value);
  const scalar = file.scalars.push({ start: node.range![0], end: node.range![1], type: node.type, value }) - 1;
  const refs = tables.map((t) => t.ref);
  const doc = parse(value);
  for (const q of doc.queries) for (const clause of q.clauses) for (const ref of columnRefsOf(clause)) {
    const s = nameSpan(ref);
    if (!s || formulas.has(s.column.toLowerCase()) || formulas.has(ref.name.trim().toLowerCase())) continue;
    const p = s.path?.toLowerCase();
    const named = p === undefined ? undefined : tables.find((t) => t.id?.toLowerCase() === p) ?? tables.find((t) => t.name?.toLowerCase() === p);
    const dataSources = named ? [named.ref] : refs;
    file.columns.push({ start: map[s.start]!, end: map[s.end]!, column: s.column, dataSources, scalar, valueStart: s.start, valueEnd: s.end });
  }
}

/** The width of a scalar's opening quote (1 for a quoted scalar, else 0). */
function quoteWidth(node: Scalar): number {
  return node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
}

/** Trailing whitespace a plain scalar's range may hold before its end. */
function trailing(text: string, r: readonly number[]): number {
  let n = 0;
  while (r[1]! - n - 1 > r[0]! && /\s/.test(text[r[1]! - n - 1]!)) n++;
  return n;
}

/** The span of a scalar's text without quotes, or undefined when the node is not a scalar with a range. */
function scalarSpan(text: string, node: unknown): { start: number; end: number } | undefined {
  if (!isScalar(node) || !node.range) return undefined;
  const q = quoteWidth(node);
  return { start: node.range[0] + q, end: node.range[1] - q - trailing(text, node.range) };
}

/** Reads a worksheet/model/table/view TML: the object's name (a data-source declaration) and each column's. */
function readDefinition(file: IndexedFile, text: string, kind: keyof typeof DEFINITION_TML): void {
  const root = readTmlDocument(text).doc.contents;
  if (!isMap(root)) return;
  const object = root.get(kind, true);
  if (!isMap(object)) return;
  const name = object.get('name');
  if (typeof name !== 'string' || !name) return;
  const guid = root.get('guid');
  if (typeof guid === 'string' && guid) file.aliases.push([guid, name]);
  const nameAt = scalarSpan(text, object.get('name', true));
  if (nameAt) file.dataSources.push({ ...nameAt, dataSource: name, declaration: true });
  const formulas = new Map<string, string>();
  const fs = object.get('formulas', true);
  if (isSeq(fs)) for (const f of fs.items) if (isMap(f) && typeof f.get('id') === 'string' && typeof f.get('expr') === 'string') formulas.set(String(f.get('id')), String(f.get('expr')));
  const columns = object.get(DEFINITION_TML[kind], true);
  if (!isSeq(columns)) return;
  for (const c of columns.items) {
    if (!isMap(c)) continue;
    const node = c.get('name', true);
    const at = scalarSpan(text, node);
    const column = c.get('name');
    if (!at || !isScalar(node) || typeof column !== 'string' || !column.trim()) continue;
    file.columns.push({ ...at, column: column.trim(), dataSources: [name], declaration: true, quote: node.type, info: columnInfo(c, formulas) });
  }
}

/** What a definition's column mapping says of it: `properties` (`column_type`, `aggregation`), `db_column_properties.data_type`, `description`, its formula. */
function columnInfo(c: YAMLMap, formulas: Map<string, string>): ColumnInfo {
  const props = c.get('properties', true);
  const db = c.get('db_column_properties', true);
  const s = (m: unknown, k: string) => { const v = isMap(m) ? m.get(k) : undefined; return typeof v === 'string' && v ? v : undefined; };
  const formulaId = s(c, 'formula_id');
  const out: ColumnInfo = {};
  const kind = s(props, 'column_type'), aggregation = s(props, 'aggregation'), dataType = s(db, 'data_type'), description = s(c, 'description');
  if (kind) out.kind = kind;
  if (aggregation) out.aggregation = aggregation;
  if (dataType) out.dataType = dataType;
  if (description) out.description = description;
  if (formulaId && formulas.has(formulaId)) out.formula = formulas.get(formulaId)!;
  return out;
}

/**
 * Reads one file for the index: its column and data-source references (and declarations), its answers
 * and liveboards, the aliases it states. `kind` defaults to the one its URI names. Never throws: a text
 * that cannot be read holds nothing.
 */
export function readIndexedFile(uri: string, text: string, kind: IndexedKind | undefined = indexedKindOf(uri)): IndexedFile {
  const file: IndexedFile = { uri, kind: kind ?? 'tsq', lineStarts: lineStartsOf(text), length: text.length, columns: [], dataSources: [], objects: [], scalars: [], aliases: [] };
  try {
    if (file.kind === 'tsq') readTsq(file, text);
    else if (file.kind === 'answer') readAnswerFile(file, text);
    else if (file.kind === 'liveboard') readLiveboardFile(file, text);
    else readDefinition(file, text, file.kind);
  } catch {
    file.columns = [];
    file.dataSources = [];
  }
  file.columns.sort((a, b) => a.start - b.start);
  file.dataSources.sort((a, b) => a.start - b.start);
  return file;
}

function readAnswerFile(file: IndexedFile, text: string): void {
  const tml = readAnswerTml(text);
  const root = tml.doc.contents;
  const answer = isMap(root) ? root.get('answer', true) : undefined;
  if (!isMap(answer)) return;
  readAnswer(file, text, answer, tml);
  const at = scalarSpan(text, answer.get('name', true));
  if (tml.name && at) file.objects.push({ kind: 'answer', name: tml.name, ...at });
}

function readLiveboardFile(file: IndexedFile, text: string): void {
  const tml = readLiveboardTml(text);
  for (const v of tml.visualizations) if (v.answer) readAnswer(file, text, v.answer, v);
  const root = tml.doc.contents;
  const board = isMap(root) && tml.member ? root.get(tml.member, true) : undefined;
  const at = isMap(board) ? scalarSpan(text, board.get('name', true)) : undefined;
  if (tml.name && at) file.objects.push({ kind: 'liveboard', name: tml.name, ...at });
}
