/**
 * The formulas of a worksheet or model definition (modelTml.ts `ModelDefinition`) checked by the formula
 * language (common/src/formula/checker.ts `checkFormulaSet`) against the model's own columns — each
 * `column_id` column with the data type of the table column it reads (unknown without a catalog) — and
 * each other: a formula names the model's columns as a search does (`[Delay]`, `[airports_1::city]`).
 * Each formula's value (type, aggregation) and each error as a problem on `formulas[i].expr`, naming it.
 * Pure: no I/O.
 */
import { checkFormulaSet, columnScope, type FormulaScope, type FormulaValue } from '../formula/checker';
import type { FormulaDiagnostic } from '../formula/diagnostics';
import { splitColumnPath } from '../language/keywords';
import type { Column, ColumnDataType } from '../model';
import type { ModelDefinition, ModelProblem, TableColumnsOf } from './modelTml';

/** A formula's error: on `formulas[i].expr`, with the checker's diagnostic (offsets into the expression, code, suggestions). */
export interface ModelFormulaProblem extends ModelProblem {
  diagnostic: FormulaDiagnostic;
}

/** The formulas of a definition checked: `values[i]` that of `def.formulas[i]`, and the problems of all. */
export interface ModelFormulaCheck {
  values: FormulaValue[];
  problems: ModelFormulaProblem[];
}

const lower = (s: string): string => s.trim().toLowerCase();

/**
 * The model's columns a formula may name: the `column_id` columns, each with its table column's data type
 * (`columnsOf`; `UNKNOWN` where the table or its column is not known). Formula columns are left out: the
 * formula set names the formulas themselves.
 */
function modelColumns(def: ModelDefinition, columnsOf: TableColumnsOf): { column: Column; path?: string; source: string }[] {
  return def.columns.flatMap((c) => {
    if (c.formulaId !== undefined || c.columnId === undefined) return [];
    const { path, column } = splitColumnPath(c.columnId);
    const tp = def.tablePaths.find((p) => path !== undefined && lower(p.id) === lower(path));
    const table = tp && def.tables.find((t) => lower(t.id) === lower(tp.table));
    const src = table ? columnsOf(table.name, table.fqn)?.find((x) => lower(x.name) === lower(column)) : undefined;
    const model: Column = { name: c.name, dataType: src?.dataType ?? ('UNKNOWN' as ColumnDataType), kind: c.kind ?? 'ATTRIBUTE', ...(c.synonyms ? { synonyms: c.synonyms } : {}) };
    return [{ column: model, ...(tp ? { path: lower(tp.id) } : {}), source: lower(column) }];
  });
}

/**
 * The scope of a model's formulas: a column by the model's name for it; `[path::column]` (a table path
 * id) the model's column reading that path's column, as a search reads it (docs/service-notes.md §9);
 * another prefix is read by the column's name alone, as `columnScope` does.
 */
function modelScope(columns: readonly { column: Column; path?: string; source: string }[]): FormulaScope {
  const byName = columnScope(columns.map((c) => c.column));
  const paths = new Set(columns.flatMap((c) => (c.path ? [c.path] : [])));
  return {
    column(name, table) {
      if (table === undefined || !paths.has(lower(table))) return byName.column(name);
      const c = columns.find((x) => x.path === lower(table) && x.source === lower(name));
      return c ? byName.column(c.column.name) : undefined;
    },
    names: () => byName.names(),
  };
}

/**
 * The formulas of `def` as the formula set names them: each by its id and by the name of the column that
 * shows it (`formula_id`), else its own name — the name a search and the other formulas write.
 */
export function modelFormulaEntries(def: ModelDefinition): { id: string; name: string; expr: string }[] {
  const columnName = (id: string): string | undefined => def.columns.find((c) => c.formulaId !== undefined && lower(c.formulaId) === lower(id))?.name;
  return def.formulas.map((f) => ({ id: f.id, name: columnName(f.id) ?? f.name, expr: f.expr }));
}

/**
 * The model's columns a formula of `def` may name (its `column_id` columns, each with its table column's
 * data type from `columnsOf`, `UNKNOWN` where not known), for completion and hover inside an `expr`.
 */
export function modelFormulaColumns(def: ModelDefinition, columnsOf: TableColumnsOf): Column[] {
  return modelColumns(def, columnsOf).map((c) => c.column);
}

/**
 * Checks the formulas of `def` (see the file comment): a problem for each error of each formula. A formula
 * is known by its id and by the name of the column that shows it (else its own name). A checker's warning
 * is no problem of the definition.
 */
export function checkModelFormulas(def: ModelDefinition, columnsOf: TableColumnsOf): ModelFormulaCheck {
  const entries = modelFormulaEntries(def);
  const columns = modelColumns(def, columnsOf);
  const checked = checkFormulaSet(entries, columns.map((c) => c.column), modelScope(columns));
  const problems: ModelFormulaProblem[] = [];
  def.formulas.forEach((f, i) => {
    for (const d of checked[i]!.diagnostics) {
      if (d.severity === 'error') problems.push({ path: [def.kind, 'formulas', i, 'expr'], message: `formula ${f.name} (${f.expr}): ${d.message}`, diagnostic: d });
    }
  });
  return { values: def.formulas.map((_, i) => checked[i]!.value), problems };
}
