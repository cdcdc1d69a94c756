/**
 * The columns an answer's search may name, as clusters export Answer TML (docs/service-notes.md "TML as
 * clusters export it"): the columns of every data source of its `tables` (a column may come from any of
 * them) and the answer's own `formulas`, each a column by its `id` (exported searches write
 * `[formula_<name>]`, the id) and by its `name`. Given as a view of the catalog in which the first data
 * source answers the columns of them all, so that the one language service checks, completes and hovers
 * the embedded search as a `.tsq` query over that one data source.
 *
 * Pure: no `vscode`, no LSP server, no HTTP (the catalog is the language service's).
 */
import { isKnownDataType, type Column, type ColumnDataType, type DataSourceColumns } from '../model';
import type { CancellationLike, CatalogProvider } from '../languageService/types';
import { checkFormulaSet, dataTypeOf, type FormulaValue } from '../formula/checker';
import { recordOr } from '../guards';

/**
 * The data type of a formula whose `properties` give none: not one of COLUMN_DATA_TYPES, so that
 * `isKnownDataType` is false of it and the language service makes no type-based diagnostic on it
 * (common/src/languageService/validation.ts) — never a false error. Hover and completion show it as is.
 */
export const UNKNOWN_FORMULA_TYPE = 'UNKNOWN' as unknown as ColumnDataType;

/** One entry of an answer's `formulas` as the TML holds it (`{id, name, expr, properties, was_auto_generated}`). */
export interface FormulaTmlEntry {
  id?: unknown;
  name?: unknown;
  expr?: unknown;
  properties?: unknown;
}

/**
 * One entry of an answer's `formulas` (`{id, name, expr, properties: {column_type, aggregation,
 * data_type}, was_auto_generated}`) as a column: named by `name` (or `id` when it has no name), the
 * other spelling a synonym; `kind` from `properties.column_type` (else MEASURE when `properties.aggregation`
 * is given or the expression aggregates, else ATTRIBUTE); `dataType` from `properties.data_type` when it
 * is a column data type, else the type its expression gives (`value`, common/src/formula/checker.ts),
 * else `UNKNOWN_FORMULA_TYPE`; the description names the expression. Undefined for an entry with neither
 * `id` nor `name`.
 */
export function formulaColumn(entry: FormulaTmlEntry, value?: FormulaValue): Column | undefined {
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  const id = text(entry.id);
  const name = text(entry.name) ?? id;
  if (!name) return undefined;
  const props = recordOr(entry.properties);
  const kind = props.column_type === 'ATTRIBUTE' || props.column_type === 'MEASURE' ? props.column_type : props.aggregation !== undefined || value?.aggregate ? 'MEASURE' : 'ATTRIBUTE';
  const expr = text(entry.expr);
  const typed = value && dataTypeOf(value.type);
  return {
    name,
    dataType: isKnownDataType(props.data_type) ? props.data_type : typed ?? UNKNOWN_FORMULA_TYPE,
    kind,
    description: `Formula of this answer${expr ? `: ${expr}` : ''}`,
    ...(id && id.toLowerCase() !== name.toLowerCase() ? { synonyms: [id] } : {}),
  };
}

/**
 * The formula columns of an answer's `formulas` entries, each typed from its expression against the
 * data sources' `columns` and the other formulas (`checkFormulaSet`); an entry with neither id nor
 * name is left out.
 */
export function typedFormulaColumns(entries: readonly FormulaTmlEntry[], columns: readonly Column[]): Column[] {
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  const checked = checkFormulaSet(entries.map((e) => ({ id: text(e.id), name: text(e.name), expr: typeof e.expr === 'string' ? e.expr : '' })), columns);
  return entries.flatMap((e, i) => {
    const c = formulaColumn(e, checked[i]!.value);
    return c ? [c] : [];
  });
}

/**
 * The catalog as an answer's search sees it: `refs` are its data sources (`tables`, each by GUID or
 * name; the first is the one the embedded query names), `formulas` its formula columns (typed from
 * their expressions against the data sources' columns when `entries`, the TML's `formulas`, are given:
 * `typedFormulaColumns`). `getColumns`
 * of the first answers the formulas, then the columns of every data source of `refs` in order, a name
 * (in any case) kept once, the first time it comes; null when the first is unknown to the service,
 * undefined when another is, or when any is unknown right now (no semantic diagnostic then, never a false one). Values of a
 * column come from the first data source that has it. Anything else is the catalog's own answer.
 */
export function answerCatalog(base: CatalogProvider, refs: readonly string[], formulas: readonly Column[], entries?: readonly FormulaTmlEntry[]): CatalogProvider {
  const first = refs[0]?.toLowerCase();
  const isFirst = (ds: string): boolean => ds.toLowerCase() === first;
  const all = async (token?: CancellationLike): Promise<(DataSourceColumns | null | undefined)[]> => Promise.all(refs.map((r) => base.getColumns(r, token)));
  // the formulas typed once per answer of the catalog (the language service asks for the columns at every reference)
  let typed: { answers: (DataSourceColumns | null | undefined)[]; columns: Column[] } | undefined;
  const formulaColumns = (answers: (DataSourceColumns | null | undefined)[], sourceColumns: Column[]): readonly Column[] => {
    if (!entries) return formulas;
    if (!typed || typed.answers.length !== answers.length || typed.answers.some((a, i) => a !== answers[i])) typed = { answers, columns: typedFormulaColumns(entries, sourceColumns) };
    return typed.columns;
  };
  const view: CatalogProvider = {
    getDataSources: (token) => base.getDataSources(token),
    async getColumns(ds, token) {
      if (!isFirst(ds)) return base.getColumns(ds, token);
      const answers = await all(token);
      const head = answers[0];
      if (!head) return head;
      // another data source unknown now, or not of the connection (reported on its own entry): the columns it
      // would bring are unknown, so no column is judged
      if (answers.some((a) => !a)) return undefined;
      const seen = new Set<string>();
      const columns: Column[] = [];
      const sourceColumns = answers.flatMap((a) => a?.columns ?? []);
      for (const c of [...formulaColumns(answers, sourceColumns), ...sourceColumns]) {
        const key = c.name.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        columns.push(c);
      }
      return { id: head.id, name: head.name, columns };
    },
    async getColumnValues(ds, column, prefix, token) {
      if (!isFirst(ds)) return base.getColumnValues(ds, column, prefix, token);
      const answers = await all(token);
      const i = answers.findIndex((a) => a?.columns.some((c) => c.name.toLowerCase() === column.toLowerCase()));
      return i < 0 ? [] : base.getColumnValues(refs[i]!, column, prefix, token);
    },
  };
  if (base.getCalendars) view.getCalendars = (token) => base.getCalendars!(token);
  return view;
}
