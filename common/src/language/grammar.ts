/**
 * The grammar of the search language, declared once (after rust-analyzer's `rust.ungram` and graphiql's
 * `ParseRules`): each production with the tree node kinds it writes, its leading tokens and keywords (its
 * FIRST set) and its parts as an ungrammar rule. Derived from it: the parser's dispatch (parser.ts
 * `ClauseParser.clause`, its tables by keyword id), the tree's node kinds (tree.ts `NODE_KINDS`),
 * the tokens completion expects at a position (languageService/completion.ts) and the children each node
 * kind holds (`NODE_CHILDREN`, the shape typed views read). Extend the language
 * here; test/unit/grammar-once.test.ts checks that nothing is dispatched or expected from elsewhere.
 * The machinery (`defineGrammar`) knows nothing of this language: a second one declares its own table.
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { ColumnDataType } from '../model';
import type { Clause, DateBucket } from './ast';
import {
  AGGREGATIONS, BOOLEAN_VALUES, CALENDAR_TYPES, DATE_BUCKETS, DATE_TYPES, DATE_UNITS, DAY_NAMES, KEYWORDS, MONTH_NAMES, PERIOD_FUNCTIONS,
  QUARTER_NAMES, RANGE_OPERATORS, TO_DATE, WORD_OPERATORS, bucketsFor,
} from './keywords';
import type { TokenKind } from './lexer';

/**
 * One production: `name`, the node kinds it writes (`nodes`, its clause node first), what it starts
 * with (`first`: token kinds, keyword names), its parts (`rule`, ungrammar notation: `'kw'` a keyword,
 * `A?` optional, `A*` repeated, `A | B` alternatives, `Name` another production or a token kind) and
 * what a cursor right after its leading keyword expects (`expects`, for completion). A production that
 * recovers from a missing part writes an `error` node and declares it.
 */
export interface Production<Name extends string = string, Node extends string = string> {
  readonly name: Name;
  readonly nodes: readonly Node[];
  readonly first: { readonly tokens?: readonly TokenKind[]; readonly keywords?: readonly string[] };
  readonly rule: string;
  readonly expects?: 'column' | 'dateUnit';
}

/** A grammar: its productions in the order a parser tries them, and the tables derived from them. */
export interface Grammar<Name extends string, Node extends string> {
  readonly productions: readonly Production<Name, Node>[];
  /** The productions a keyword may start, in declaration order (the first that applies wins). */
  readonly byKeyword: ReadonlyMap<string, readonly Name[]>;
  /** The productions a token of a kind (keywords aside) may start, in declaration order. */
  readonly byToken: ReadonlyMap<TokenKind, readonly Name[]>;
  /** Every node kind a production writes, in declaration order, each once. */
  readonly nodeKinds: readonly Node[];
  /** The production by name. */
  get(name: Name): Production<Name, Node>;
  /** The leading keywords after which `expects` is what comes next, in declaration order. */
  keywordsExpecting(expects: NonNullable<Production['expects']>): string[];
}

/**
 * Derives the tables of a grammar from its productions (reusable for any language). Throws when two
 * productions share a name: each is declared once.
 */
export function defineGrammar<Name extends string, Node extends string>(productions: readonly Production<Name, Node>[]): Grammar<Name, Node> {
  const byName = new Map<Name, Production<Name, Node>>();
  const byKeyword = new Map<string, Name[]>();
  const byToken = new Map<TokenKind, Name[]>();
  const nodeKinds: Node[] = [];
  for (const p of productions) {
    if (byName.has(p.name)) throw new Error(`production ${p.name} is declared twice`);
    byName.set(p.name, p);
    for (const k of p.first.keywords ?? []) byKeyword.set(k, [...(byKeyword.get(k) ?? []), p.name]);
    for (const t of p.first.tokens ?? []) byToken.set(t, [...(byToken.get(t) ?? []), p.name]);
    for (const n of p.nodes) if (!nodeKinds.includes(n)) nodeKinds.push(n);
  }
  return {
    productions,
    byKeyword,
    byToken,
    nodeKinds,
    get: (name) => byName.get(name)!,
    keywordsExpecting: (expects) => productions.filter((p) => p.expects === expects).flatMap((p) => p.first.keywords ?? []),
  };
}

