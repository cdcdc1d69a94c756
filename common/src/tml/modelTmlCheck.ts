/**
 * `*.worksheet.tml`, `*.model.tml` and `*.table.tml` files as the language service checks them: the YAML
 * read with positions, a worksheet or model read into its definition and checked by `checkModelDefinition`
 * (modelTml.ts) against the columns the catalog gives of its tables (a table the catalog does not know is
 * not checked: no catalog, no false error), then its formulas (modelFormulas.ts, each error on the
 * characters of its `expr`), each problem placed on its member; a table's column names
 * unique and its data types known. Hover of the top-level member and of the object's members.
 *
 * Pure: no `vscode`, no LSP server, no HTTP.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { type CompletionList, type Diagnostic, type Hover, type Position } from 'vscode-languageserver-types';
import { COLUMN_DATA_TYPES } from '../model';
import type { CancellationLike, LanguageService, LanguageSettings } from '../languageService/types';
import { checkGuid, diag, keyHover, limitDiagnostic, nodeRange, rangeOf, readTmlDocument, scalarOffsets, TML_CODES, nodeOf } from './answerTml';
import { checkModelFormulas, type ModelFormulaProblem } from './modelFormulas';
import { checkModelDefinition, modelDefinitionOf, ModelTmlError, type ModelProblem, type TableColumnsOf } from './modelTml';
import { isOneOf, recordOr } from '../guards';

/** The pages of worksheet, model and table TML (docs.thoughtspot.com). */
export const MODEL_TML_PAGES = { worksheet: 'https://docs.thoughtspot.com/cloud/latest/tml-worksheets', model: 'https://docs.thoughtspot.com/cloud/latest/tml-models', table: 'https://docs.thoughtspot.com/cloud/latest/tml-tables' } as const;

/** The members of a worksheet, model and table TML hover explains (thoughtspot/developer-docs modify-tml.adoc). */
const MEMBER_DOCS: Record<keyof typeof MODEL_TML_PAGES, Record<string, string>> = {
  worksheet: {
    tables: 'The tables the worksheet joins, each a `name` (or an `id` with `fqn`, the table GUID): joins and table paths name them.',
    joins: 'The joins: `name`, `source` and `destination` (tables of `tables`), `type` (INNER, LEFT_OUTER, RIGHT_OUTER, OUTER) and `on`, `[source::column] = [destination::column]`.',
    table_paths: 'The paths to the tables: `id` (the first part of a `column_id`), `table` and `join_path`, the joins from the root table.',
    formulas: 'The formulas: `id`, `name`, `expr`; a column with `formula_id` shows one.',
    worksheet_columns: 'The columns: `name`, `column_id` (`<table_path>::<column>`) or `formula_id`, `properties`.',
  },
  model: {
    model_tables: 'The tables of the model, each a `name` (an `alias` for a second use of one table, `fqn` its GUID) with its `joins`: `with` (the joined table), `on`, `type`, `cardinality`.',
    formulas: 'The formulas: `id`, `name`, `expr`; a column with `formula_id` shows one.',
    columns: 'The columns: `name`, `column_id` (`<table>::<column>`) or `formula_id`, `properties`.',
  },
  table: {
    db: 'The database of the table.',
    schema: 'The schema of the table.',
    db_table: 'The table in the database.',
    columns: 'The columns: `name`, `db_column_name`, `properties` (`column_type`, `aggregation`), `db_column_properties.data_type`.',
  },
};

type Kind = keyof typeof MODEL_TML_PAGES;

/** The node at `path` of the document's contents, or the deepest one it has on the way (the root when none). */
function nodeAt(root: unknown, path: readonly (string | number)[]): Node | undefined {
  let node = nodeOf(root);
  for (const p of path) {
    const next = nodeOf(isMap(node) ? node.get(p, true) : isSeq(node) && typeof p === 'number' ? node.items[p] : undefined);
    if (!next) break;
    node = next;
  }
  return node;
}

/**
 * A formula's error on the characters of its `expr` string (the checker's code and did-you-mean names in
 * `data.suggestions`, as an answer's), or undefined when `node` is no string scalar.
 */
function placeFormula(file: Parameters<typeof rangeOf>[0] & { text: string }, node: Node | undefined, p: ModelFormulaProblem): Diagnostic | undefined {
  if (!isScalar(node) || typeof node.value !== 'string') return undefined;
  const value = node.value;
  const map = scalarOffsets(file.text, node, value);
  const at = (o: number): number => map[Math.min(Math.max(o, 0), value.length)]!;
  const d = p.diagnostic;
  return { ...diag(rangeOf(file, at(d.start), at(Math.max(d.end, d.start))), `${p.message}.`, d.code), ...(d.suggestions ? { data: { suggestions: d.suggestions } } : {}) };
}

