/**
 * The formula language's lexer and parser (https://docs.thoughtspot.com/cloud/latest/formula-reference):
 * `if … then … else`, `and`/`or`/`not`, `in {…}`, comparisons, arithmetic, text, number and date
 * literals, `[column]` and `[table::column]` references (and the reference's bare column words), `{…}`
 * lists and function calls. Lossless tokens (their texts give the formula back) and an AST with offsets;
 * recovery: a missing operand or `)` is a `missing` node with a diagnostic, the rest is still read.
 *
 * Pure: no I/O.
 */
import { FORMULA_FUNCTION_BY_NAME, INFIX_LEVELS, WORD_OPERATORS } from './functions';
import { FORMULA_CODES, type FormulaDiagnostic } from './diagnostics';

/** Token kinds of the formula lexer. */
export type FormulaTokenKind = 'ws' | 'number' | 'string' | 'date' | 'column' | 'word' | 'punct' | 'stray';

/** One token: its kind, its text and where it starts (UTF-16 offset in the formula); `closed` for a string or column. */
export interface FormulaToken {
  kind: FormulaTokenKind;
  text: string;
  start: number;
  closed?: boolean;
}

/** An AST node with its offsets [start, end) in the formula. */
export type FormulaNode = { start: number; end: number } & (
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  /** A date literal `MM/dd/yyyy` (with ` HH:mm[:ss]`): `value` ISO `yyyy-MM-dd[ HH:mm:ss]`. */
  | { kind: 'date'; value: string; withTime: boolean }
  /** `[name]`, `[table::name]`, or bare words (`bracketed` false: the reference's `sum (revenue)`). */
  | { kind: 'column'; name: string; table?: string; bracketed: boolean }
  | { kind: 'call'; name: string; nameEnd: number; args: FormulaNode[] }
  | { kind: 'binary'; op: string; left: FormulaNode; right: FormulaNode }
  | { kind: 'unary'; op: '-' | 'not'; operand: FormulaNode }
  | { kind: 'if'; condition: FormulaNode; then: FormulaNode; else: FormulaNode }
  | { kind: 'in'; value: FormulaNode; list: FormulaNode; negated: boolean }
  | { kind: 'list'; items: FormulaNode[] }
  | { kind: 'missing' }
);

/** A parsed formula: its tokens, its AST and its syntax diagnostics. */
export interface ParsedFormula {
  text: string;
  tokens: FormulaToken[];
  ast: FormulaNode;
  diagnostics: FormulaDiagnostic[];
}

/** The words that are operators or literals, never part of a column or function name. */
const KEYWORDS = new Set([...WORD_OPERATORS, 'then', 'else', 'true', 'false', 'null']);
/** Two-character operators (read before their first character alone). */
const PUNCT2 = INFIX_LEVELS.flat().filter((op) => op.length === 2 && !/^[a-z]+$/.test(op));
/** Nesting beyond this depth is reported and not read (a stranger's file must not exhaust the stack). */
export const MAX_FORMULA_DEPTH = 100;

const DATE_RE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?/;

