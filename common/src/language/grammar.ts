/**
 * The grammar of the search language, declared once (after rust-analyzer's `rust.ungram` and graphiql's
 * `ParseRules`): each production with the tree node kinds it writes, its leading tokens and keywords (its
 * FIRST set) and its parts as an ungrammar rule. Derived from it: the parser's dispatch (parser.ts
 * `ClauseParser.keywordClause`, `FastClauses`' `KW_START`), the tree's node kinds (tree.ts `NODE_KINDS`)
 * and the tokens completion expects at a position (languageService/completion.ts). Extend the language
 * here; test/unit/grammar-once.test.ts checks that nothing is dispatched or expected from elsewhere.
 * The machinery (`defineGrammar`) knows nothing of this language: a second one declares its own table.
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { ColumnDataType } from '../model';
import type { Clause, DateBucket } from './ast';
import {
  AGGREGATIONS, BOOLEAN_VALUES, CALENDAR_TYPES, DATE_BUCKETS, DATE_TYPES, DAY_NAMES, KEYWORDS, MONTH_NAMES, NUMERIC_TYPES, PERIOD_FUNCTIONS,
  QUARTER_NAMES, RANGE_OPERATORS, TEXT_TYPES, TO_DATE, WORD_OPERATORS, bucketsFor,
} from './keywords';
import type { TokenKind } from './lexer';

/**
 * One production: `name`, the node kinds it writes (`nodes`, its clause node first), what it starts
 * with (`first`: token kinds, keyword names), its parts (`rule`, ungrammar notation: `'kw'` a keyword,
 * `A?` optional, `A*` repeated, `A | B` alternatives, `Name` another production or a token kind) and
 * what a cursor right after its leading keyword expects (`expects`, for completion).
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

/** The relative dates that start with a keyword (`today`, `last 7 days`, `year to date`; list-date.adoc). */
const RELATIVE_DATE_KEYWORDS = ['today', 'yesterday', 'this', 'last', 'next', ...Object.keys(TO_DATE)];

/** The names of the search language's productions. */
export type ProductionName =
  | 'columnClause' | 'periodFunction' | 'aggregated' | 'operatorWithoutColumn' | 'bucket' | 'for' | 'grouping' | 'topBottom'
  | 'rankedBy' | 'sortBy' | 'growth' | 'calendar' | 'location' | 'subsearch' | 'versus' | 'fiscal' | 'relativeDate' | 'namedDate'
  | 'bareValue' | 'formulaCall' | 'unknownWord' | 'separator' | 'stray' | 'misplacedKeyword';

/** The tree's node kinds: a clause's (ast.ts `Clause['kind']`) or one of its parts. */
export type SearchNodeKind = Clause['kind'] | 'columnRef' | 'value' | 'missing';

/**
 * The search language (docs/service-interface.md §4; ThoughtSpot's keyword reference, list-*.adoc), in
 * the order the parser tries the productions a token may start.
 */