/** The names of the search language's productions. */
export type ProductionName =
  | 'columnClause' | 'periodFunction' | 'aggregated' | 'operatorWithoutColumn' | 'bucket' | 'for' | 'grouping' | 'topBottom'
  | 'rankedBy' | 'sortBy' | 'growth' | 'calendar' | 'location' | 'subsearch' | 'versus' | 'fiscal' | 'relativeDate' | 'relativePeriod' | 'toDate' | 'namedDate'
  | 'bareValue' | 'formulaCall' | 'unknownWord' | 'separator' | 'stray' | 'misplacedKeyword';

/**
 * The tree's node kinds: a clause's (ast.ts `Clause['kind']`), `rankedBy` (which the AST folds into its
 * query's `topBottom`, or a `keyword` clause when there is none) or one of a clause's parts.
 */
export type SearchNodeKind = Clause['kind'] | 'rankedBy' | 'columnRef' | 'value' | 'missing';

/**
 * The search language (docs/service-interface.md §4; ThoughtSpot's keyword reference, list-*.adoc), in
 * the order the parser tries the productions a token may start.
 */
export const SEARCH_GRAMMAR = defineGrammar<ProductionName, SearchNodeKind>([
  {
    name: 'columnClause', nodes: ['column', 'filter', 'dateFilter', 'location', 'subsearch', 'columnRef', 'value', 'missing'], first: { tokens: ['column'] },
    rule: "ColumnRef ('.' DotValue | FilterOperator Value (',' | 'or' Value)* | 'between' Value 'and' Value | RelativeDate | Location | Subsearch)?",
  },
  { name: 'periodFunction', nodes: ['column'], first: { keywords: Object.keys(PERIOD_FUNCTIONS) }, rule: "Period '(' column ')'" },
  { name: 'aggregated', nodes: ['column', 'filter', 'error'], first: { keywords: [...AGGREGATIONS] }, rule: 'Aggregation ColumnRef (FilterOperator Value*)?', expects: 'column' },
  { name: 'operatorWithoutColumn', nodes: ['error'], first: { tokens: ['operator'], keywords: [...WORD_OPERATORS] }, rule: 'FilterOperator Value*  -- recovery: the column is missing' },
  { name: 'bucket', nodes: ['bucket'], first: { keywords: [...DATE_BUCKETS] }, rule: 'Bucket' },
  { name: 'for', nodes: ['error'], first: { keywords: ['for'] }, rule: "'for' Aggregation ColumnRef FilterOperator Value", expects: 'column' },
  { name: 'grouping', nodes: ['column', 'bucket', 'error'], first: { keywords: ['by', 'for each'] }, rule: "('by' | 'for each') (Aggregation? ColumnRef | DateUnit | Bucket)", expects: 'column' },
  { name: 'topBottom', nodes: ['topBottom'], first: { keywords: ['top', 'bottom'] }, rule: "('top' | 'bottom') number?", expects: 'column' },
  { name: 'rankedBy', nodes: ['rankedBy', 'error'], first: { keywords: ['ranked by'] }, rule: "'ranked by' Aggregation? ColumnRef", expects: 'column' },
  { name: 'sortBy', nodes: ['sort', 'error'], first: { keywords: ['sort by'] }, rule: "'sort by' Aggregation? ColumnRef ColumnRef? ('ascending' | 'descending')?", expects: 'column' },
  { name: 'growth', nodes: ['growth', 'error'], first: { keywords: ['growth of'] }, rule: "'growth of' ColumnRef 'by' ColumnRef Bucket? PeriodOverPeriod?", expects: 'column' },
  { name: 'calendar', nodes: ['calendar', 'error'], first: { keywords: ['calendar'] }, rule: "'calendar' ('.' (word | keyword | value))?" },
  { name: 'location', nodes: ['location', 'error'], first: { keywords: ['near', 'farther than'] }, rule: "('near' | 'farther than') ... ('within' number DistanceUnit)?" },
  { name: 'subsearch', nodes: ['subsearch', 'error'], first: { keywords: ['in', 'not in'] }, rule: "('in' | 'not in') '(' Clause* ')'" },
  { name: 'versus', nodes: ['versus'], first: { keywords: ['vs'] }, rule: "'vs' 'all'?" },
  { name: 'fiscal', nodes: ['calendar'], first: { keywords: ['fiscal'] }, rule: "'fiscal'" },
  { name: 'relativeDate', nodes: ['dateFilter'], first: { tokens: ['number'], keywords: ['today', 'yesterday'] }, rule: "'today' | 'yesterday' | number DateUnit 'ago' | year" },
  { name: 'relativePeriod', nodes: ['dateFilter'], first: { keywords: ['this', 'last', 'next'] }, rule: "('this' | ('last' | 'next') number?) DateUnit ('for each' DateUnit)?", expects: 'dateUnit' },
  { name: 'toDate', nodes: ['dateFilter'], first: { keywords: Object.keys(TO_DATE) }, rule: "ToDate ('for each' DateUnit)?" },
  { name: 'namedDate', nodes: ['dateFilter'], first: { keywords: [...DAY_NAMES, ...MONTH_NAMES, ...QUARTER_NAMES] }, rule: '(DayName | (MonthName | QuarterName) year?)' },
  { name: 'bareValue', nodes: ['keyword'], first: { tokens: ['value', 'constant', 'number', 'lparen'] }, rule: "Value | '(' ... ')'  -- recovery: a value with no column" },
  { name: 'formulaCall', nodes: ['error'], first: { tokens: ['word'] }, rule: "word '(' ... ')'  -- recovery: a formula inside a query" },
  { name: 'unknownWord', nodes: ['error'], first: { tokens: ['word'] }, rule: 'word  -- recovery' },
  { name: 'separator', nodes: [], first: { tokens: ['comma'] }, rule: "','" },
  { name: 'stray', nodes: ['error'], first: { tokens: ['dot', 'rparen', 'stray'] }, rule: "'.' | ')' | stray  -- recovery" },
  { name: 'misplacedKeyword', nodes: ['keyword'], first: { keywords: KEYWORDS.map((k) => k.name) }, rule: 'keyword  -- a keyword with no meaning where it stands' },
]);