/** The columns `checkModelDefinition` reads, from the service's catalog (by GUID, else name); all unknown without a catalog. */
export async function catalogColumns(service: LanguageService, tables: readonly { name: string; fqn?: string }[], token?: CancellationLike): Promise<TableColumnsOf> {
  const known = new Map<string, Awaited<ReturnType<TableColumnsOf>>>();
  for (const t of tables) {
    const found = service.catalog ? await service.catalog.getColumns(t.fqn ?? t.name, token) : undefined;
    known.set(`${t.name}\u0000${t.fqn ?? ''}`, found === null ? null : found?.columns);
  }
  return (name, fqn) => known.get(`${name}\u0000${fqn ?? ''}`);
}

/** A table TML's own checks: `table.name`, unique column names (ignoring case), known data types. */
function tableProblems(doc: Record<string, unknown>): ModelProblem[] {
  const t = recordOr(doc.table);
  const out: ModelProblem[] = [];
  if (typeof t.name !== 'string' || t.name === '') out.push({ path: ['table', 'name'], message: 'table.name is missing: a table needs a name' });
  const seen = new Set<string>();
  (Array.isArray(t.columns) ? t.columns : []).forEach((c: Record<string, any>, i) => {
    const name = typeof c?.name === 'string' ? c.name : '';
    if (!name) out.push({ path: ['table', 'columns', i], message: 'a column needs a name' });
    else if (seen.has(name.toLowerCase())) out.push({ path: ['table', 'columns', i, 'name'], message: `column ${name} is not unique (names are unique ignoring case)` });
    seen.add(name.toLowerCase());
    const type = c?.db_column_properties?.data_type;
    if (type !== undefined && !isOneOf(COLUMN_DATA_TYPES, type)) out.push({ path: ['table', 'columns', i, 'db_column_properties', 'data_type'], message: `column ${name}: data_type ${String(type)} is not one of ${COLUMN_DATA_TYPES.join(', ')}` });
  });
  return out;
}

/**
 * Every diagnostic of a worksheet, model or table TML file (`kind` from its suffix): YAML syntax, the
 * object member, `guid`, then the definition's problems (`checkModelDefinition`) or the table's, each on
 * the member it names (code `tml.schema`).
 */
export async function validateModelTml(kind: Kind, service: LanguageService, text: string, token?: CancellationLike): Promise<Diagnostic[]> {
  const file = readTmlDocument(text);
  const limit = limitDiagnostic(file);
  if (limit) return [limit];
  const syntax = file.doc.errors.map((e) => diag(rangeOf(file, e.pos[0], e.pos[1]), `Not valid YAML: ${e.message.split('\n')[0]}`, TML_CODES.syntax));
  if (syntax.length) return syntax;
  const root = file.doc.contents;
  const title = `${kind[0]!.toUpperCase()}${kind.slice(1)} TML`;
  if (!isMap(root) || !isMap(root.get(kind, true))) return [diag(nodeRange(file, root ?? undefined), `The member ${kind} is missing: this file is not a ${title}.`, TML_CODES.schema)];
  const out = checkGuid(file, root);
  const doc = recordOr(file.doc.toJS());
  const place = (p: ModelProblem): Diagnostic => diag(nodeRange(file, nodeAt(root, p.path)), `${p.message}.`, TML_CODES.schema);
  if (kind === 'table') return [...out, ...tableProblems(doc).map(place)];
  try {
    const def = modelDefinitionOf({ [kind]: doc[kind] });
    const columnsOf = await catalogColumns(service, def.tables, token);
    const problems = checkModelDefinition(def, columnsOf);
    if (problems.length) return [...out, ...problems.map(place)];
    return [...out, ...checkModelFormulas(def, columnsOf).problems.map((p) => placeFormula(file, nodeAt(root, p.path), p) ?? place(p))];
  } catch (e) {
    if (e instanceof ModelTmlError) return [...out, place({ path: e.path, message: e.message })];
    throw e;
  }
}

/** Hover of a worksheet, model or table TML: its top-level object member and the object's members. */
function hoverModelTml(kind: Kind, document: TextDocument, position: Position): Hover | null {
  const file = readTmlDocument(document.getText());
  const root = file.doc.contents;
  if (!isMap(root)) return null;
  const offset = document.offsetAt(position);
  const top = keyHover(file, root, offset, { [kind]: `The ${kind} this file defines.` }, '', MODEL_TML_PAGES[kind]);
  if (top !== undefined) return top;
  const body = root.get(kind, true);
  return isMap(body) ? keyHover(file, body, offset, MEMBER_DOCS[kind], `${kind}.`, MODEL_TML_PAGES[kind]) ?? null : null;
}

/** The checker (tmlService.ts `TmlChecker`) of one of the kinds: diagnostics and hover; no completion of its own (inside a `formulas[].expr`, answerFormulas.ts `withFormulaEditing` answers). */
export function modelTmlChecker(kind: Kind): {
  validate(service: LanguageService, uri: string, text: string, settings?: LanguageSettings): Promise<Diagnostic[]>;
  complete(): Promise<CompletionList>;
  hover(service: LanguageService, document: TextDocument, position: Position): Promise<Hover | null>;
} {
  return {
    validate: (service, _uri, text) => validateModelTml(kind, service, text),
    complete: async () => ({ isIncomplete: false, items: [] }),
    hover: async (_service, document, position) => hoverModelTml(kind, document, position),
  };
}

