/**
 * The formula type checker: the type and aggregation of an expression from the function catalogue
 * (functions.ts) and the columns it names, and its errors — unknown function (with a did-you-mean),
 * wrong number of arguments, wrong argument type, an aggregate inside an aggregate (or a row value where
 * the reference wants an aggregate), unknown column, and a formula that refers to itself through others.
 * `checkFormulaSet` checks the formulas of one answer or model together, each a column of the others.
 *
 * Pure: no I/O.
 */
import { isKnownDataType, type Column, type ColumnDataType } from '../model';
import { closest } from '../languageService/validation';
import { CALLABLE_FUNCTION_NAMES, FORMULA_FUNCTION_BY_NAME, type FormulaFunction, type FormulaParam, type FormulaType } from './functions';
import { FORMULA_CODES, type FormulaDiagnostic } from './diagnostics';
import { formulaNodes, parseFormula, type FormulaNode, type ParsedFormula } from './parser';

/** What an expression gives: its type and whether it aggregates (one value per group of the search). */
export interface FormulaValue {
  type: FormulaType;
  aggregate: boolean;
}

/** The columns a formula may name: by name (any case; `table` the `[table::column]` prefix, when written). */
export interface FormulaScope {
  column(name: string, table?: string): FormulaValue | undefined;
  /** Every name, for the did-you-mean of an unknown column. */
  names(): readonly string[];
}

/** The formula type of a column data type (`any` for an unknown one). */
export function formulaTypeOf(dataType: ColumnDataType | string): FormulaType {
  switch (dataType) {
    case 'VARCHAR': case 'CHAR': return 'text';
    case 'BOOL': return 'bool';
    case 'INT32': case 'INT64': return 'int';
    case 'FLOAT': case 'DOUBLE': return 'number';
    case 'DATE': return 'date';
    case 'DATE_TIME': return 'datetime';
    case 'TIME': return 'time';
    default: return 'any';
  }
}

/** The column data type of a formula type (undefined for `any` and the types no column holds). */
export function dataTypeOf(type: FormulaType): ColumnDataType | undefined {
  const map: Partial<Record<FormulaType, ColumnDataType>> = { text: 'VARCHAR', bool: 'BOOL', int: 'INT64', number: 'DOUBLE', date: 'DATE', datetime: 'DATE_TIME', time: 'TIME' };
  return map[type];
}

/**
 * A scope over the columns of data sources (`[table::column]` takes any table: the column is what is
 * checked). With `columns` undefined (the data sources unknown now) no column is unknown: each is `any`.
 * A column that is itself an aggregating formula (`formula.aggregate`, a model's) aggregates.
 */
export function columnScope(columns: readonly (Column & { formula?: { aggregate: boolean } })[] | undefined): FormulaScope {
  if (!columns) return { column: () => ({ type: 'any', aggregate: false }), names: () => [] };
  const byName = new Map<string, FormulaValue>();
  for (const c of columns) {
    const v = { type: isKnownDataType(c.dataType) ? formulaTypeOf(c.dataType) : 'any' as const, aggregate: c.formula?.aggregate === true };
    for (const n of [c.name, ...(c.synonyms ?? [])]) if (!byName.has(n.toLowerCase())) byName.set(n.toLowerCase(), v);
  }
  return { column: (name) => byName.get(name.toLowerCase()), names: () => columns.map((c) => c.name) };
}

/** Whether a value of type `got` fits a parameter of types `want`. */
function fits(got: FormulaType, want: readonly (FormulaType | 'T')[]): boolean {
  if (got === 'any' || want.includes('any') || want.includes('T') || want.includes(got)) return true;
  if (got === 'int' && want.includes('number')) return true;
  if (got === 'number' && want.includes('int')) return true; // a whole number is not known until run
  if (got === 'text' && (want.includes('order') || want.includes('calendar'))) return true;
  return false;
}

/** The unification of two types of a `T` parameter (`any` when they differ, int and number give number). */
function unify(a: FormulaType | undefined, b: FormulaType): FormulaType {
  if (a === undefined || a === 'any') return b;
  if (b === 'any' || a === b) return a;
  if ((a === 'int' && b === 'number') || (a === 'number' && b === 'int')) return 'number';
  if ((a === 'date' || a === 'datetime') && (b === 'date' || b === 'datetime')) return 'datetime';
  return 'any';
}

