/**
 * The formulas of a worksheet or model definition (modelTml.ts `ModelDefinition`) checked by the formula
 * language (common/src/formula/checker.ts `checkFormulaSet`) against the model's own columns — each
 * `column_id` column with the data type of the table column it reads (unknown without a catalog) — and
 * each other: a formula names the model's columns as a search does (`[Delay]`, any case). Each formula's
 * value (type, aggregation) and each error as a problem on `formulas[i].expr`, naming the formula.
 * Pure: no I/O.
 */
import { checkFormulaSet, type FormulaValue } from '../formula/checker';
import { splitColumnPath } from '../language/keywords';
import type { Column, ColumnDataType } from '../model';
import type { ModelDefinition, ModelProblem, TableColumnsOf } from './modelTml';

/** The formulas of a definition checked: `values[i]` that of `def.formulas[i]`, and the problems of all. */
export interface ModelFormulaCheck {
  values: FormulaValue[];
  problems: ModelProblem[];
}

/**
 * The model's columns a formula may name: the `column_id` columns, each with its table column's data type
 * (`columnsOf`; `UNKNOWN` where the table or its column is not known). Formula columns are left out: the
 * formula set names the formulas themselves.
 */
function modelColumns(def: ModelDefinition, columnsOf: TableColumnsOf): Column[] {
  const lower = (s: string): string => s.trim().toLowerCase();
  return def.columns.flatMap((c): Column[] => {
    if (c.formulaId !== undefined || c.columnId === undefined) return [];
    const { path, column } = splitColumnPath(c.columnId);
    const tp = def.tablePaths.find((p) => path !== undefined && lower(p.id) === lower(path));
    const table = tp && def.tables.find((t) => lower(t.id) === lower(tp.table));
    const src = table ? columnsOf(table.name, table.fqn)?.find((x) => lower(x.name) === lower(column)) : undefined;
    return [{ name: c.name, dataType: src?.dataType ?? ('UNKNOWN' as ColumnDataType), kind: c.kind ?? 'ATTRIBUTE', ...(c.synonyms ? { synonyms: c.synonyms } : {}) }];
  });
}

/**
 * Checks the formulas of `def` (see the file comment). A formula is known by its id and by the name of
 * the column that shows it (else its own name). Errors only: a checker's warning is no problem of the definition.
 */
export function checkModelFormulas(def: ModelDefinition, columnsOf: TableColumnsOf): ModelFormulaCheck {
  const lower = (s: string): string => s.trim().toLowerCase();
  const columnName = (id: string): string | undefined => def.columns.find((c) => c.formulaId !== undefined && lower(c.formulaId) === lower(id))?.name;
  // the column's name is the one a search and the other formulas write (the formula's id names it too)
  const entries = def.formulas.map((f) => ({ id: f.id, name: columnName(f.id) ?? f.name, expr: f.expr }));
  const checked = checkFormulaSet(entries, modelColumns(def, columnsOf));
  const problems: ModelProblem[] = [];
  def.formulas.forEach((f, i) => {
    const error = checked[i]!.diagnostics.find((d) => d.severity === 'error');
    if (error) problems.push({ path: [def.kind, 'formulas', i, 'expr'], message: `formula ${f.name} (${f.expr}): ${error.message}` });
  });
  return { values: def.formulas.map((_, i) => checked[i]!.value), problems };
}
