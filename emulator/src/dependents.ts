/**
 * What depends on a data source, shared by v1 `dependency/listdependents` and v2 `metadata/search`
 * with `include_dependent_objects`: the worksheets and models over it (its base table, or one of a
 * model's tables) under `LOGICAL_TABLE`, then the answers and liveboards with a visualization on it
 * under `QUESTION_ANSWER_BOOK` and `PINBOARD_ANSWER_BOOK` (the v1 types both generations key them by:
 * https://developers.thoughtspot.com/docs/dependent-objects-api), those the user may read only.
 * What depends on one column (`LOGICAL_COLUMN`): `columnDependentsByType`.
 */
import type { AnswerBook, LogicalColumn, LogicalTable, MetadataStore } from './metadataStore';
import type { EmulatorUser } from './context';
import { tokenize } from '../../common/src/language/lexer';
import { splitColumnPath } from '../../common/src/language/keywords';
import { formulaNodes, parseFormula, type FormulaNode } from '../../common/src/formula/parser';

/** A dependent's header as the caller's generation writes it. */
type HeaderOf = (o: LogicalTable | AnswerBook) => Record<string, unknown>;

/** Adds headers by v1 type, at most `limit` in all (-1: all). */
function collector(limit: number, header: HeaderOf): { byType: Record<string, Record<string, unknown>[]>; add: (type: string, o: LogicalTable | AnswerBook) => void } {
  const byType: Record<string, Record<string, unknown>[]> = {};
  let left = limit < 0 ? Infinity : limit;
  const add = (type: string, o: LogicalTable | AnswerBook): void => {
    if (left <= 0) return;
    left--;
    (byType[type] ??= []).push(header(o));
  };
  return { byType, add };
}

/**
 * The dependents of `t` by v1 type, each a header made by `header`, at most `limit` in all (-1: all);
 * `{}` when none.
 */
export function dependentsByType(t: LogicalTable, catalog: MetadataStore, user: EmulatorUser, limit: number, header: HeaderOf): Record<string, Record<string, unknown>[]> {
  const { byType, add } = collector(limit, header);
  for (const x of catalog.state.tables) {
    const over = x.id !== t.id && x.subtype === 'WORKSHEET' && (x.tableId === t.id || (x.model?.tables.some((m) => m.guid === t.id) ?? false));
    if (over && catalog.canRead(user, x)) add('LOGICAL_TABLE', x);
  }
  for (const bk of catalog.state.books) {
    if (bk.visualizations.some((v) => v.dataSource === t.id) && catalog.canRead(user, bk)) add(bk.type, bk);
  }
  return byType;
}

/** The data source holding the column of GUID `id` (lower case), and the column; undefined when none does. */
export function columnById(catalog: MetadataStore, id: string): { table: LogicalTable; column: LogicalColumn } | undefined {
  for (const table of catalog.state.tables) {
    const column = table.columns.find((c) => c.id === id);
    if (column) return { table, column };
  }
  return undefined;
}

const lower = (s: string): string => s.trim().toLowerCase();

/** The names of `x`'s columns that read `column` of `t` (a worksheet's column over it, a model's column through a table path to it). */
function columnsReading(x: LogicalTable, t: LogicalTable, column: LogicalColumn): string[] {
  const fromT = (c: LogicalColumn): boolean => {
    if (c.formulaId || c.physicalName !== column.physicalName || !column.physicalName) return false;
    if (!x.model) return x.tableId === t.id && !c.tablePath;
    const path = x.model.tablePaths.find((p) => p.id === c.tablePath);
    const table = x.model.tables.find((m) => m.id === (path?.table ?? c.tablePath));
    return table?.guid === t.id;
  };
  const names = x.columns.filter(fromT).map((c) => lower(c.name));
  // a model's formula naming one of those columns, or the column itself through a table of the model (`[table::column]`)
  const ofT = (table: string): boolean => x.model?.tables.find((m) => lower(m.id) === lower(table))?.guid === t.id;
  const reads = (n: FormulaNode): boolean => n.kind === 'column' && (n.table === undefined ? names.includes(lower(n.name)) : ofT(n.table) && lower(n.name) === lower(column.name));
  for (const f of x.model?.formulas ?? []) if ([...formulaNodes(parseFormula(f.expr).ast)].some(reads)) names.push(lower(f.name));
  return names;
}

/** Whether the search `query` names a column of `names` (lower case), in either query form. */
function queryUses(query: string, names: ReadonlySet<string>): boolean {
  return tokenize(query).some((tk) => tk.kind === 'column' && names.has(lower(splitColumnPath(tk.value).column)));
}

/**
 * What depends on the column `column` of the data source `t` (v1 `dependency/listdependents` type
 * `LOGICAL_COLUMN`, https://developers.thoughtspot.com/docs/dependent-objects-api, and v2 `metadata/search`
 * of a `LOGICAL_COLUMN` with `include_dependent_objects`): the worksheets and models with a column or a
 * formula over it (`LOGICAL_TABLE`), then the answers and liveboards with a visualization whose search
 * names it, on `t` itself or through one of those worksheets and models (by the name it has there); only
 * what `user` may read, at most `limit` (-1: all), each a header made by `header`; `{}` when none.
 */
export function columnDependentsByType(t: LogicalTable, column: LogicalColumn, catalog: MetadataStore, user: EmulatorUser, limit: number, header: HeaderOf): Record<string, Record<string, unknown>[]> {
  const { byType, add } = collector(limit, header);
  const namesOn = new Map<string, Set<string>>([[t.id, new Set([lower(column.name)])]]);
  for (const x of catalog.state.tables) {
    if (x.id === t.id || x.subtype !== 'WORKSHEET' || !catalog.canRead(user, x)) continue;
    const names = columnsReading(x, t, column);
    if (!names.length) continue;
    namesOn.set(x.id, new Set(names));
    add('LOGICAL_TABLE', x);
  }
  for (const bk of catalog.state.books) {
    const uses = bk.visualizations.some((v) => {
      const names = namesOn.get(v.dataSource);
      return names !== undefined && queryUses(v.query, names);
    });
    if (uses && catalog.canRead(user, bk)) add(bk.type, bk);
  }
  return byType;
}