/** Types `T` arguments must share to be compared (`=` on a text and a number is a type error). */
function comparable(a: FormulaType, b: FormulaType): boolean {
  if (a === 'any' || b === 'any' || a === b) return true;
  const family = (t: FormulaType): string => (t === 'int' || t === 'number' ? 'n' : t === 'date' || t === 'datetime' ? 'd' : t);
  return family(a) === family(b);
}

/** The params of `f` that `n` arguments bind to, or undefined when `n` is not a number it takes. */
function bind(f: FormulaFunction, n: number): FormulaParam[] | undefined {
  const required = f.params.filter((p) => !p.optional).length;
  const repeat = f.params.find((p) => p.repeat);
  if (n < required || (!repeat && n > f.params.length)) return undefined;
  const out: FormulaParam[] = [];
  let optionalLeft = n - required;
  for (const p of f.params) {
    if (p.repeat) {
      const count = n - out.length - f.params.slice(f.params.indexOf(p) + 1).filter((q) => !q.optional).length;
      for (let k = 0; k < count; k++) out.push(p);
    } else if (!p.optional) out.push(p);
    else if (optionalLeft-- > 0) out.push(p);
  }
  return out.length === n ? out : undefined;
}

/** How many arguments `f` takes, in words. */
function arityText(f: FormulaFunction): string {
  const min = f.params.filter((p) => !p.optional).length;
  if (f.params.some((p) => p.repeat)) return `${min} or more arguments`;
  const max = f.params.length;
  return min === max ? `${min} argument${min === 1 ? '' : 's'}` : `${min} to ${max} arguments`;
}

/** Type-checks one AST against a scope, writing diagnostics into `out`. */
class Checker {
  constructor(private readonly scope: FormulaScope, private readonly out: FormulaDiagnostic[]) {}

  private report(node: { start: number; end: number }, code: FormulaDiagnostic['code'], message: string, suggestions?: string[]): void {
    this.out.push({ start: node.start, end: node.end, message, code, severity: 'error', ...(suggestions?.length ? { suggestions } : {}) });
  }

  value(node: FormulaNode): FormulaValue {
    switch (node.kind) {
      case 'number': return { type: Number.isInteger(node.value) ? 'int' : 'number', aggregate: false };
      case 'string': return { type: 'text', aggregate: false };
      case 'bool': return { type: 'bool', aggregate: false };
      case 'null': case 'missing': return { type: 'any', aggregate: false };
      case 'date': return { type: node.withTime ? 'datetime' : 'date', aggregate: false };
      case 'column': return this.column(node);
      case 'list': {
        const items = node.items.map((i) => this.value(i));
        return { type: 'list', aggregate: items.some((i) => i.aggregate) };
      }
      case 'unary': return this.apply(node.op === 'not' ? 'not' : '-', node, [node.operand], node.op === '-' ? [{ kind: 'number', value: 0, start: node.start, end: node.start }, node.operand] : undefined);
      case 'binary': {
        // `query_groups () + {column}` / `- {column}`: list arithmetic of group_aggregate (aggregate.adoc)
        if ((node.op === '+' || node.op === '-') && (isList(node.left) || isList(node.right))) {
          const items = [this.value(node.left), this.value(node.right)];
          for (const [i, side] of [node.left, node.right].entries()) if (items[i]!.type !== 'list' && items[i]!.type !== 'any') this.report(side, FORMULA_CODES.argumentType, `The operator ${node.op} of lists takes a list in { }, not ${items[i]!.type}${describe(side)}.`);
          return { type: 'list', aggregate: false };
        }
        return this.apply(node.op, node, [node.left, node.right]);
      }
      case 'in': {
        const v = this.value(node.value);
        const l = this.value(node.list);
        if (l.type !== 'list' && l.type !== 'any') this.report(node.list, FORMULA_CODES.argumentType, `in takes a list of values in { }, not a ${l.type}.`);
        return { type: 'bool', aggregate: v.aggregate || l.aggregate };
      }
      case 'if': return this.apply('if', node, [node.condition, node.then, node.else]);
      case 'call': return this.call(node);
    }
  }