/** The keywords after which a column comes (completion offers columns first): the productions' `expects: 'column'`. */
export const KEYWORDS_BEFORE_COLUMN: ReadonlySet<string> = new Set(SEARCH_GRAMMAR.keywordsExpecting('column'));

/** The productions a relative date is (`RelativeDate` of `columnClause`; list-date.adoc), the named dates aside. */
const RELATIVE_DATES: readonly ProductionName[] = ['relativeDate', 'relativePeriod', 'toDate'];

/**
 * What may follow a date column (`columnClause`, completion after `[date] |`): the range operators, then
 * the keywords a relative date starts with (the named dates are offered at the start of a word, by category).
 */
export const DATE_OPERAND_KEYWORDS: readonly string[] = [...RANGE_OPERATORS, ...RELATIVE_DATES.flatMap((p) => SEARCH_GRAMMAR.get(p).first.keywords ?? [])];

/** The keywords after which a date unit comes (`last |`, `next 3 |`): the productions' `expects: 'dateUnit'`. */
export const KEYWORDS_BEFORE_DATE_UNIT: ReadonlySet<string> = new Set(SEARCH_GRAMMAR.keywordsExpecting('dateUnit'));

/**
 * What the token after `[column].` may be (`DotValue` of `columnClause`, docs/service-notes.md §2.11;
 * keywords.ts `dotReading`), for completion: the column's buckets (a date column), whether its values
 * are read (an attribute that is no date; they come from the catalog) with `{null}`/`{empty}`, the
 * booleans (a BOOL attribute), the relative dates written after the dot (a calendar date:
 * `[date].'last 180 days'`). Without the column (no catalog): every bucket and nothing else.
 */
export function dotExpectations(column: { dataType: ColumnDataType; kind: string } | undefined): { buckets: DateBucket[]; values: boolean; booleans: readonly string[]; relativeDates: readonly string[] } {
  if (column === undefined) return { buckets: [...DATE_BUCKETS], values: false, booleans: [], relativeDates: [] };
  const type = column.dataType;
  const date = DATE_TYPES.has(type);
  return {
    buckets: date ? bucketsFor(type) : [],
    values: column.kind === 'ATTRIBUTE' && !date && type !== 'BOOL',
    booleans: type === 'BOOL' ? BOOLEAN_VALUES : [],
    relativeDates: CALENDAR_TYPES.has(type) ? DOT_RELATIVE_DATES : [],
  };
}

/**
 * The relative dates offered after a calendar date's dot, quoted as exported answers write them
 * (`[date].'this month'`): `today`, `yesterday`, `this`/`last` of each calendar unit from a week up, the
 * last 7 and 30 days, the to-dates.
 */
