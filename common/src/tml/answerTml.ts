/**
 * `*.answer.tml` files: the Answer TML (docs/service-interface.md §11.1) read with positions, its shape
 * checked against a schema written from the docs (https://docs.thoughtspot.com/cloud/latest/tml-answers;
 * thoughtspot/thoughtspot_tml `tests/data/DUMMY.answer.tml`; the shapes clusters export, docs/service-notes.md
 * "TML as clusters export it"), and its `search_query` checked by the one language service
 * (common/src/languageService) against the data sources its `tables` names and its own `formulas`
 * (answerSources.ts), the diagnostics placed inside the YAML string (plain, single- and double-quoted
 * with escapes, literal and folded block scalars).
 *
 * Pure: no `vscode`, no LSP server, no HTTP (the catalog comes through the language service's provider).
 */
import { isMap, isNode, isScalar, isSeq, type LineCounter, type Document, type Node, type Scalar, type YAMLMap } from 'yaml';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DiagnosticSeverity, MarkupKind, type CompletionItem, type CompletionList, type Diagnostic, type Hover, type Position, type Range } from 'vscode-languageserver-types';
import type { CancellationLike, LanguageService, LanguageSettings } from '../languageService/types';
import { getLanguageService } from '../languageService/languageService';
import type { Column } from '../model';
import { answerCatalog, formulaColumn, type FormulaTmlEntry } from './answerSources';
import { readBoundedYaml, type YamlLimitExceeded } from './boundedYaml';
import { isOneOf, keysOf } from '../guards';

/** The page of the Answer TML's members, cited by the hover of each (docs/service-interface.md §11.1). */
export const ANSWER_TML_PAGE = 'https://docs.thoughtspot.com/cloud/latest/tml-answers';
/** The TML overview page (the `guid` member and the one object member of every TML file). */
export const TML_PAGE = 'https://docs.thoughtspot.com/cloud/latest/tml';

/**
 * The top-level members of an Answer TML, each with what the docs say of it (tml.adoc, tml-answers): the
 * one declaration `TML_TOP_LEVEL`, the shape check and the hover derive from.
 */
export const TML_TOP_LEVEL_DOCS = {
  guid: 'The GUID of the object: an import with it updates that object; one without it, or with `guid: null` (as clusters export an object for a new home), creates a new object.',
  obj_id: 'The object\'s own identifier, set by its users and unique in its Org (intro-thoughtspot-objects: `org_id` + `obj_id` is as good as the GUID): exported beside or instead of `guid`, so that the file imports into another Org or instance.',
  answer: 'The Answer: its name, the data sources it reads (`tables`), its search (`search_query`) and how it is shown (`answer_columns`, `table`, `chart`, `display_mode`).',
} as const;