  private column(node: Extract<FormulaNode, { kind: 'column' }>): FormulaValue {
    if (!node.name) return { type: 'any', aggregate: false };
    const found = this.scope.column(node.name, node.table);
    if (found) return found;
    const suggestions = closest(node.name, this.scope.names());
    const shown = node.table ? `${node.table}::${node.name}` : node.name;
    this.report(node, FORMULA_CODES.unknownColumn, `Unknown column [${shown}]${suggestions.length ? `. Did you mean [${suggestions[0]}]?` : '.'}`, suggestions.map((s) => `[${s}]`));
    return { type: 'any', aggregate: false };
  }

  private call(node: Extract<FormulaNode, { kind: 'call' }>): FormulaValue {
    const f = FORMULA_FUNCTION_BY_NAME.get(node.name.toLowerCase());
    if (!f || f.syntax !== 'call') {
      const suggestions = closest(node.name, CALLABLE_FUNCTION_NAMES);
      for (const a of node.args) this.value(a);
      this.report({ start: node.start, end: node.nameEnd }, FORMULA_CODES.unknownFunction, `Unknown function ${node.name}${suggestions.length ? `. Did you mean ${suggestions[0]}?` : '.'}`, suggestions);
      return { type: 'any', aggregate: false };
    }
    return this.apply(f.name, node, node.args);
  }

  /** Checks a call of catalogue entry `name` with `args` (`typed`: the arguments as typed, when not `args`). */
  private apply(name: string, node: FormulaNode, args: FormulaNode[], typed: FormulaNode[] = args): FormulaValue {
    const f = FORMULA_FUNCTION_BY_NAME.get(name)!;
    const values = args.map((a) => (a.kind === 'column' && !a.bracketed && a.name.toLowerCase() === 'fiscal' ? { type: 'calendar' as const, aggregate: false } : this.value(a)));
    const vals = typed === args ? values : typed.map((t) => (t === args[0] ? values[0]! : { type: 'number' as const, aggregate: false }));
    const params = bind(f, vals.length);
    const label = f.syntax === 'call' ? f.name : `The operator ${f.name === 'if' ? 'if … then … else' : f.name}`;
    if (!params) {
      this.report(node, FORMULA_CODES.arity, `${f.name} takes ${arityText(f)}, not ${vals.length}.`);
      return { type: f.result === 'T' ? 'any' : f.result, aggregate: values.some((v) => v.aggregate) || f.aggregation !== undefined };
    }
    let t: FormulaType | undefined;
    params.forEach((p, i) => {
      const v = vals[i]!;
      const arg = typed[i]!;
      if (p.types.includes('calendar') && arg.kind === 'column' && !arg.bracketed) return; // a calendar's name, unchecked
      if (!fits(v.type, p.types)) this.report(arg, FORMULA_CODES.argumentType, `${label} takes ${p.types.join(' or ')} for ${p.name}, not ${v.type}${describe(arg)}.`);
      if (p.types.includes('T')) {
        if (t !== undefined && !comparable(t, v.type)) this.report(arg, FORMULA_CODES.argumentType, `${label} takes values of one type: ${t} and ${v.type}${describe(arg)}.`);
        t = unify(t, v.type);
      }
      if (p.needs === 'row' && v.aggregate) this.report(arg, FORMULA_CODES.aggregation, `${f.name} aggregates its ${p.name}: it cannot take an aggregate${describe(arg)}.`);
      if (p.needs === 'aggregate' && !v.aggregate && v.type !== 'any') this.report(arg, FORMULA_CODES.aggregation, `${f.name} takes an aggregate for ${p.name} (such as sum (…)), not a row value${describe(arg)}.`);
    });
    const result = f.result === 'T' ? t ?? 'any' : f.result;
    const timeResult = (f.name === 'start_of_hour' || f.name === 'start_of_min') && vals[0] ? (vals[0].type === 'any' ? 'any' : vals[0].type) : result;
    return { type: timeResult, aggregate: f.aggregation !== undefined || values.some((v) => v.aggregate) };
  }
}

/** Whether a node is written as a list: `{…}`, `query_groups ()`, `query_filters ()`. */
function isList(node: FormulaNode): boolean {
  return node.kind === 'list' || (node.kind === 'call' && FORMULA_FUNCTION_BY_NAME.get(node.name.toLowerCase())?.result === 'list');
}

/** ` ([column])`, ` (sum (…))` or '' : the argument named in a message. */
function describe(arg: FormulaNode): string {
  if (arg.kind === 'column') return ` ([${arg.table ? `${arg.table}::` : ''}${arg.name}])`;
  if (arg.kind === 'call') return ` (${arg.name} (…))`;
  return '';
}

