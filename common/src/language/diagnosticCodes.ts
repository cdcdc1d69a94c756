/**
 * Stable codes of every diagnostic the TSQ language service reports. Code actions key on them and users
 * silence them with the setting `tsq.diagnostics.disabled`; never rename one.
 *
 * Syntax codes come from the lexer and parser (always reported); semantic codes need a catalog
 * (validation.ts) and are never reported when the catalog is unknown.
 */

// ---- syntax (lexer / parser) -------------------------------------------------------------------------

/** A quoted value with no closing quote on its line (docs/service-interface.md §4.3: values are in single quotes). Error. */
export const UNTERMINATED_VALUE = 'tsq.unterminatedValue';
/** A `[` with no `]` on its line. Error. */
export const UNCLOSED_BRACKET = 'tsq.unclosedBracket';
/** `[]` or `[   ]`: a column with no name. Error. */
export const EMPTY_COLUMN = 'tsq.emptyColumn';
/** `[` or `]` inside a column name (docs/service-interface.md §8.4: column names cannot contain brackets). Error. */
export const BRACKET_IN_COLUMN = 'tsq.bracketInColumn';
/** A quote inside a value, e.g. `'tom's'` (docs/service-interface.md §8.5: values cannot contain quotes). Error. */
export const QUOTE_IN_VALUE = 'tsq.quoteInValue';
/** A value in double quotes; the API syntax quotes values with single quotes (docs/service-interface.md §4.3). Warning. */
export const DOUBLE_QUOTED_VALUE = 'tsq.doubleQuotedValue';
/** An operator or keyword without its operand: `[delay] >`, `sort by` at the end, `sum` with no column. Error. */
export const MISSING_OPERAND = 'tsq.missingOperand';
/** `between` with no `and` (docs/service-notes.md §2.3). Error. */
export const BETWEEN_WITHOUT_AND = 'tsq.betweenWithoutAnd';
/** Characters that start no token (`#`, `$`, `{`, binary bytes, a lone `]`, …). Error. */
export const STRAY_CHARACTER = 'tsq.strayCharacter';
/** A bare word that is no keyword; the API syntax brackets column names and quotes values. Warning. */
export const UNKNOWN_WORD = 'tsq.unknownWord';
/** A `(` with no matching `)`. Error. */
export const UNCLOSED_PAREN = 'tsq.unclosedParen';
/** `@something` other than `@datasource`. Error. */
export const UNKNOWN_DIRECTIVE = 'tsq.unknownDirective';
/**
 * Subsearches (`in ( … )`) nested deeper than `MAX_SUBSEARCH_DEPTH` levels (parser.ts): the parser reads
 * no further inside, so no reader of the tree recurses past that depth. Error.
 */
export const NESTING_TOO_DEEP = 'tsq.nestingTooDeep';
/** `@datasource` with no data source name or GUID after it. Error. */
export const DIRECTIVE_WITHOUT_VALUE = 'tsq.directiveWithoutValue';
/** A bucket after `[column].` that is not a date bucket (docs/service-interface.md §4.3). Error. */
export const UNKNOWN_BUCKET = 'tsq.unknownBucket';
/**
 * A catalogue keyword standing where it has no meaning (`ascending` without `sort by`, `ago` without a
 * number and unit, `miles` without `within`): the parser keeps it as a bare keyword clause. Warning.
 */
export const MISPLACED_KEYWORD = 'tsq.misplacedKeyword';
/**
 * A keyword of the service's language that the local emulator does not execute (`vs`, `in`, `near`, …:
 * keywords.ts `emulator: 'unsupported'`); the emulator answers 400 naming it. Information.
 */
export const NOT_IN_EMULATOR = 'tsq.notInEmulator';
/**
 * A value, a number or a `( … )` group standing alone, with no column or keyword it belongs to (`'SEA'`,
 * `42`, `('SEA')`). The API's token rules give values only as the operand of an operator or keyword after a
 * column (`[origin] = 'SEA'`; search-query-string.adoc, docs/service-interface.md §4.3); the UI's matching of
 * a bare value to an indexed column's values is not part of the API syntax. The emulator answers 400 naming
 * the token. Warning.
 */
export const BARE_VALUE = 'tsq.bareValue';
/**
 * A rolling date filter (`last 3 months`) in a query that names a custom calendar (`calendar.retail`): the
 * service does not support it (connections-cust-cal, Limitations; keywords.ts `isRollingPeriod`). Warning.
 */