/** The members of `answer` (tml-answers), each with what the docs say of it; `ANSWER_MEMBERS` derives from it. */
export const ANSWER_MEMBER_DOCS = {
  name: 'The name of the Answer, as shown in the service.',
  description: 'The description of the Answer (optional).',
  tables: 'The data sources (models, worksheets, views, tables) the search reads, each an `id` (what `[id::column]` refers to), `name`, `fqn` (the GUID, with `export_fqn`) or `obj_id` (its identifier in the Org). A column of the search may come from any of them: TSQ checks `search_query` against them all.',
  joins: 'The joins between the data sources of `tables` the Answer uses.',
  table_paths: 'The join paths between the data sources, each with its `id`, `table` and `join_path`.',
  formulas: 'The formulas of the Answer, each an `id`, `name`, `expr` and `properties` (`column_type`, `aggregation`): columns of its search, by id (`[formula_<name>]` as exported) and by name. Without a data type in `properties` a formula\'s type is unknown, and TSQ makes no type check on it.',
  parameters: 'The parameters of the Answer.',
  search_query: 'The search of the Answer, in the search language of `.tsq` files: checked, completed and hovered against the data source `tables` names.',
  answer_columns: 'The columns of the Answer, by display name (derived from the search by the service on import): a column that stands only in a filter is not one of them.',
  table: 'How the Answer shows as a table: `table_columns`, `ordered_column_ids`, `client_state`.',
  chart: 'How the Answer shows as a chart: `type`, `chart_columns`, `axis_configs`, `client_state`.',
  display_mode: 'Whether the Answer opens as a chart or a table: CHART_MODE, TABLE_MODE (or UNDEFINED).',
  cohorts: 'The sets (cohorts) the Answer defines.',
  number_of_rows: 'The number of rows the Answer shows.',
  dynamic_name: 'The title the Answer takes from a formula or filter value when it is shown (a dynamic title); empty for a fixed `name`. [As exported; the Answer TML page does not describe it.]',
  dynamic_description: 'The description the Answer takes from a formula or filter value when it is shown; empty for a fixed `description`. [As exported; the Answer TML page does not describe it.]',
  parameter_values: 'The values the Answer sets the Parameters of its data sources to. [As exported; the Answer TML page does not describe it.]',
  action_object_associations: 'The custom actions associated with the Answer. [As exported; the Answer TML page does not describe it.]',
  client_state: 'How the service\'s interface last showed the Answer, opaque to TSQ (also in `table` and `chart`).',
  client_state_v2: 'How the service\'s interface last showed the Answer, as JSON text opaque to TSQ (also in `table` and `chart`).',
} as const;

/** The top-level members of a TML file: `guid` and the object (tml.adoc: one member per object type). */
export const TML_TOP_LEVEL = keysOf(TML_TOP_LEVEL_DOCS);
/** The members of `answer` the docs describe (tml-answers). */
export const ANSWER_MEMBERS = keysOf(ANSWER_MEMBER_DOCS);
/** `display_mode` values (tml-answers). */
export const DISPLAY_MODES = ['CHART_MODE', 'TABLE_MODE', 'UNDEFINED'] as const;

/** Diagnostic codes of TML files (beside the query's own, `tsq.*`). */
export const TML_CODES = {
  syntax: 'tml.syntax',
  schema: 'tml.schema',
  unknownMember: 'tml.unknownMember',
  /** The file is over a limit of the TML reader (boundedYaml.ts `TML_LIMITS`): nothing else is checked. */
  tooLarge: 'tml.tooLarge',
} as const;

/** An Answer TML read from its text, with the nodes the checks and the service need. */
export interface AnswerTmlFile {
  text: string;
  doc: Document;
  lines: LineCounter;
  /** Set when the text is over a limit of the reader (`TML_LIMITS`); `doc` is then empty. */
  exceeded?: YamlLimitExceeded;
  guid?: string;
  name?: string;
  /** The data source the query names: the first of `tables`. */
  dataSource?: AnswerTable;
  /** Every entry of `tables` that names a data source, in order. */
  tables?: AnswerTable[];
  /** The answer's `formulas` as columns of its search (answerSources.ts `formulaColumn`). */
  formulas?: Column[];
  /** The answer's `formulas` entries as the TML holds them (their expressions type the columns: `typedFormulaColumns`). */
  formulaEntries?: FormulaTmlEntry[];
  /** The `search_query` scalar and its value. */
  query?: { value: string; node: Scalar };
}

/**
 * One data source of an answer's `tables`: the text that names it (`fqn`, a GUID; else `name`, else `id`,
 * else `obj_id`), the node that holds that text, and whether it is the `obj_id` (an identifier in the
 * Org that the catalog, which finds data sources by name or GUID, cannot look up).
 */
export interface AnswerTable {
  ref: string;
  node: Node;
  byObjId?: boolean;
}

/** The members of a `tables` entry that name its data source, in the order they are read (`AnswerTable`). */
const TABLE_REF_MEMBERS = ['fqn', 'name', 'id', 'obj_id'] as const;

