/**
 * The diagnostics of the formula language: stable codes (code actions key on them and users silence them
 * with `tsq.diagnostics.disabled`, as the search language's codes; never rename one) and the shape the
 * parser and checker report, offsets into the formula's text.
 */

/** Stable codes of every formula diagnostic. */
export const FORMULA_CODES = {
  /** Text the formula grammar cannot read (a missing operand, `)` or `else`, a stray character). */
  syntax: 'formula.syntax',
  /** Nesting deeper than MAX_FORMULA_DEPTH (parser.ts), or a chain of formulas longer than MAX_FORMULA_CHAIN (checker.ts). */
  tooDeep: 'formula.tooDeep',
  /** A function the formula reference does not list. */
  unknownFunction: 'formula.unknownFunction',
  /** A function given fewer or more arguments than its signature takes. */
  arity: 'formula.arity',
  /** An argument of a type the function does not take (a text passed to `sum`). */
  argumentType: 'formula.argumentType',
  /** An aggregate inside an aggregate (`sum (count (x))`), or a row value where an aggregate is needed (`rank (revenue, 'asc')`). */
  aggregation: 'formula.aggregation',
  /** A column that is neither of the data sources nor another formula. */
  unknownColumn: 'formula.unknownColumn',
  /** A formula that refers to itself, directly or through other formulas. */
  cycle: 'formula.cycle',
} as const;

/** One diagnostic of a formula: offsets [start, end) in its text, a message naming the function or column. */
export interface FormulaDiagnostic {
  start: number;
  end: number;
  message: string;
  code: (typeof FORMULA_CODES)[keyof typeof FORMULA_CODES];
  severity: 'error' | 'warning';
  /** The names a quick fix may write instead of the text at [start, end) (did-you-mean), best first. */
  suggestions?: string[];
}