/** The tokens of a formula; concatenating their texts gives `text` back exactly. */
export function lexFormula(text: string): FormulaToken[] {
  const out: FormulaToken[] = [];
  let i = 0;
  const push = (kind: FormulaTokenKind, end: number, closed?: boolean): void => {
    out.push({ kind, text: text.slice(i, end), start: i, ...(closed !== undefined ? { closed } : {}) });
    i = end;
  };
  while (i < text.length) {
    const c = text[i]!;
    const rest = text.slice(i, i + 24);
    if (/\s/.test(c)) {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      push('ws', j);
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      push('string', Math.min(j + 1, text.length), j < text.length);
    } else if (c === '[') {
      const j = text.indexOf(']', i + 1);
      push('column', j < 0 ? text.length : j + 1, j >= 0);
    } else if (/\d/.test(c) && DATE_RE.test(rest)) {
      push('date', i + DATE_RE.exec(text.slice(i, i + 32))![0].length);
    } else if (/[\d.]/.test(c) && /^\d*\.?\d+(?:[eE][+-]?\d+)?|^\d+\./.test(rest)) {
      push('number', i + /^\d*\.?\d+(?:[eE][+-]?\d+)?|^\d+\./.exec(text.slice(i, i + 64))![0].length);
    } else if (/[\p{L}_#]/u.test(c)) {
      let j = i + 1;
      while (j < text.length && /[\p{L}\p{N}_#.]/u.test(text[j]!)) j++;
      push('word', j);
    } else if (PUNCT2.includes(text.slice(i, i + 2))) push('punct', i + 2);
    else if ('(){},+-*/^=<>'.includes(c)) push('punct', i + 1);
    else push('stray', i + 1);
  }
  return out;
}

/** The recursive-descent parser over the significant tokens. */
class FormulaParser {
  private pos = 0;
  private depth = 0;
  readonly diagnostics: FormulaDiagnostic[] = [];
  constructor(private readonly toks: FormulaToken[], private readonly length: number) {}

  private peek(k = 0): FormulaToken | undefined { return this.toks[this.pos + k]; }
  private end(t: FormulaToken): number { return t.start + t.text.length; }
  private at(): number { return this.peek()?.start ?? this.length; }
  private lastEnd(): number { const t = this.toks[this.pos - 1]; return t ? this.end(t) : 0; }
  private isWord(w: string, k = 0): boolean { const t = this.peek(k); return t?.kind === 'word' && t.text.toLowerCase() === w; }
  private isPunct(p: string, k = 0): boolean { const t = this.peek(k); return t?.kind === 'punct' && t.text === p; }
  private report(start: number, end: number, message: string, code: FormulaDiagnostic['code'] = FORMULA_CODES.syntax): void {
    // one error at a place: what goes missing after a missing operand (`)`, `else`) is not said again
    const last = this.diagnostics[this.diagnostics.length - 1];
    if (last && last.start === start && last.code === code) return;
    this.diagnostics.push({ start, end, message, code, severity: 'error' });
  }
  private missing(what: string): FormulaNode {
    const t = this.peek();
    const at = this.at();
    this.report(at, t ? this.end(t) : at, t ? `Expected ${what}, found ${t.text}.` : `Expected ${what} at the end of the formula.`);
    return { kind: 'missing', start: at, end: at };
  }
  private expect(p: string, what: string): boolean {
    if (this.isPunct(p) || this.isWord(p)) { this.pos++; return true; }
    this.missing(what);
    return false;
  }

  /** The whole formula: one expression, then nothing. */
  parseAll(): FormulaNode {
    const ast = this.expression();
    if (this.peek()) {
      const t = this.peek()!;
      this.report(t.start, this.length, `Unexpected ${t.text} after the end of the expression.`);
    }
    return ast;
  }

  expression(): FormulaNode {
    if (this.depth >= MAX_FORMULA_DEPTH) {
      const at = this.at();
      this.report(at, this.length, `The formula nests deeper than ${MAX_FORMULA_DEPTH} levels: not read further.`, FORMULA_CODES.tooDeep);
      this.pos = this.toks.length;
      return { kind: 'missing', start: at, end: at };
    }
    this.depth++;
    try {
      return this.isWord('if') ? this.conditional() : this.binary(0);
    } finally {
      this.depth--;
    }
  }

  private conditional(): FormulaNode {
    const start = this.at();
    this.pos++;
    const condition = this.expression();
    this.expect('then', '`then`');
    const then = this.expression();
    // `else` is written in every documented example; a formula without it is read as `else null`
    const otherwise = this.isWord('else') ? (this.pos++, this.expression()) : this.missing('`else`');
    return { kind: 'if', condition, then, else: otherwise, start, end: this.lastEnd() };
  }

  /** Binary operators by precedence level: or, and, comparison/in, additive, multiplicative, power. */
  private static readonly LEVELS = INFIX_LEVELS;

  private operatorAt(level: number): string | undefined {
    const t = this.peek();
    if (!t) return undefined;
    const op = t.kind === 'word' ? t.text.toLowerCase() : t.kind === 'punct' ? t.text : undefined;
    if (level === 2 && op === 'not' && this.isWord('in', 1)) return 'not in';
    return op !== undefined && FormulaParser.LEVELS[level]!.includes(op) ? op : undefined;
  }

  private binary(level: number): FormulaNode {
    if (level >= FormulaParser.LEVELS.length) return this.unary();
    let left = level === 2 && this.isWord('not') ? this.notExpr() : this.binary(level + 1);
    for (let op = this.operatorAt(level); op; op = this.operatorAt(level)) {
      this.pos += op === 'not in' ? 2 : 1;
      if (op === 'in' || op === 'not in') {
        const list = this.unary();
        left = { kind: 'in', value: left, list, negated: op === 'not in', start: left.start, end: this.lastEnd() };
        continue;
      }
      // `^` is right-associative; the rest left-associative
      const right = op === '^' ? this.binary(level) : this.binary(level + 1);
      left = { kind: 'binary', op: op === '<>' ? '!=' : op, left, right, start: left.start, end: Math.max(right.end, this.lastEnd()) };
    }
    return left;
  }

  private notExpr(): FormulaNode {
    const start = this.at();
    this.pos++;
    this.depth++;
    const operand = this.depth >= MAX_FORMULA_DEPTH ? this.expression() : this.binary(2);
    this.depth--;
    return { kind: 'unary', op: 'not', operand, start, end: this.lastEnd() };
  }

  private unary(): FormulaNode {
    if (this.isPunct('-') || this.isPunct('+')) {
      const start = this.at();
      const neg = this.isPunct('-');
      this.pos++;
      this.depth++;
      const operand = this.depth >= MAX_FORMULA_DEPTH ? this.expression() : this.unary();
      this.depth--;
      if (!neg) return operand;
      return operand.kind === 'number' ? { ...operand, value: -operand.value, start } : { kind: 'unary', op: '-', operand, start, end: this.lastEnd() };
    }
    if (this.isWord('not')) return this.notExpr();
    return this.primary();
  }

  private primary(): FormulaNode {
    const t = this.peek();
    if (!t) return this.missing('a value');
    const start = t.start;
    if (t.kind === 'number') { this.pos++; return { kind: 'number', value: Number(t.text), start, end: this.end(t) }; }
    if (t.kind === 'string') {
      this.pos++;
      if (!t.closed) this.report(start, this.end(t), `The text ${t.text} has no closing ${t.text[0]}.`);
      return { kind: 'string', value: t.text.slice(1, t.closed ? -1 : undefined).replace(/\\(.)/g, '$1'), start, end: this.end(t) };
    }
    if (t.kind === 'date') { this.pos++; return dateNode(t); }
    if (t.kind === 'column') { this.pos++; return this.columnRef(t); }
    if (t.kind === 'punct' && t.text === '(') {
      this.pos++;
      const inner = this.expression();
      this.expect(')', '`)`');
      return inner;
    }
    if (t.kind === 'punct' && t.text === '{') return this.list();
    if (t.kind === 'word') return this.words();
    if (t.kind === 'stray') {
      this.pos++;
      this.report(start, this.end(t), `The character ${t.text} starts nothing in a formula.`);
      return this.primary();
    }
    return this.missing('a value');
  }

  private columnRef(t: FormulaToken): FormulaNode {
    const inner = t.text.slice(1, t.closed ? -1 : undefined);
    if (!t.closed) this.report(t.start, this.end(t), `The column ${t.text} has no closing ].`);
    const sep = inner.indexOf('::');
    const name = (sep < 0 ? inner : inner.slice(sep + 2)).trim();
    if (!name) this.report(t.start, this.end(t), 'A column reference with no name.');
    return { kind: 'column', name, ...(sep >= 0 ? { table: inner.slice(0, sep).trim() } : {}), bracketed: true, start: t.start, end: this.end(t) };
  }

  private list(): FormulaNode {
    const start = this.at();
    this.pos++;
    const items: FormulaNode[] = [];
    while (this.peek() && !this.isPunct('}')) {
      items.push(this.expression());
      if (!this.isPunct(',')) break;
      this.pos++;
    }
    this.expect('}', '`}`');
    return { kind: 'list', items, start, end: this.lastEnd() };
  }

  /** Consecutive words: a keyword literal, a call (`unique count (…)`), or a bare column name. */
  private words(): FormulaNode {
    const first = this.peek()!;
    const lower = first.text.toLowerCase();
    if (lower === 'true' || lower === 'false') { this.pos++; return { kind: 'bool', value: lower === 'true', start: first.start, end: this.end(first) }; }
    if (lower === 'null') { this.pos++; return { kind: 'null', start: first.start, end: this.end(first) }; }
    if (KEYWORDS.has(lower)) return this.missing('a value');
    const words: FormulaToken[] = [];
    while (this.peek()?.kind === 'word' && !KEYWORDS.has(this.peek()!.text.toLowerCase())) {
      words.push(this.peek()!);
      this.pos++;
      // a known function name ends the words when a `(` follows it (`order date (` is not a call)
      if (this.isPunct('(')) break;
    }
    const last = words[words.length - 1]!;
    if (this.isPunct('(')) {
      // `unique count (`: the words make the name when they are a function; else only the last word is
      const joined = words.map((w) => w.text).join(' ');
      const callWords = FORMULA_FUNCTION_BY_NAME.has(joined.toLowerCase()) || words.length === 1 ? words : [last];
      if (callWords.length !== words.length) this.report(first.start, last.start, `Unexpected ${words.slice(0, -1).map((w) => w.text).join(' ')} before ${last.text} (.`);
      return this.call(callWords);
    }
    return { kind: 'column', name: words.map((w) => w.text).join(' '), bracketed: false, start: first.start, end: this.end(last) };
  }

  private call(words: FormulaToken[]): FormulaNode {
    const start = words[0]!.start;
    const nameEnd = this.end(words[words.length - 1]!);
    this.pos++; // (
    const args: FormulaNode[] = [];
    if (!this.isPunct(')')) {
      for (;;) {
        args.push(this.expression());
        if (!this.isPunct(',')) break;
        this.pos++;
      }
    }
    this.expect(')', '`)` or `,`');
    return { kind: 'call', name: words.map((w) => w.text).join(' '), nameEnd, args, start, end: this.lastEnd() };
  }
}

/** The node of a date literal token (`MM/dd/yyyy[ HH:mm[:ss]]`, the reference's examples). */
function dateNode(t: FormulaToken): FormulaNode {
  const m = DATE_RE.exec(t.text)!;
  const p = (s: string | undefined, n = 2): string => (s ?? '0').padStart(n, '0');
  const day = `${m[3]}-${p(m[1])}-${p(m[2])}`;
  const withTime = m[4] !== undefined;
  return { kind: 'date', value: withTime ? `${day} ${p(m[4])}:${p(m[5])}:${p(m[6])}` : day, withTime, start: t.start, end: t.start + t.text.length };
}

/** Parses a formula: never throws; every problem is a diagnostic with offsets into `text`. */
export function parseFormula(text: string): ParsedFormula {
  const tokens = lexFormula(text);
  const significant = tokens.filter((t) => t.kind !== 'ws');
  const parser = new FormulaParser(significant, text.length);
  const ast = significant.length === 0 ? { kind: 'missing' as const, start: 0, end: 0 } : parser.parseAll();
  if (significant.length === 0) parser.diagnostics.push({ start: 0, end: text.length, message: 'The formula is empty.', code: FORMULA_CODES.syntax, severity: 'error' });
  return { text, tokens, ast, diagnostics: parser.diagnostics };
}

/** Every node of a subtree, parents before children. */
export function* formulaNodes(node: FormulaNode): Generator<FormulaNode> {
  yield node;
  switch (node.kind) {
    case 'call': for (const a of node.args) yield* formulaNodes(a); break;
    case 'binary': yield* formulaNodes(node.left); yield* formulaNodes(node.right); break;
    case 'unary': yield* formulaNodes(node.operand); break;
    case 'if': yield* formulaNodes(node.condition); yield* formulaNodes(node.then); yield* formulaNodes(node.else); break;
    case 'in': yield* formulaNodes(node.value); yield* formulaNodes(node.list); break;
    case 'list': for (const i of node.items) yield* formulaNodes(i); break;
    default: break;
  }
}