/** The data source a `tables` entry names (`AnswerTable`), or undefined when it names none. */
function tableOf(entry: unknown): AnswerTable | undefined {
  if (!isMap(entry)) return undefined;
  for (const k of TABLE_REF_MEMBERS) {
    const n = entry.get(k, true);
    if (isScalar(n) && typeof n.value === 'string' && n.value !== '') return { ref: n.value, node: n, ...(k === 'obj_id' ? { byObjId: true } : {}) };
  }
  return undefined;
}

/** The parts of an `answer` mapping the checks and the language service read. */
export type AnswerParts = Pick<AnswerTmlFile, 'name' | 'dataSource' | 'tables' | 'formulas' | 'formulaEntries' | 'query'>;

/**
 * What an `answer` mapping names: its `name`, its data sources (every entry of `tables` that names one,
 * `AnswerTable`; `dataSource` the first), its `formulas` as columns (`formulaColumn`) and its `search_query`.
 */
export function answerPartsOf(answer: YAMLMap): AnswerParts {
  const out: AnswerParts = {};
  const name = answer.get('name');
  if (typeof name === 'string') out.name = name;
  const tables = answer.get('tables', true);
  if (isSeq(tables)) {
    out.tables = tables.items.map(tableOf).filter((t): t is AnswerTable => t !== undefined);
    if (out.tables[0] && tableOf(tables.items[0])) out.dataSource = out.tables[0];
  }
  const formulas = answer.get('formulas', true);
  if (isSeq(formulas)) {
    out.formulaEntries = formulas.items.flatMap((f) => (isMap(f) ? [f.toJSON() as FormulaTmlEntry] : []));
    out.formulas = out.formulaEntries.flatMap((f) => {
      const c = formulaColumn(f);
      return c ? [c] : [];
    });
  }
  const q = answer.get('search_query', true);
  if (isScalar(q) && typeof q.value === 'string') out.query = { value: q.value, node: q };
  return out;
}

/**
 * Parses a TML text (YAML or JSON) with positions, by the one bounded reader (boundedYaml.ts). Never
 * throws: syntax errors and duplicate keys are in `doc.errors`; a text over a limit has `exceeded` and
 * an empty `doc`.
 */
export function readTmlDocument(text: string): Pick<AnswerTmlFile, 'text' | 'doc' | 'lines' | 'exceeded'> {
  return { text, ...readBoundedYaml(text) };
}