const DOT_RELATIVE_DATES: readonly string[] = [
  ...(SEARCH_GRAMMAR.get('relativeDate').first.keywords ?? []),
  ...(SEARCH_GRAMMAR.get('relativePeriod').first.keywords ?? []).filter((w) => w !== 'next').flatMap((w) => DATE_UNITS.slice(DATE_UNITS.indexOf('week')).map((u) => `${w} ${u}`)),
  ...[7, 30].map((n) => `last ${n} days`),
  ...(SEARCH_GRAMMAR.get('toDate').first.keywords ?? []),
];

/**
 * The children of each node kind in the tree (direct children, in order), the shape a typed view of a node
 * reads (views.ts): node kinds, `Clause` for any clause kind, `?` optional, `*` repeated. Read it with
 * `childItems`; test/unit/grammar-once.test.ts checks every node the parser writes against it (`conformsTo`).
 */
export const NODE_CHILDREN = {
  column: 'columnRef', filter: 'columnRef value* missing?', dateFilter: 'columnRef?', topBottom: '', sort: 'columnRef',
  growth: 'columnRef columnRef', calendar: '', bucket: '', location: 'columnRef?', subsearch: 'columnRef? Clause*', versus: '',
  rankedBy: 'columnRef', keyword: '', error: '', columnRef: '', value: '', missing: '',
} as const satisfies Readonly<Record<SearchNodeKind, string>>;

/** One item of a `NODE_CHILDREN` entry: a node kind (or `Clause`) and how often it comes (`''` once, `?`, `*`). */
export interface ChildItem {
  readonly kind: SearchNodeKind | 'Clause';
  readonly repeat: '' | '?' | '*';
}

/** The items of one `NODE_CHILDREN` entry (the one reader of its notation); throws when an item names no node kind (nor `Clause`). */
function readChildItems(kind: SearchNodeKind): readonly ChildItem[] {
  return NODE_CHILDREN[kind].split(' ').filter(Boolean).map((p) => {
    const m = /^(\w+)([?*]?)$/.exec(p);
    const name = m?.[1];
    const child = SEARCH_GRAMMAR.nodeKinds.find((k) => k === name) ?? (name === 'Clause' ? 'Clause' : undefined);
    if (!m || !child) throw new Error(`NODE_CHILDREN.${kind}: "${p}" names no node kind`);
    return { kind: child, repeat: m[2] === '?' || m[2] === '*' ? m[2] : '' };
  });
}
/** `readChildItems` of every node kind, read once when the module loads (a table, never changed). */
const CHILD_ITEMS: ReadonlyMap<SearchNodeKind, readonly ChildItem[]> = new Map(SEARCH_GRAMMAR.nodeKinds.map((k) => [k, readChildItems(k)]));
/** The items of `NODE_CHILDREN[kind]`, in order. */
export function childItems(kind: SearchNodeKind): readonly ChildItem[] {
  return CHILD_ITEMS.get(kind)!;
}

/** The node kinds that are parts of a clause, not clauses. */
const PART_KINDS = { columnRef: true, value: true, missing: true } as const satisfies Partial<Record<SearchNodeKind, true>>;
/** The kinds a clause node may have (stand at a query's top level): every node kind but a clause's parts (`PART_KINDS`). */
export type ClauseNodeKind = Exclude<SearchNodeKind, keyof typeof PART_KINDS>;

/** Whether a node of kind `kind` is a clause (may stand at a query's top level), not a part of one. */
export function isClauseKind(kind: SearchNodeKind): boolean {
  return !(kind in PART_KINDS);
}

/** The pattern of each node kind's children (`NODE_CHILDREN`), made when the module loads (a table, never changed). */
const CHILD_PATTERNS: ReadonlyMap<SearchNodeKind, RegExp> = new Map(
  SEARCH_GRAMMAR.nodeKinds.map((kind) => {
    const clause = SEARCH_GRAMMAR.nodeKinds.filter(isClauseKind).join('|');
    const parts = childItems(kind).map((c) => `(?:(?:${c.kind === 'Clause' ? clause : c.kind}) )${c.repeat}`);
    return [kind, new RegExp(`^${parts.join('')}$`)];
  }),
);
/** Whether `children` (the kinds of a node's direct children, in order) fit `NODE_CHILDREN[kind]`. */
export function conformsTo(kind: SearchNodeKind, children: readonly string[]): boolean {
  return CHILD_PATTERNS.get(kind)!.test(children.map((c) => `${c} `).join(''));
}