export const ROLLING_WITH_CUSTOM_CALENDAR = 'tsq.rollingWithCustomCalendar';
/**
 * A period-over-period keyword after a bucket it cannot follow (`growth of [delay] by [date] monthly
 * month-over-month`; search-growth's table, keywords.ts `PERIOD_OVER_PERIOD`, `periodOverPeriodBucketError`);
 * the emulator answers 400 with the same text. Error.
 */
export const PERIOD_OVER_PERIOD_BUCKET = 'tsq.periodOverPeriodBucket';

// ---- semantic (need a catalog) -----------------------------------------------------------------------

/** A column the data source does not have; `data.suggestions` lists the closest names. Error. */
export const UNKNOWN_COLUMN = 'tsq.unknownColumn';
/** A column name that matches several columns ignoring case (docs/service-interface.md §8.3). Warning. */
export const AMBIGUOUS_COLUMN = 'tsq.ambiguousColumn';
/** A date bucket on a column that is not DATE/DATE_TIME/TIME. Error. */
export const BUCKET_ON_NON_DATE = 'tsq.bucketOnNonDate';
/**
 * A date keyword with no date column to apply to: written after a column that is not a date
 * (`[delay] last 7 days`) on a data source with no date column (keywords.ts `dataSourceDateColumn`). Error.
 */
export const DATE_FILTER_ON_NON_DATE = 'tsq.dateFilterOnNonDate';
/**
 * A date keyword after a non-date column on a data source with several date columns: it applies to the
 * first one (keywords.ts `dataSourceDateColumn`); naming the date column says which. Warning.
 */
export const SEVERAL_DATE_COLUMNS = 'tsq.severalDateColumns';
/**
 * A location keyword (`near`, `farther than`) on a data source without numeric `latitude` and `longitude`
 * columns (keywords.ts `locationColumnsOf`; docs/service-notes.md §2.9). Error.
 */
export const NO_LOCATION_DATA = 'tsq.noLocationData';
/** A text operator (`contains`, `begins with`, …) on a numeric column (docs/service-notes.md §2.4). Error. */
export const TEXT_OPERATOR_ON_NUMBER = 'tsq.textOperatorOnNumber';
/** A quoted text compared with `>`/`<`/`>=`/`<=` to a numeric column. Warning. */
export const TEXT_COMPARED_TO_NUMBER = 'tsq.textComparedToNumber';
/**
 * An order comparison of a date column with a year (`[date] >= 2001`, `between 2000 and 2001`, `after
 * 2000`) in a query naming a custom calendar: the service does not support it (connections-cust-cal,
 * Limitations: "order date >= august 2025"; keywords.ts `isNamedPeriodComparison`); the emulator answers
 * 400. Warning.
 */
export const NAMED_PERIOD_WITH_CUSTOM_CALENDAR = 'tsq.namedPeriodWithCustomCalendar';
/** A formula defined inside a query (docs/service-interface.md §8.6: only named formulas of the data source can be used). Error. */
export const FORMULA_IN_QUERY = 'tsq.formulaInQuery';
/** An `@datasource` the service does not know. Error. */
export const UNKNOWN_DATA_SOURCE = 'tsq.unknownDataSource';
/** A query with no data source: no `@datasource` before it and no `tsq.defaultDataSource` (docs/service-interface.md §8.1). Error. */
export const NO_DATA_SOURCE = 'tsq.noDataSource';

/** Every code, for settings validation and documentation. */
export const ALL_DIAGNOSTIC_CODES: readonly string[] = [
  UNTERMINATED_VALUE, UNCLOSED_BRACKET, EMPTY_COLUMN, BRACKET_IN_COLUMN, QUOTE_IN_VALUE, DOUBLE_QUOTED_VALUE,
  MISSING_OPERAND, BETWEEN_WITHOUT_AND, STRAY_CHARACTER, UNKNOWN_WORD, UNCLOSED_PAREN, NESTING_TOO_DEEP, UNKNOWN_DIRECTIVE,
  DIRECTIVE_WITHOUT_VALUE, UNKNOWN_BUCKET, MISPLACED_KEYWORD, NOT_IN_EMULATOR, BARE_VALUE, ROLLING_WITH_CUSTOM_CALENDAR, PERIOD_OVER_PERIOD_BUCKET,
  UNKNOWN_COLUMN, AMBIGUOUS_COLUMN, BUCKET_ON_NON_DATE, DATE_FILTER_ON_NON_DATE, SEVERAL_DATE_COLUMNS, NO_LOCATION_DATA, TEXT_OPERATOR_ON_NUMBER, TEXT_COMPARED_TO_NUMBER,
  NAMED_PERIOD_WITH_CUSTOM_CALENDAR, FORMULA_IN_QUERY, UNKNOWN_DATA_SOURCE, NO_DATA_SOURCE,
];