/** The one diagnostic of a TML file over a limit of the reader (`tml.tooLarge`, at its start), or undefined. */
export function limitDiagnostic(file: Pick<AnswerTmlFile, 'exceeded'>): Diagnostic | undefined {
  return file.exceeded && diag({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, `Not checked: the file has ${file.exceeded.message}. Split it into smaller files.`, TML_CODES.tooLarge);
}

/** Parses an Answer TML text with positions. Never throws: syntax errors are in `doc.errors`. */
export function readAnswerTml(text: string): AnswerTmlFile {
  const file: AnswerTmlFile = readTmlDocument(text);
  const root = file.doc.contents;
  if (!isMap(root)) return file;
  const guid = root.get('guid');
  if (typeof guid === 'string') file.guid = guid;
  const answer = root.get('answer', true);
  return isMap(answer) ? { ...file, ...answerPartsOf(answer) } : file;
}

/** The LSP range of offsets `start`..`end` of the file. */
export function rangeOf(file: Pick<AnswerTmlFile, 'lines'>, start: number, end: number): Range {
  const a = file.lines.linePos(start);
  const b = file.lines.linePos(Math.max(start, end));
  return { start: { line: a.line - 1, character: a.col - 1 }, end: { line: b.line - 1, character: b.col - 1 } };
}

/** The LSP range of a YAML node (the file's start when it has none). */
export function nodeRange(file: Pick<AnswerTmlFile, 'lines'>, node: unknown): Range {
  const r = nodeOf(node)?.range;
  return r ? rangeOf(file, r[0], r[1]) : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
}

/** `v` when it is a YAML node (a scalar, map or list of a parsed document), else undefined (a pair's absent key, a missing member). */
export function nodeOf(v: unknown): Node | undefined {
  return isNode(v) ? v : undefined;
}

/** A diagnostic of a TML file (source `tsq`). */
export function diag(range: Range, message: string, code: string, severity: DiagnosticSeverity = DiagnosticSeverity.Error): Diagnostic {
  return { range, message, code, severity, source: 'tsq' };
}

/**
 * The check of a TML file's top-level `guid`: absent, `null` (a new object: clusters export `guid: null`
 * for an object to be created, beside its `obj_id`) or a GUID; anything else is an error.
 */
export function checkGuid(file: Pick<AnswerTmlFile, 'lines'>, root: YAMLMap): Diagnostic[] {
  const guid = root.get('guid', true);
  if (guid === undefined || (isScalar(guid) && (guid.value === null || (typeof guid.value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(guid.value))))) return [];
  return [diag(nodeRange(file, guid), 'guid is not a GUID (null for a new object).', TML_CODES.schema)];
}

/**
 * The shape checks of an Answer TML: YAML syntax, `answer` with `name`, `tables` (one data source) and
 * `search_query`; `display_mode` one of DISPLAY_MODES. Unknown top-level members and unknown members of
 * `answer` are warnings (the service adds members over releases), never errors.
 */
export function checkAnswerShape(file: AnswerTmlFile): Diagnostic[] {
  const limit = limitDiagnostic(file);
  if (limit) return [limit];
  const out: Diagnostic[] = [];
  for (const e of file.doc.errors) out.push(diag(rangeOf(file, e.pos[0], e.pos[1]), `Not valid YAML: ${e.message.split('\n')[0]}`, TML_CODES.syntax));
  if (out.length) return out;
  const root = file.doc.contents;
  if (!isMap(root)) return [diag(nodeRange(file, root ?? undefined), 'An Answer TML is a mapping with guid and answer.', TML_CODES.schema)];
  for (const item of root.items) {
    const key = isScalar(item.key) ? String(item.key.value) : '';
    if (!isOneOf(TML_TOP_LEVEL, key)) out.push(diag(nodeRange(file, item.key), `Unknown top-level member ${key} of an Answer TML (expected ${TML_TOP_LEVEL.join(', ')}).`, TML_CODES.unknownMember, DiagnosticSeverity.Warning));
  }
  out.push(...checkGuid(file, root));
  const answer = root.get('answer', true);
  if (!isMap(answer)) return [...out, diag(nodeRange(file, answer ?? root), 'The member answer is missing: this file is not an Answer TML.', TML_CODES.schema)];
  return [...out, ...checkAnswerMembers(file, answer, 'answer')];
}

/**
 * The checks of one `answer` mapping at `path` (`answer`, or a liveboard visualization's
 * `liveboard.visualizations[0].answer`): `name`, `tables` (each entry naming a data source) and `search_query`;
 * `display_mode` one of DISPLAY_MODES; unknown members are warnings.
 */
export function checkAnswerMembers(file: Pick<AnswerTmlFile, 'lines'>, answer: YAMLMap, path: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const parts = answerPartsOf(answer);
  for (const item of answer.items) {
    const key = isScalar(item.key) ? String(item.key.value) : '';
    if (!isOneOf(ANSWER_MEMBERS, key)) out.push(diag(nodeRange(file, item.key), `Unknown member ${key} of ${path}.`, TML_CODES.unknownMember, DiagnosticSeverity.Warning));
  }
  const at = (k: string): Range => nodeRange(file, answer.get(k, true) ?? answer);
  if (typeof answer.get('name') !== 'string' || answer.get('name') === '') out.push(diag(at('name'), `${path}.name is missing: an answer needs a name.`, TML_CODES.schema));
  const tables = answer.get('tables', true);
  if (!isSeq(tables) || tables.items.length === 0) out.push(diag(at('tables'), `${path}.tables is missing: name the data source (a worksheet, view or table).`, TML_CODES.schema));
  else tables.items.forEach((t, i) => {
    if (!tableOf(t)) out.push(diag(nodeRange(file, t), `${path}.tables[${i}] needs name (or fqn, the data source GUID, or obj_id).`, TML_CODES.schema));
  });
  if (!parts.query || parts.query.value.trim() === '') out.push(diag(at('search_query'), `${path}.search_query is missing: an answer needs a search.`, TML_CODES.schema));
  const mode = answer.get('display_mode');
  if (mode !== undefined && !isOneOf(DISPLAY_MODES, mode)) out.push(diag(at('display_mode'), `display_mode must be one of ${DISPLAY_MODES.join(', ')}.`, TML_CODES.schema));
  return out;
}

/**
 * Maps each character of a scalar's value to its offset in the file: `map[i]` is where value character
 * i is written, `map[value.length]` the end. Follows the source as written: quotes, `''`, backslash
 * escapes of double quotes (`\n`, `\"`, `\x41`, `\u00e9`, …), and the indentation and line folding of
 * block and multi-line scalars.
 */
export function scalarOffsets(text: string, node: Scalar, value: string): number[] {
  const [start, end] = node.range ?? [0, 0];
  const map: number[] = [];
  let r = start;
  const type = node.type;
  if (type === 'QUOTE_DOUBLE' || type === 'QUOTE_SINGLE') r++;
  else if (type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') {
    const nl = text.indexOf('\n', r);
    r = nl < 0 ? end : nl + 1;
  }
  for (let v = 0; v < value.length; ) {
    if (r >= end) {
      map.push(end);
      v++;
      continue;
    }
    const c = text[r]!;
    if (type === 'QUOTE_DOUBLE' && c === '\\') {
      const e = text[r + 1];
      const len = e === 'x' ? 4 : e === 'u' ? 6 : e === 'U' ? 10 : 2;
      if (e === '\n' || e === '\r') {
        r += 2;
        while (r < end && (text[r] === ' ' || text[r] === '\t')) r++;
        continue;
      }
      const decoded = e === 'u' || e === 'U' ? String.fromCodePoint(parseInt(text.slice(r + 2, r + len), 16)).length : 1;
      for (let k = 0; k < decoded; k++) map.push(r);
      v += decoded;
      r += len;
      continue;
    }
    if (type === 'QUOTE_SINGLE' && c === "'" && text[r + 1] === "'") {
      map.push(r);
      v++;
      r += 2;
      continue;
    }
    if (c === value[v]) {
      map.push(r);
      v++;
      r++;
      if (c === '\n') while (r < end && text[r] === ' ') r++;
      continue;
    }
    if ((c === '\n' || c === '\r') && (value[v] === ' ' || value[v] === '\n')) {
      // a folded line break (a space in the value) or a kept one written as \r\n
      map.push(r);
      v++;
      r += c === '\r' && text[r + 1] === '\n' ? 2 : 1;
      while (r < end && (text[r] === ' ' || text[r] === '\t')) r++;
      continue;
    }
    r++; // indentation, a line break folded away, or a quote
  }
  map.push(Math.min(r, end));
  return map;
}

/** The `@datasource` line a TML's data source gives the embedded query (a name with `'` in it cannot be quoted: its GUID is needed). */
function datasourceLine(ref: string): string | undefined {
  return ref.includes("'") ? undefined : `@datasource '${ref}'\n`;
}

/**
 * Every diagnostic of an Answer TML file: the shape (checkAnswerShape), then its `search_query` by the
 * language service against the data sources of `tables` and the `formulas` (`validateEmbeddedQuery`), each
 * placed on the characters of the YAML string that hold it; a diagnostic of a data source itself is placed
 * on its `tables` entry.
 */
export async function validateAnswerTml(service: LanguageService, uri: string, text: string, settings: LanguageSettings = {}): Promise<Diagnostic[]> {
  const file = readAnswerTml(text);
  const out = checkAnswerShape(file);
  if (out.some((d) => d.code === TML_CODES.syntax || d.code === TML_CODES.tooLarge) || !file.query || !file.dataSource) return out;
  return [...out, ...(await validateEmbeddedQuery(service, `${uri}#search_query`, file, file.query, file, settings))];
}

/** The language service with no catalog: syntax only (an answer whose data sources the catalog cannot look up). */
const SYNTAX_ONLY = getLanguageService();

/**
 * The language service an answer's search is read with, and the data source its embedded query names
 * (`@datasource`): the first of `tables` the catalog can look up (one named by `obj_id` only it cannot).
 * With one data source and no formulas, `service` itself; with more, or with `formulas`, a service over
 * the catalog's view in which that data source answers every column the search may name (answerSources.ts
 * `answerCatalog`); with only `obj_id`s, the syntax-only service. Undefined when `tables` names none.
 */
export function searchServiceOf(service: LanguageService, parts: AnswerParts): { service: LanguageService; dataSource: AnswerTable } | undefined {
  const tables = parts.tables ?? [];
  if (!parts.dataSource) return undefined;
  const primary = tables.find((t) => !t.byObjId);
  if (!primary) return { service: SYNTAX_ONLY, dataSource: parts.dataSource };
  const formulas = parts.formulas ?? [];
  if ((tables.length === 1 && formulas.length === 0) || !service.catalog) return { service, dataSource: primary };
  const refs = [primary, ...tables.filter((t) => t !== primary)].map((t) => t.ref);
  return { service: getLanguageService({ catalog: answerCatalog(service.catalog, refs, formulas, parts.formulaEntries) }), dataSource: primary };
}

/**
 * The language service's diagnostics of one embedded `search_query` against the data sources and
 * formulas of its answer (`parts`: `searchServiceOf`), each placed on the characters of the YAML string
 * that hold it; a data source of `tables` the connection does not have is reported on the node that names
 * it. `uri` names the embedded document (one per query of the file).
 */
export async function validateEmbeddedQuery(service: LanguageService, uri: string, file: Pick<AnswerTmlFile, 'text' | 'lines'>, query: NonNullable<AnswerTmlFile['query']>, parts: AnswerParts, settings: LanguageSettings = {}): Promise<Diagnostic[]> {
  const search = searchServiceOf(service, parts);
  if (!search) return [];
  const out = await embeddedDiagnostics(search.service, uri, file, query, search.dataSource, settings);
  for (const [i, t] of (parts.tables ?? []).entries()) {
    // each other data source, as a query of none: only the `@datasource` line is checked
    if (t !== search.dataSource && !t.byObjId && isScalar(t.node)) out.push(...(await embeddedDiagnostics(service, `${uri}/tables/${i}`, file, { value: '', node: t.node }, t, settings)));
  }
  return out;
}

/** The diagnostics of one embedded query read with `service` against the data source `dataSource` names (see `validateEmbeddedQuery`). */
async function embeddedDiagnostics(service: LanguageService, uri: string, file: Pick<AnswerTmlFile, 'text' | 'lines'>, query: NonNullable<AnswerTmlFile['query']>, dataSource: AnswerTable, settings: LanguageSettings): Promise<Diagnostic[]> {
  const header = datasourceLine(dataSource.ref);
  if (!header) return [];
  const embedded = TextDocument.create(uri, 'tsq', 1, header + query.value);
  const map = scalarOffsets(file.text, query.node, query.value);
  const out: Diagnostic[] = [];
  for (const d of await service.doValidation(embedded, settings)) {
    const s = embedded.offsetAt(d.range.start) - header.length;
    const e = embedded.offsetAt(d.range.end) - header.length;
    const range = s < 0 ? nodeRange(file, dataSource.node) : rangeOf(file, map[Math.min(s, map.length - 1)]!, map[Math.min(Math.max(e, s), map.length - 1)]!);
    out.push({ ...d, range });
  }
  return out;
}

/** The new text of a completion or quick fix written into a YAML scalar of `type` (quotes and backslashes escaped as it needs). */
export function escapeFor(type: Scalar['type'], text: string): string {
  if (type === 'QUOTE_DOUBLE') return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  if (type === 'QUOTE_SINGLE') return text.replace(/'/g, "''");
  return text;
}

/**
 * One embedded `search_query` of a TML file placed for the language service: the service that reads it
 * (`searchServiceOf`: its answer's data sources and formulas), the `.tsq` document it
 * reads as (the `@datasource` line of its data source, then the query; named `uri`), the offsets of its
 * value characters in the file (`scalarOffsets`), and the index in the value of the file offset asked
 * about. Undefined when the offset is outside the YAML string or the data source cannot be written as a
 * `@datasource` line.
 */
export interface EmbeddedQueryAt {
  service: LanguageService;
  embedded: TextDocument;
  header: string;
  map: number[];
  index: number;
  query: NonNullable<AnswerTmlFile['query']>;
}

/**
 * The embedded query of the answer `parts` at file offset `offset` (see `EmbeddedQueryAt`), read with
 * `service` over its data sources and formulas, or undefined when `offset` is outside its YAML string
 * or the answer names no data source. `uri` names the embedded document (`<file uri>#search_query`, or one per
 * visualization of a liveboard), `version` is the file's.
 */
export function embeddedQueryAt(service: LanguageService, text: string, query: NonNullable<AnswerTmlFile['query']>, parts: AnswerParts, offset: number, uri: string, version: number): EmbeddedQueryAt | undefined {
  const search = searchServiceOf(service, parts);
  const header = search && datasourceLine(search.dataSource.ref);
  if (!search || !header) return undefined;
  const { value, node } = query;
  const r = node.range;
  if (r && (offset < r[0] || offset > r[1])) return undefined;
  const map = scalarOffsets(text, node, value);
  if (offset < map[0]! || offset > map[value.length]!) return undefined;
  let index = 0;
  while (index < value.length && map[index]! < offset) index++;
  return { service: search.service, embedded: TextDocument.create(uri, 'tsq', version, header + value), header, map, index, query };
}

/**
 * The language service's completion of an embedded query at its `index`, its edits moved onto the YAML
 * string of `document` (and escaped for its quoting); edits that reach into the `@datasource` line are
 * dropped, and so are additional edits.
 */
export async function completeEmbeddedQuery(document: TextDocument, at: EmbeddedQueryAt, settings: LanguageSettings = {}, token?: CancellationLike): Promise<CompletionList> {
  const { service, embedded, header, map, index, query } = at;
  const { value, node } = query;
  const list = await service.doComplete(embedded, embedded.positionAt(header.length + index), settings, token);
  const toYaml = (r: Range): Range | undefined => {
    const s = embedded.offsetAt(r.start) - header.length;
    const e = embedded.offsetAt(r.end) - header.length;
    if (s < 0 || e < 0) return undefined;
    const a = document.positionAt(map[Math.min(s, value.length)]!);
    const b = document.positionAt(map[Math.min(e, value.length)]!);
    return { start: a, end: b };
  };
  const items = list.items.flatMap((item): CompletionItem[] => {
    const { additionalTextEdits: _dropped, ...rest } = item;
    const edit = item.textEdit;
    if (!edit) return [{ ...rest, insertText: escapeFor(node.type, item.insertText ?? item.label) }];
    if ('range' in edit) {
      const range = toYaml(edit.range);
      return range ? [{ ...rest, textEdit: { range, newText: escapeFor(node.type, edit.newText) } }] : [];
    }
    const insert = toYaml(edit.insert);
    const replace = toYaml(edit.replace);
    return insert && replace ? [{ ...rest, textEdit: { insert, replace, newText: escapeFor(node.type, edit.newText) } }] : [];
  });
  return { isIncomplete: list.isIncomplete, items };
}

/** The language service's hover of an embedded query at its `index`, its range moved onto the YAML string of `file`. */
export async function hoverEmbeddedQuery(file: Pick<AnswerTmlFile, 'lines'>, at: EmbeddedQueryAt, settings: LanguageSettings = {}, token?: CancellationLike): Promise<Hover | null> {
  const { service, embedded, header, map, index, query } = at;
  const length = query.value.length;
  const hover = await service.doHover(embedded, embedded.positionAt(header.length + index), settings, token);
  if (!hover) return null;
  if (!hover.range) return hover;
  const s = embedded.offsetAt(hover.range.start) - header.length;
  const e = embedded.offsetAt(hover.range.end) - header.length;
  if (s < 0) return { contents: hover.contents };
  return { contents: hover.contents, range: rangeOf(file, map[Math.min(s, length)]!, map[Math.min(Math.max(e, s), length)]!) };
}

/**
 * Completion inside an Answer TML's `search_query`: the language service's completion of the query
 * against the data sources of `tables` and the `formulas` (`searchServiceOf`), its edits moved onto the YAML string (and escaped for its
 * quoting). Outside the query, or without a data source: no items.
 */
export async function completeAnswerTml(service: LanguageService, document: TextDocument, position: Position, settings: LanguageSettings = {}, token?: CancellationLike): Promise<CompletionList> {
  const text = document.getText();
  const file = readAnswerTml(text);
  const at = file.query ? embeddedQueryAt(service, text, file.query, file, document.offsetAt(position), `${document.uri}#search_query`, document.version) : undefined;
  return at ? completeEmbeddedQuery(document, at, settings, token) : { isIncomplete: false, items: [] };
}

/** The markdown of a member's hover: its path, what the docs say of it, and the page. */
function memberHover(path: string, doc: string, page: string, range: Range): Hover {
  return { contents: { kind: MarkupKind.Markdown, value: `**${path}** (Answer TML)\n\n${doc}\n\n[${page}](${page})` }, range };
}

/**
 * The hover of the key of `map` at file offset `offset`: what `docs` say of it, with `page`, its path
 * `prefix` + key; null on an unknown key; undefined when `offset` is on no key of `map`.
 */
export function keyHover(file: Pick<AnswerTmlFile, 'lines'>, map: YAMLMap, offset: number, docs: Record<string, string>, prefix: string, page: string): Hover | null | undefined {
  for (const item of map.items) {
    const key = nodeOf(item.key);
    const r = key?.range;
    if (!isScalar(key) || !r || offset < r[0] || offset > r[1]) continue;
    const name = String(key.value);
    return Object.hasOwn(docs, name) ? memberHover(`${prefix}${name}`, docs[name]!, page, rangeOf(file, r[0], r[1])) : null;
  }
  return undefined;
}

/**
 * Hover in an Answer TML: inside `search_query`, the language service's hover of the query (the same
 * as in a `.tsq` file, against the data sources of `tables` and the `formulas`), its range moved onto the YAML string;
 * on a key of a known top-level member or member of `answer`, its description from the docs with the
 * page (`TML_TOP_LEVEL_DOCS`, `ANSWER_MEMBER_DOCS`). Elsewhere null.
 */
export async function hoverAnswerTml(service: LanguageService, document: TextDocument, position: Position, settings: LanguageSettings = {}, token?: CancellationLike): Promise<Hover | null> {
  const text = document.getText();
  const file = readAnswerTml(text);
  const offset = document.offsetAt(position);
  const root = file.doc.contents;
  if (!isMap(root)) return null;
  const top = keyHover(file, root, offset, TML_TOP_LEVEL_DOCS, '', TML_PAGE);
  if (top !== undefined) return top;
  const answer = root.get('answer', true);
  if (isMap(answer)) {
    const member = keyHover(file, answer, offset, ANSWER_MEMBER_DOCS, 'answer.', ANSWER_TML_PAGE);
    if (member !== undefined) return member;
  }
  const at = file.query ? embeddedQueryAt(service, text, file.query, file, offset, `${document.uri}#search_query`, document.version) : undefined;
  return at ? hoverEmbeddedQuery(file, at, settings, token) : null;
}