export const SEARCH_GRAMMAR = defineGrammar<ProductionName, SearchNodeKind>([
  {
    name: 'columnClause', nodes: ['column', 'filter', 'dateFilter', 'columnRef', 'value', 'missing'], first: { tokens: ['column'] },
    rule: "ColumnRef ('.' DotValue | FilterOperator Value (',' | 'or' Value)* | 'between' Value 'and' Value | RelativeDate | Location | Subsearch)?",
  },
  { name: 'periodFunction', nodes: ['column'], first: { keywords: Object.keys(PERIOD_FUNCTIONS) }, rule: "Period '(' column ')'" },
  { name: 'aggregated', nodes: ['column', 'filter'], first: { keywords: [...AGGREGATIONS] }, rule: 'Aggregation ColumnRef (FilterOperator Value*)?', expects: 'column' },
  { name: 'operatorWithoutColumn', nodes: ['error'], first: { tokens: ['operator'], keywords: [...WORD_OPERATORS] }, rule: 'FilterOperator Value*  -- recovery: the column is missing' },
  { name: 'bucket', nodes: ['bucket'], first: { keywords: [...DATE_BUCKETS] }, rule: 'Bucket' },
  { name: 'for', nodes: [], first: { keywords: ['for'] }, rule: "'for' Aggregation ColumnRef FilterOperator Value", expects: 'column' },
  { name: 'grouping', nodes: ['column', 'bucket'], first: { keywords: ['by', 'for each'] }, rule: "('by' | 'for each') (Aggregation? ColumnRef | DateUnit | Bucket)", expects: 'column' },
  { name: 'topBottom', nodes: ['topBottom'], first: { keywords: ['top', 'bottom'] }, rule: "('top' | 'bottom') number?", expects: 'column' },
  { name: 'rankedBy', nodes: ['keyword'], first: { keywords: ['ranked by'] }, rule: "'ranked by' Aggregation? ColumnRef", expects: 'column' },
  { name: 'sortBy', nodes: ['sort'], first: { keywords: ['sort by'] }, rule: "'sort by' Aggregation? ColumnRef ColumnRef? ('ascending' | 'descending')?", expects: 'column' },
  { name: 'growth', nodes: ['growth'], first: { keywords: ['growth of'] }, rule: "'growth of' ColumnRef 'by' ColumnRef Bucket? PeriodOverPeriod?", expects: 'column' },
  { name: 'calendar', nodes: ['calendar'], first: { keywords: ['calendar'] }, rule: "'calendar' ('.' (word | keyword | value))?" },
  { name: 'location', nodes: ['location'], first: { keywords: ['near', 'farther than'] }, rule: "('near' | 'farther than') ... ('within' number DistanceUnit)?" },
  { name: 'subsearch', nodes: ['subsearch'], first: { keywords: ['in', 'not in'] }, rule: "('in' | 'not in') '(' Clause* ')'" },
  { name: 'versus', nodes: ['versus'], first: { keywords: ['vs'] }, rule: "'vs' 'all'?" },
  { name: 'fiscal', nodes: ['calendar'], first: { keywords: ['fiscal'] }, rule: "'fiscal'" },
  {
    name: 'relativeDate', nodes: ['dateFilter'], first: { tokens: ['number'], keywords: RELATIVE_DATE_KEYWORDS },
    rule: "'today' | 'yesterday' | ('this' | 'last' number? | 'next' number?) DateUnit ('for each' DateUnit)? | ToDate ('for each' DateUnit)? | number DateUnit 'ago' | year",
    expects: 'dateUnit',
  },
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

/**
 * What may follow a date column (`ColumnRef` of `columnClause`, completion after `[date] |`): the range
 * operators, then the relative dates that start with a keyword (the named dates are offered at the start
 * of a word, by their category).
 */
export const DATE_OPERAND_KEYWORDS: readonly string[] = [...['after', 'before', 'between'].filter((k) => (RANGE_OPERATORS as readonly string[]).includes(k)), ...(SEARCH_GRAMMAR.get('relativeDate').first.keywords ?? [])];

/**
 * What the token after `[column].` may be on a column of `type` (`DotValue`, docs/service-notes.md §2.11;
 * keywords.ts `dotReading`): its buckets (a date column), whether a value of the column is read (values
 * come from the catalog), the booleans (a BOOL column), the relative dates written after the dot (a
 * calendar date: `[date].'last 180 days'`), and whether `{null}`/`{empty}` apply (always). An unknown
 * type (no catalog): every bucket and nothing else.
 */
export function dotExpectations(type: ColumnDataType | undefined): { buckets: DateBucket[]; values: boolean; booleans: readonly string[]; relativeDates: readonly string[]; constants: boolean } {
  if (type === undefined) return { buckets: [...DATE_BUCKETS], values: false, booleans: [], relativeDates: [], constants: false };
  const calendar = CALENDAR_TYPES.has(type);
  return {
    buckets: DATE_TYPES.has(type) ? bucketsFor(type) : [],
    values: TEXT_TYPES.has(type) || NUMERIC_TYPES.has(type),
    booleans: type === 'BOOL' ? BOOLEAN_VALUES : [],
    relativeDates: calendar ? DOT_RELATIVE_DATES : [],
    constants: true,
  };
}

/** The relative dates offered after a calendar date's dot, quoted as exported answers write them (`[date].'this month'`). */
const DOT_RELATIVE_DATES: readonly string[] = ['today', 'yesterday', 'this week', 'this month', 'this quarter', 'this year', 'last week', 'last month', 'last quarter', 'last year', 'last 7 days', 'last 30 days', ...Object.keys(TO_DATE)];