/** A checked formula: parsed, its value (type and aggregation) and every diagnostic, offsets into its text. */
export interface CheckedFormula {
  parsed: ParsedFormula;
  value: FormulaValue;
  diagnostics: FormulaDiagnostic[];
}

/** Parses and checks one formula against a scope. */
export function checkFormula(text: string, scope: FormulaScope): CheckedFormula {
  const parsed = parseFormula(text);
  const diagnostics = [...parsed.diagnostics];
  const value = new Checker(scope, diagnostics).value(parsed.ast);
  return { parsed, value, diagnostics };
}

/**
 * Most formulas one formula may reach through others before the rest of the chain is left unchecked (a
 * `formula.tooDeep` error): a stranger's file of long chains must not exhaust the stack.
 */
export const MAX_FORMULA_CHAIN = 32;

/** One formula of an answer or model: its id, name and expression. */
export interface FormulaEntry {
  id?: string;
  name?: string;
  expr: string;
}

/**
 * Checks the formulas of one answer or model together: each a column of the others, by id and by name
 * (a formula shadows no data source column: the data source's comes first; `columns` undefined when the
 * data sources are unknown now, then no column is unknown); a formula that refers to
 * itself, directly or through others, is a `cycle` error on the reference that closes the loop, naming the
 * formulas of the loop. The results in the order of `entries`. `base` reads the columns (by default
 * `columnScope(columns)`; a model's reads `[path::column]` by its table paths).
 */
export function checkFormulaSet(entries: readonly FormulaEntry[], columns: readonly Column[] | undefined, base: FormulaScope = columnScope(columns)): CheckedFormula[] {
  const index = new Map<string, number>();
  const known = columnScope(columns ?? []);
  entries.forEach((e, i) => {
    for (const n of [e.name, e.id]) if (n && !index.has(n.toLowerCase()) && !known.column(n)) index.set(n.toLowerCase(), i);
  });
  const results: (CheckedFormula | undefined)[] = [];
  const state: ('visiting' | 'done' | undefined)[] = [];
  const stack: number[] = [];
  const label = (i: number): string => entries[i]!.name ?? entries[i]!.id ?? `#${i}`;
  let allNames: string[] | undefined;
  const names = (): string[] => (allNames ??= [...base.names(), ...entries.flatMap((e) => (e.name ? [e.name] : e.id ? [e.id] : []))]);
  const visit = (i: number): CheckedFormula => {
    if (results[i]) return results[i]!;
    state[i] = 'visiting';
    stack.push(i);
    const cycles: FormulaDiagnostic[] = [];
    const scope: FormulaScope = {
      column(name, table) {
        const j = index.get(name.toLowerCase());
        if (j === undefined || table) return base.column(name, table);
        if (state[j] === 'visiting') return { type: 'any', aggregate: false, cycle: stack.slice(stack.indexOf(j)).map(label) } as FormulaValue;
        if (state[j] !== 'done' && stack.length >= MAX_FORMULA_CHAIN) return { type: 'any', aggregate: false, deep: true } as FormulaValue;
        return visit(j).value;
      },
      names,
    };
    const checked = checkFormula(entries[i]!.expr, scope);
    checked.value = { type: checked.value.type, aggregate: checked.value.aggregate };
    for (const node of formulaNodes(checked.parsed.ast)) {
      if (node.kind !== 'column') continue;
      const v = scope.column(node.name, node.table) as (FormulaValue & { cycle?: string[]; deep?: boolean }) | undefined;
      if (v?.deep) cycles.push({ start: node.start, end: node.end, code: FORMULA_CODES.tooDeep, severity: 'error', message: `The formula ${label(i)} reaches [${node.name}] through more than ${MAX_FORMULA_CHAIN} formulas: not checked further.` });
      if (v?.cycle) cycles.push({ start: node.start, end: node.end, code: FORMULA_CODES.cycle, severity: 'error', message: `The formula ${label(i)} refers to itself through [${node.name}]: ${[...v.cycle, v.cycle[0]].join(' → ')}.` });
    }
    stack.pop();
    state[i] = 'done';
    const result = { ...checked, diagnostics: [...checked.diagnostics, ...cycles] };
    results[i] = result;
    return result;
  };
  return entries.map((_, i) => visit(i));
}
