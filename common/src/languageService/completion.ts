/**
 * Completion for `.tsq` documents: columns after `[`, date buckets after `[date column].`,
 * calendars after `calendar.`, the operators and keywords that fit after a column, column values after a
 * comparison operator (from `tsq/columnValues`), keywords at the start of a word (multi-word ones as one
 * item), and data sources after `@datasource`.
 *
 * The context is read from the tokens around the cursor: the document's cached tokens before it (only the
 * current query's, walking back to the previous `;`, blank line or directive) plus the token under the
 * cursor lexed again up to the cursor. The document is never lexed again as a whole per keystroke.
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CompletionItemKind,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type Position,
  type Range,
} from 'vscode-languageserver-types';
import type { Column, ColumnDataType, DataSourceColumns } from '../model';
import {
  AGGREGATIONS, DATE_BUCKETS, DATE_TYPES, DATE_UNITS, KEYWORDS, NUMERIC_TYPES, TEXT_TYPES, TO_DATE, bucketsFor, findKeyword,
  operatorsFor as filterOperatorsFor, type DateBucket, type KeywordCategory, type KeywordInfo,
} from '../language/keywords';
import { tokenize, type Token } from '../language/lexer';
import { dataSourceAt, tokenAt, type SyntaxDocument } from '../language/parser';
import type { Clause } from '../language/ast';
import type { CancellationLike, CompletionItemData, LanguageSettings, ServiceContext } from './types';

/** The answer to a cancelled request (LSP: an incomplete empty list makes the client ask again). */
const CANCELLED: CompletionList = { isIncomplete: true, items: [] };
const EMPTY: CompletionList = { isIncomplete: false, items: [] };

/** How many tokens of the current query are looked at, backwards from the cursor (a long value list included). */
const LOOK_BEHIND = 256;

// The column-type facts are the keyword catalogue's (one fact for the language service and the emulator).
export { DATE_TYPES, NUMERIC_TYPES, TEXT_TYPES, bucketsFor };

/** Calendars offered after `calendar.` besides those already written in the document (docs/service-notes.md §1.5, 2.5). */
export const BUILT_IN_CALENDARS: readonly { name: string; meaning: string }[] = [
  { name: 'fiscal', meaning: 'The fiscal-offset calendar of the cluster (docs/service-notes.md §2.5).' },
];

/** Keyword categories offered at the start of a word when nothing more specific fits. */
const WORD_START_CATEGORIES: ReadonlySet<KeywordCategory> = new Set(['general', 'aggregation', 'filter', 'date', 'period', 'in', 'location', 'dateName']);
/** Keywords after which a column is expected (columns are offered first). */
const BEFORE_COLUMN = new Set<string>(['sort by', 'by', 'for each', 'ranked by', 'growth of', 'for', 'top', 'bottom', ...AGGREGATIONS]);
/** Relative-date keywords offered after a date column (docs/service-notes.md §2.5, 2.6). */
const DATE_FILTER_KEYWORDS = ['after', 'before', 'between', 'today', 'yesterday', 'this', 'last', 'next', ...Object.keys(TO_DATE)];

/** First words of multi-word keywords that are no keyword alone (`not`, `sort`, `growth`, …). */
const MULTI_WORD_HEADS: ReadonlySet<string> = new Set(
  KEYWORDS.filter((k) => k.name.includes(' ')).map((k) => k.name.split(' ')[0]!).filter((w) => !findKeyword(w)),
);

/** Sort groups: what fits the context best comes first. */
const enum Rank {
  Fits = '0',
  Column = '1',
  Keyword = '2',
  Other = '3',
}

/** One completion context, read from the tokens before the cursor. */
type Context =
  | { kind: 'none' }
  | { kind: 'column'; replace: Range; close: boolean }
  | { kind: 'bucket'; column: string; replace: Range }
  | { kind: 'calendar'; replace: Range }
  | { kind: 'value'; column: string; operator: string; prefix: string; quoted: boolean; replace: Range; space: boolean }
  | { kind: 'word'; replace: Range; space: boolean; after: After };

/** What precedes a word being typed. */
type After =
  | { kind: 'start' }
  | { kind: 'column'; column: string; sortBy: boolean }
  | { kind: 'keyword'; keyword: string; previous?: Token }
  | { kind: 'number'; previous?: Token }
  | { kind: 'value'; betweenValue: boolean }
  | { kind: 'other' };

/**
 * Completion at a position of a `.tsq` document.
 *
 * @param ctx the service context (catalog and cached parse/tokens).
 * @param settings `defaultDataSource` applies to queries with no `@datasource` before them.
 * @param token cancellation: when requested (checked before and after every catalog call) the answer is
 *   an empty list marked incomplete.
 * @returns a list whose items carry a `textEdit` with the exact range to replace (one line), a
 *   `filterText` matching the replaced text, a `sortText` (best fits first), `detail` and markdown
 *   `documentation` — except column and keyword items, which carry `data` (`CompletionItemData`) instead
 *   and get their documentation from `doResolve` (`completionItem/resolve`), so a list of 1,000 columns
 *   does not send 1,000 descriptions. `isIncomplete` is true for value completion (the catalog filters by prefix).
 *   Never throws on any document text; a failing catalog call gives the items that need no catalog.
 */
export async function doComplete(ctx: ServiceContext, document: TextDocument, position: Position, settings: LanguageSettings, token?: CancellationLike): Promise<CompletionList> {
  if (token?.isCancellationRequested) return CANCELLED;
  const text = document.getText();
  const offset = document.offsetAt(position);
  const lineStart = offset - position.character;
  const linePrefix = text.slice(lineStart, offset);

  // `@datasource …` lines.
  const directive = /^(\s*)@(\w*)(?:(\s+)('?)([^']*))?$/.exec(linePrefix);
  if (directive) return completeDirective(ctx, document, offset, lineStart, directive, token);
  // After a directive's value only a comment may follow on its line.
  if (/^\s*@/.test(linePrefix)) return EMPTY;

  const context = readContext(ctx, document, text, offset);
  if (context.kind === 'none') return EMPTY;

  const dataSource = dataSourceAt(ctx.parse(document), offset) || settings.defaultDataSource?.trim() || undefined;
  const columns = ctx.catalog && dataSource && context.kind !== 'calendar' ? await knownColumns(ctx, dataSource, token) : undefined;
  if (token?.isCancellationRequested) return CANCELLED;

  switch (context.kind) {
    case 'column': {
      const typed = text.slice(document.offsetAt(context.replace.start), offset);
      return { isIncomplete: isCapped(columns), items: columns ? columnItems(columns, dataSource!, context.replace, context.close ? ']' : '', false, typed) : [] };
    }
    case 'bucket': {
      const col = findColumn(columns, context.column);
      // Without the catalog the data type is unknown: offer every bucket rather than none.
      const buckets = col ? bucketsFor(col.dataType) : columns ? [] : [...DATE_BUCKETS];
      return { isIncomplete: false, items: buckets.map((b, i) => bucketItem(b, i, context.replace)) };
    }
    case 'calendar':
      return { isIncomplete: false, items: await calendarItems(ctx, document, context.replace, token) };
    case 'value': {
      const col = findColumn(columns, context.column);
      const items = constantItems(context);
      let isIncomplete = false;
      if (ctx.catalog && dataSource) {
        const values = await ctx.catalog.getColumnValues(dataSource, col?.name ?? context.column, context.prefix, token);
        if (token?.isCancellationRequested) return CANCELLED;
        isIncomplete = true;
        items.unshift(...valueItems(values, col, context));
      }
      return { isIncomplete, items };
    }
    case 'word':
      return { isIncomplete: isCapped(columns), items: wordItems(document, text, offset, context, columns, dataSource) };
  }
}

/**
 * `completionItem/resolve`: adds the markdown `documentation` of a column or keyword item from its `data`
 * (`CompletionItemData`, set by `doComplete`). A column is looked up again through the catalog (by the
 * data source name or GUID it was completed from, exact name); a keyword in the catalogue.
 *
 * @returns the item with `documentation` (a new object), or the item unchanged when it already has
 *   documentation, carries no usable `data`, the column is no longer known, the catalog fails, or the
 *   request is cancelled. Never throws.
 */
export async function doResolve(ctx: ServiceContext, item: CompletionItem, token?: CancellationLike): Promise<CompletionItem> {
  const data = item.data as Partial<CompletionItemData> | null | undefined;
  if (item.documentation !== undefined || !data || typeof data !== 'object') return item;
  if (typeof data.keyword === 'string') {
    const info = findKeyword(data.keyword);
    return info ? { ...item, documentation: keywordDoc(info) } : item;
  }
  if (typeof data.column !== 'string' || typeof data.dataSource !== 'string' || !ctx.catalog || token?.isCancellationRequested) return item;
  const columns = await knownColumns(ctx, data.dataSource, token);
  if (!columns || token?.isCancellationRequested) return item;
  const column = columns.columns.find((c) => c.name === data.column);
  return column ? { ...item, documentation: { kind: MarkupKind.Markdown, value: columnMarkdown(column, columns.name) } } : item;
}

/** Columns of a data source, or undefined when unknown or missing. */
async function knownColumns(ctx: ServiceContext, dataSource: string, token?: CancellationLike): Promise<DataSourceColumns | undefined> {
  return (await ctx.catalog!.getColumns(dataSource, token)) ?? undefined;
}

/** A column by name, case-insensitively and ignoring surrounding spaces (docs/service-interface.md §8.2, 8.3). */
export function findColumn(columns: DataSourceColumns | undefined, name: string): Column | undefined {
  if (!columns) return undefined;
  const key = name.trim().toLowerCase();
  return columns.columns.find((c) => c.name.toLowerCase() === key);
}

// ---- context ------------------------------------------------------------------------------------------

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c >= 0xc0;
/** Offset of the end of the run of word characters starting at `from`. */
function wordEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
  return i;
}

/** Tokens of the current query before the cursor (the token under the cursor lexed up to the cursor). */
function tokensBefore(ctx: ServiceContext, document: TextDocument, text: string, offset: number): { before: Token[]; under: Token | undefined } {
  const all = ctx.tokens(document);
  const { index } = tokenAt(all, offset);
  const under = all[index] && all[index]!.start < offset ? all[index] : undefined;
  const before: Token[] = [];
  let significant = 0;
  for (let i = index - 1; i >= 0 && significant < LOOK_BEHIND; i--) {
    const t = all[i]!;
    if (t.kind === 'semicolon' || t.kind === 'blank' || t.kind === 'directive') break;
    if (t.kind === 'comment') continue;
    before.push(t);
    significant++;
  }
  before.reverse();
  if (under) {
    for (const t of tokenize(text.slice(under.start, offset))) {
      before.push({ ...t, start: t.start + under.start, end: t.end + under.start, innerStart: t.innerStart + under.start, innerEnd: t.innerEnd + under.start });
    }
  }
  // A terminator or comment lexed in the re-lexed part resets the context.
  for (let i = before.length - 1; i >= 0; i--) {
    const k = before[i]!.kind;
    if (k === 'semicolon' || k === 'blank' || k === 'directive') return { before: before.slice(i + 1), under };
  }
  return { before, under };
}

function readContext(ctx: ServiceContext, document: TextDocument, text: string, offset: number): Context {
  const { before, under } = tokensBefore(ctx, document, text, offset);
  const range = (start: number, end: number): Range => ({ start: document.positionAt(start), end: document.positionAt(end) });
  const last = before[before.length - 1];
  if (last && last.kind === 'comment') return { kind: 'none' };
  const touching = last && last.end === offset ? last : undefined;
  const gapIsBlank = (from: number) => /^[ \t]*$/.test(text.slice(from, offset));

  // Inside a column's brackets: `[fl|`, `[fl|]`, `[or|igin]`, `[Major |`.
  if (last && last.kind === 'column' && !last.closed && gapIsBlank(last.end)) {
    const closedUnder = under && under.kind === 'column' && under.closed && under.start === last.start && offset <= under.innerEnd;
    const end = closedUnder ? under!.innerEnd : wordEnd(text, offset);
    const close = !closedUnder && text.charCodeAt(end) !== 93;
    return { kind: 'column', replace: range(last.innerStart, end), close };
  }
  // Inside a value or a bucket written after a dot, the partial token ends at the cursor.
  const partial = touching && (touching.kind === 'word' || touching.kind === 'keyword' || touching.kind === 'number' || (touching.kind === 'value' && !touching.closed)) ? touching : undefined;
  let prevIndex = before.length - 1 - (partial ? 1 : 0);
  // `[origin] not con|`, `growth o|`: words that start a multi-word keyword belong to the word being typed.
  for (let k = 0; k < 2 && partial && partial.kind !== 'value'; k++) {
    const w = before[prevIndex];
    if (!w || w.kind !== 'word' || !MULTI_WORD_HEADS.has(w.value.toLowerCase()) || /[\r\n]/.test(text.slice(w.end, partial.start))) break;
    prevIndex--;
  }
  const prev = before[prevIndex];
  const replaceStart = partial ? partial.start : offset;
  /** End of the replaced text: the rest of the token under the cursor. */
  const replaceEnd = (): number => {
    if (partial && partial.kind === 'value') {
      if (under && under.kind === 'value' && under.closed && under.start === partial.start) return under.end;
      let e = offset;
      while (e < text.length && !/[\s']/.test(text[e]!)) e++;
      return text[e] === "'" ? e + 1 : e;
    }
    if (partial && under && under.start === partial.start && (under.kind === 'word' || under.kind === 'keyword' || under.kind === 'number')) return under.end;
    return wordEnd(text, offset);
  };

  // `[date].|`, `[date].mon|`, `[date].'day o|`, `calendar.|`.
  if (prev && prev.kind === 'dot' && prev.end === replaceStart) {
    const owner = before[prevIndex - 1];
    if (owner && owner.end === prev.start) {
      if (owner.kind === 'column') return { kind: 'bucket', column: owner.value, replace: range(replaceStart, replaceEnd()) };
      if (owner.kind === 'keyword' && owner.value === 'calendar') return { kind: 'calendar', replace: range(replaceStart, replaceEnd()) };
    }
    return { kind: 'none' };
  }
  // After a comparison operator, a word operator or a comma in a value list: values of the column.
  const filter = filterAt(ctx.parse(document), prev);
  if (partial && partial.kind === 'value' && !filter) return { kind: 'none' };
  if (filter) {
    const prefix = partial ? (partial.kind === 'value' ? partial.value : text.slice(partial.start, offset)) : '';
    return { kind: 'value', column: filter.column, operator: filter.operator, prefix, quoted: !!partial && partial.kind === 'value', replace: range(replaceStart, replaceEnd()), space: !partial && needsSpace(text, offset) };
  }
  if (partial && partial.kind === 'value') return { kind: 'none' };
  return { kind: 'word', replace: range(replaceStart, replaceEnd()), space: !partial && needsSpace(text, offset), after: afterOf(before, prevIndex) };
}

/** True when the character before the cursor glues to a new token (`[delay]|`, `>|`). */
function needsSpace(text: string, offset: number): boolean {
  if (offset === 0) return false;
  const c = text[offset - 1]!;
  return !/[\s([,]/.test(c);
}

/**
 * The filter whose value comes after token `prev` (the token before the cursor, or before the word being
 * typed), read from the parse of the query: `prev` is the filter's operator (`[origin] = |`: the parser's
 * filter with its value missing, a `missing` node of the tree), or a comma, `or` or the `and` of `between`
 * in its value list, before the query's next clause. Undefined elsewhere.
 */
function filterAt(doc: SyntaxDocument, prev: Token | undefined): { column: string; operator: string } | undefined {
  if (!prev || !(prev.kind === 'operator' || prev.kind === 'comma' || prev.kind === 'keyword')) return undefined;
  const i = doc.queryIndexAt(prev.start);
  if (i < 0) return undefined;
  const f = filterAfter(doc.query(i).clauses, prev);
  return f ? { column: f.column.name, operator: f.operator } : undefined;
}

/** The filter of `clauses` (subsearches included) whose value position `prev` opens (see `filterAt`). */
function filterAfter(clauses: readonly Clause[], prev: Token): Extract<Clause, { kind: 'filter' }> | undefined {
  for (let k = 0; k < clauses.length; k++) {
    const c = clauses[k]!;
    if (c.kind === 'subsearch') {
      const inner = filterAfter(c.clauses, prev);
      if (inner) return inner;
      continue;
    }
    if (c.kind !== 'filter' || prev.start < c.operatorStart) continue;
    if (prev.start === c.operatorStart) return c;
    const next = clauses[k + 1];
    if (next && next.start <= prev.start) continue;
    if (prev.kind === 'comma' || (prev.kind === 'keyword' && prev.value === 'or')) return c;
    if (prev.kind === 'keyword' && prev.value === 'and' && c.operator === 'between' && c.values.length >= 1 && c.values[0]!.end <= prev.start) return c;
  }
  return undefined;
}

/** The column token ending at token `i`: `[col]` itself, or `[col].bucket` / `[col].'bucket'`. */
function columnEndingAt(tokens: Token[], i: number): Token | undefined {
  const t = tokens[i];
  if (!t) return undefined;
  if (t.kind === 'column') return t;
  const dot = tokens[i - 1];
  const col = tokens[i - 2];
  if (dot && dot.kind === 'dot' && dot.end === t.start && col && col.kind === 'column' && col.end === dot.start) return col;
  return undefined;
}

function afterOf(tokens: Token[], i: number): After {
  const t = tokens[i];
  if (!t) return { kind: 'start' };
  const col = columnEndingAt(tokens, i);
  if (col && col.closed) {
    const k = tokens[i - (col === t ? 1 : 3)];
    return { kind: 'column', column: col.value, sortBy: !!k && k.kind === 'keyword' && k.value === 'sort by' };
  }
  if (t.kind === 'keyword') return { kind: 'keyword', keyword: t.value, previous: tokens[i - 1] };
  if (t.kind === 'number') return { kind: 'number', previous: tokens[i - 1] };
  if (t.kind === 'value') {
    const op = tokens[i - 1];
    return { kind: 'value', betweenValue: !!op && op.kind === 'keyword' && op.value === 'between' };
  }
  return { kind: 'other' };
}

// ---- items ----------------------------------------------------------------------------------------

const TYPE_LABEL: Record<string, string> = { ATTRIBUTE: 'attribute', MEASURE: 'measure' };

/** Markdown describing a column: data type, kind, data source, description (used by hover too). */
export function columnMarkdown(column: Column, dataSource: string): string {
  const lines = [`**[${column.name}]** — ${column.dataType} ${TYPE_LABEL[column.kind] ?? column.kind}`, '', `Data source: **${dataSource}**`];
  if (column.description) lines.push('', column.description);
  if (column.synonyms?.length) lines.push('', `Synonyms: ${column.synonyms.join(', ')}`);
  return lines.join('\n');
}

/** Markdown describing a keyword: its meaning, an example, whether the local emulator runs it and its reference page (used by hover too). */
export function keywordMarkdown(info: KeywordInfo): string {
  const note = info.emulator === 'unsupported' ? ['', '_Not supported by the local emulator (it answers 400)._'] : [];
  return [`**${info.name}** — ${info.meaning}`, '', 'Example:', '```tsq', info.example, '```', ...note, '', `Reference: ThoughtSpot keyword reference, \`${info.page}\`.`].join('\n');
}

interface ColumnTemplate {
  label: string;
  /** `label` in lower case, for `pickColumns`. */
  lower: string;
  bracketedLabel: string;
  closedText: string;
  detail: string;
  sortIndex: string;
}
/**
 * Item parts that do not depend on the cursor, cached per data source (1,000 columns are described once,
 * not per keystroke). The server's catalog answers the same validated object while it answers from its
 * cache (identity hit); a catalog that answers a fresh copy of the same columns still
 * reuses the entry when its columns are equal field by field — a comparison that allocates nothing.
 */
const templates = new Map<string, { columns: Column[]; list: ColumnTemplate[] }>();
/** Data sources whose templates are kept (least recently used dropped first). */
const TEMPLATE_CACHE_SIZE = 16;

function sameColumns(a: readonly Column[], b: readonly Column[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.dataType !== y.dataType || x.kind !== y.kind || x.description !== y.description) return false;
    const sx = x.synonyms;
    const sy = y.synonyms;
    if (sx !== sy && (!sx || !sy || sx.length !== sy.length || sx.some((v, j) => v !== sy[j]))) return false;
  }
  return true;
}

function columnTemplates(columns: DataSourceColumns): ColumnTemplate[] {
  const key = `${columns.id}\u0000${columns.name}`;
  const hit = templates.get(key);
  templates.delete(key);
  if (hit && sameColumns(hit.columns, columns.columns)) {
    templates.set(key, hit);
    return hit.list;
  }
  const width = String(columns.columns.length).length;
  const list = columns.columns.map((c, i) => ({
    label: c.name,
    lower: c.name.toLowerCase(),
    bracketedLabel: `[${c.name}]`,
    closedText: `${c.name}]`,
    detail: `${c.dataType} ${TYPE_LABEL[c.kind] ?? c.kind}`,
    sortIndex: String(i).padStart(width, '0'),
  }));
  templates.set(key, { columns: columns.columns, list });
  if (templates.size > TEMPLATE_CACHE_SIZE) templates.delete(templates.keys().next().value!);
  return list;
}

/** The `data` of each column item, made once per template list and data source (items share them; they are never mutated). */
const itemDataCache = new WeakMap<ColumnTemplate[], { dataSource: string; data: CompletionItemData[] }>();
function itemData(list: ColumnTemplate[], dataSource: string): CompletionItemData[] {
  const hit = itemDataCache.get(list);
  if (hit && hit.dataSource === dataSource) return hit.data;
  const data = list.map((t): CompletionItemData => ({ column: t.label, dataSource }));
  itemDataCache.set(list, { dataSource, data });
  return data;
}

/**
 * Most column items in one completion list. A data source with more columns gets the first this many of
 * those that match what is typed (`pickColumns`) in a list marked incomplete, so that the client asks
 * again as the person types. Measured (test/bench/server.bench.ts, 10,000 columns over stdio): the whole
 * list was 2 MB of JSON and took 30–50 ms a request at the median, nearly all of it in making, copying
 * (`withDefaultEditRange`), encoding and collecting 10,000 items, and the client had 2 MB to decode;
 * 200 items make a list of about 40 KB, p50 0.8 ms. A person sees a dozen.
 */
export const COLUMN_LIST_LIMIT = 200;

/** Whether a data source has more columns than one list holds (its lists are then incomplete). */
function isCapped(columns: DataSourceColumns | undefined): boolean {
  return !!columns && columns.columns.length > COLUMN_LIST_LIMIT;
}

/**
 * How well a column name matches what is typed, both in lower case: 0 a prefix (or nothing typed), 1 at
 * the start of a later word, 2 inside a word, 3 the typed characters in order anywhere (as a client's
 * fuzzy filter may match), -1 no match.
 */
export function columnMatch(name: string, typed: string): number {
  if (!typed || name.startsWith(typed)) return 0;
  const at = name.indexOf(typed);
  if (at > 0) return /[\s_\-./(]/.test(name[at - 1]!) ? 1 : 2;
  let j = 0;
  for (let i = 0; i < name.length && j < typed.length; i++) if (name.charCodeAt(i) === typed.charCodeAt(j)) j++;
  return j === typed.length ? 3 : -1;
}

/**
 * The indices of the columns one list offers: all of them when there are at most `limit`; otherwise at
 * most `limit` of those matching `typed` (case-insensitive, `columnMatch`), best matches first and in
 * catalog order within a kind of match.
 * @param lower the column names in lower case, in catalog order.
 * @param typed what was typed of the name so far (any case; '' for nothing).
 */
export function pickColumns(lower: readonly string[], typed: string, limit = COLUMN_LIST_LIMIT): number[] {
  if (lower.length <= limit) return lower.map((_, i) => i);
  const key = typed.trim().toLowerCase();
  const byMatch: number[][] = [[], [], [], []];
  for (let i = 0; i < lower.length; i++) {
    const m = columnMatch(lower[i]!, key);
    if (m === 0 && byMatch[0]!.length >= limit) break; // the best kind alone fills the list
    if (m >= 0) byMatch[m]!.push(i);
  }
  return byMatch.flat().slice(0, limit);
}

/** The lower-case names of a template list, made once per list. */
const lowerCache = new WeakMap<ColumnTemplate[], string[]>();
function lowerNames(list: ColumnTemplate[]): string[] {
  let lower = lowerCache.get(list);
  if (!lower) lowerCache.set(list, (lower = list.map((t) => t.lower)));
  return lower;
}

/**
 * Column items. Inside brackets (`bracketed` false) the name replaces what was typed and `suffix` (`]` or
 * '') closes the bracket; at a word start (`bracketed` true) `[name]` is inserted. No documentation:
 * `data` names the column and `dataSource` (the name or GUID the columns were asked by) for `doResolve`.
 * A data source of more than COLUMN_LIST_LIMIT columns gets only those `pickColumns` picks for `typed`.
 */
function columnItems(columns: DataSourceColumns, dataSource: string, replace: Range, suffix: string, bracketed: boolean, typed: string, rank: Rank = Rank.Fits, space = false): CompletionItem[] {
  const list = columnTemplates(columns);
  const data = itemData(list, dataSource);
  const picked = list.length > COLUMN_LIST_LIMIT ? pickColumns(lowerNames(list), typed) : undefined;
  const count = picked ? picked.length : list.length;
  const items: CompletionItem[] = new Array(count);
  const lead = space ? ' ' : '';
  for (let k = 0; k < count; k++) {
    const i = picked ? picked[k]! : k;
    const t = list[i]!;
    const newText = bracketed ? (space ? lead + t.bracketedLabel : t.bracketedLabel) : suffix ? t.closedText : t.label;
    items[k] = {
      label: bracketed ? t.bracketedLabel : t.label,
      kind: CompletionItemKind.Field,
      detail: t.detail,
      sortText: rank + t.sortIndex,
      filterText: bracketed && space ? lead + t.label : t.label,
      textEdit: { range: replace, newText },
      data: data[i],
    };
  }
  return items;
}

function bucketItem(bucket: DateBucket, index: number, replace: Range): CompletionItem {
  const info = findKeyword(bucket);
  const text = bucket.includes(' ') ? `'${bucket}'` : bucket;
  return {
    label: bucket,
    kind: CompletionItemKind.EnumMember,
    detail: info?.meaning ?? 'Date bucket',
    documentation: info ? { kind: MarkupKind.Markdown, value: keywordMarkdown(info) } : undefined,
    sortText: Rank.Fits + String(index).padStart(2, '0'),
    filterText: text,
    textEdit: { range: replace, newText: text },
  };
}

/**
 * `fiscal`, the service's custom calendars (the catalog's `getCalendars`: v2 `calendars/search`, over
 * `tsq/calendars` in the editor) and every calendar already named in the document, in that order, each
 * once ignoring case (docs/service-interface.md §4.3: `calendar.name`, quoted when multi-word). Without a
 * catalog, or when it cannot list them, the others only.
 */
async function calendarItems(ctx: ServiceContext, document: TextDocument, replace: Range, token?: CancellationLike): Promise<CompletionItem[]> {
  /** Longest calendar name offered (characters). */
  const MAX_CALENDAR_NAME = 255;
  const names = new Map<string, { name: string; detail: string }>();
  const add = (name: string, detail: string) => {
    // a name holding a quote or a line break cannot be written after calendar. (docs/service-interface.md §4.3);
    // one longer than MAX_CALENDAR_NAME is no name a person types (a service's answer is not trusted to be sane)
    if (name.trim() && name.length <= MAX_CALENDAR_NAME && !/['\r\n]/.test(name) && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), { name, detail });
  };
  for (const c of BUILT_IN_CALENDARS) add(c.name, c.meaning);
  let service: string[] | undefined;
  try {
    service = await ctx.catalog?.getCalendars?.(token);
  } catch {
    service = undefined; // unknown: the document's names still help
  }
  for (const name of service ?? []) add(name, 'A custom calendar of the service (connections-cust-cal)');
  for (const q of ctx.parse(document).queries) {
    for (const clause of q.clauses) if (clause.kind === 'calendar') add(clause.name, 'A calendar used elsewhere in this document');
  }
  return [...names.values()].map(({ name, detail }, i) => {
    const text = /^[A-Za-z_][\w-]*$/.test(name) ? name : `'${name}'`;
    return {
      label: name,
      kind: CompletionItemKind.EnumMember,
      detail,
      sortText: Rank.Fits + String(i).padStart(3, '0'),
      filterText: text,
      textEdit: { range: replace, newText: text },
    };
  });
}

/** `{null}` / `{empty}` after `=` and `!=` (docs/service-notes.md §2.3), when nothing quoted was started. */
function constantItems(context: Extract<Context, { kind: 'value' }>): CompletionItem[] {
  if (!(context.operator === '=' || context.operator === '!=') || context.quoted) return [];
  return KEYWORDS.filter((k) => k.category === 'constant').map((info) => {
    const name = info.name;
    return {
      label: name,
      kind: CompletionItemKind.Constant,
      detail: info.meaning,
      documentation: { kind: MarkupKind.Markdown, value: keywordMarkdown(info) },
      sortText: Rank.Other + name,
      filterText: name,
      textEdit: { range: context.replace, newText: (context.space ? ' ' : '') + name },
    };
  });
}

/**
 * Value items: quoted (docs/service-interface.md §4.3), numbers of numeric columns unquoted; a value containing a quote cannot
 * be written (docs/service-interface.md §8.5) and is skipped.
 */
function valueItems(values: string[], column: Column | undefined, context: Extract<Context, { kind: 'value' }>): CompletionItem[] {
  const numeric = !!column && NUMERIC_TYPES.has(column.dataType);
  const items: CompletionItem[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string' || v.includes("'") || seen.has(v)) continue;
    seen.add(v);
    const text = numeric && /^-?\d+(\.\d+)?$/.test(v) ? v : `'${v}'`;
    items.push({
      label: text,
      kind: CompletionItemKind.Value,
      detail: column ? `${column.name} · ${column.dataType}` : undefined,
      sortText: Rank.Fits + String(items.length).padStart(2, '0'),
      filterText: text,
      textEdit: { range: context.replace, newText: (context.space ? ' ' : '') + text },
    });
  }
  return items;
}

const keywordDocs = new Map<string, { kind: MarkupKind; value: string }>();
/** The markdown documentation of a keyword, built once. */
function keywordDoc(info: KeywordInfo): { kind: MarkupKind; value: string } {
  let doc = keywordDocs.get(info.name);
  if (!doc) keywordDocs.set(info.name, (doc = { kind: MarkupKind.Markdown, value: keywordMarkdown(info) }));
  return doc;
}

function keywordItem(info: KeywordInfo, sortText: string, range: Range, space: boolean, kind?: CompletionItemKind): CompletionItem {
  return {
    label: info.name,
    kind: kind ?? (info.category === 'comparison' && !/^[a-z]/.test(info.name) ? CompletionItemKind.Operator : CompletionItemKind.Keyword),
    detail: info.meaning,
    sortText,
    filterText: (space ? ' ' : '') + info.name,
    textEdit: { range, newText: (space ? ' ' : '') + info.name },
    data: { keyword: info.name } satisfies CompletionItemData,
  };
}

/** The subsearch keywords (`in`, `not in`). */
const SUBSEARCHES = KEYWORDS.filter((k) => k.category === 'in').map((k) => k.name);

/** Keyword names that fit after a column of a given data type (unknown type: all operators): the catalogue's operators, and the subsearches on text. */
function operatorsFor(dataType: ColumnDataType | undefined): string[] {
  const ops: string[] = filterOperatorsFor(dataType);
  return !dataType || TEXT_TYPES.has(dataType) ? [...ops, ...SUBSEARCHES] : ops;
}

/** Items at the start of a word: the keywords (and columns) that fit what precedes it. */
function wordItems(document: TextDocument, text: string, offset: number, context: Extract<Context, { kind: 'word' }>, columns: DataSourceColumns | undefined, dataSource: string | undefined): CompletionItem[] {
  const after = context.after;
  const fits: string[] = [];
  let columnsFirst = false;
  let offerColumns = true;
  let defaults = true;
  switch (after.kind) {
    case 'column': {
      const col = findColumn(columns, after.column);
      if (after.sortBy) fits.push('descending', 'ascending');
      fits.push(...operatorsFor(col?.dataType));
      if (!col || DATE_TYPES.has(col.dataType)) {
        fits.push(...(col ? bucketsFor(col.dataType) : DATE_BUCKETS).filter((b) => !b.includes(' ')));
        fits.push(...DATE_FILTER_KEYWORDS);
      }
      break;
    }
    case 'keyword': {
      const k = after.keyword;
      if (BEFORE_COLUMN.has(k)) columnsFirst = true;
      if (k === 'last' || k === 'next' || k === 'this') {
        fits.push(...DATE_UNITS);
        offerColumns = false;
      }
      if (findKeyword(k)?.category === 'dateUnit' && after.previous?.kind === 'number') fits.push('ago', 'for each');
      if (k === 'growth of') defaults = false;
      break;
    }
    case 'number': {
      const p = after.previous;
      if (p && p.kind === 'keyword' && (p.value === 'last' || p.value === 'next')) {
        fits.push(...DATE_UNITS);
        offerColumns = false;
      } else if (p && p.kind === 'keyword' && p.value === 'between') {
        fits.push('and');
      } else if (!p || (p.kind !== 'keyword' || (p.value !== 'top' && p.value !== 'bottom'))) {
        fits.push(...DATE_UNITS);
      }
      break;
    }
    case 'value':
      if (after.betweenValue) fits.push('and');
      fits.push('vs');
      break;
    default:
      break;
  }
  const items: CompletionItem[] = [];
  const used = new Set<string>();
  const multiWord = multiWordStarts(document, text, offset, context.replace);
  const add = (info: KeywordInfo | undefined, sortText: string) => {
    if (!info || used.has(info.name)) return;
    used.add(info.name);
    const r = info.name.includes(' ') ? (multiWord(info.name) ?? context.replace) : context.replace;
    items.push(keywordItem(info, sortText, r, context.space && r === context.replace));
  };
  // What fits keeps its order (operators as in the vocabulary, descending before ascending).
  fits.forEach((name, i) => add(findKeyword(name), Rank.Fits + String(i).padStart(3, '0')));
  if (defaults) for (const info of KEYWORDS) if (WORD_START_CATEGORIES.has(info.category)) add(info, Rank.Keyword + info.name);
  if (columns && dataSource && offerColumns) {
    const typed = text.slice(document.offsetAt(context.replace.start), offset);
    for (const it of columnItems(columns, dataSource, context.replace, '', true, typed, columnsFirst ? Rank.Fits : Rank.Column, context.space)) items.push(it);
  }
  return items;
}

/**
 * For multi-word keywords: when the words typed before the cursor (`sort b|`, `for e|`) are the start of
 * the keyword, the range to replace starts at the first of them, so that the client filters on the
 * whole typed phrase.
 */
function multiWordStarts(document: TextDocument, text: string, offset: number, replace: Range): (keyword: string) => Range | undefined {
  const replaceStart = document.offsetAt(replace.start);
  const lineStart = offset - document.positionAt(offset).character;
  const headStart = Math.max(lineStart, replaceStart - 40);
  const head = text.slice(headStart, replaceStart);
  // Start offsets of up to three words directly before the replaced text, separated by blanks.
  const starts: number[] = [];
  let p = head.length;
  while (starts.length < 3) {
    let q = p;
    while (q > 0 && (head[q - 1] === ' ' || head[q - 1] === '\t')) q--;
    if (q === p) break;
    let w = q;
    while (w > 0 && /[A-Za-z_-]/.test(head[w - 1]!)) w--;
    if (w === q) break;
    starts.push(w);
    p = w;
  }
  if (!starts.length) return () => undefined;
  const typed = text.slice(replaceStart, offset).toLowerCase();
  return (keyword) => {
    for (let n = starts.length - 1; n >= 0; n--) {
      const phrase = head.slice(starts[n]!).trim().toLowerCase().split(/[ \t]+/).join(' ');
      if (keyword.startsWith(`${phrase} ${typed}`)) return { start: document.positionAt(headStart + starts[n]!), end: replace.end };
    }
    return undefined;
  };
}

// ---- @datasource ------------------------------------------------------------------------------------

async function completeDirective(ctx: ServiceContext, document: TextDocument, offset: number, lineStart: number, m: RegExpExecArray, token?: CancellationLike): Promise<CompletionList> {
  const text = document.getText();
  const range = (start: number, end: number): Range => ({ start: document.positionAt(start), end: document.positionAt(end) });
  const [, indent, word, space] = m;
  if (space === undefined) {
    // `@da|`: the directive itself.
    const start = lineStart + indent!.length;
    return {
      isIncomplete: false,
      items: [{
        label: '@datasource',
        kind: CompletionItemKind.Keyword,
        detail: 'The data source of the following queries',
        documentation: { kind: MarkupKind.Markdown, value: "**@datasource** 'name or GUID' — the data source of every following query, until the next `@datasource`.\n\n```tsq\n@datasource 'Flights'\n[origin] [delay]\n```" },
        filterText: '@datasource',
        textEdit: { range: range(start, wordEnd(text, start + 1 + word!.length)), newText: '@datasource ' },
      }],
    };
  }
  if (word!.toLowerCase() !== 'datasource' || !ctx.catalog) return EMPTY;
  const sources = await ctx.catalog.getDataSources(token);
  if (token?.isCancellationRequested) return CANCELLED;
  if (!sources) return EMPTY;
  const valueStart = offset - m[4]!.length - m[5]!.length;
  // Replace the rest of the value too, and its closing quote.
  let end = offset;
  while (end < text.length && text[end] !== "'" && text[end] !== '\n' && text[end] !== '\r') end++;
  end = text[end] === "'" ? end + 1 : offset + (wordEnd(text, offset) - offset);
  const r = range(valueStart, end);
  return {
    isIncomplete: false,
    items: sources.map((s, i) => ({
      label: s.name,
      kind: CompletionItemKind.Module,
      detail: `${s.type} · ${s.id}`,
      documentation: { kind: MarkupKind.Markdown, value: `**${s.name}**\n\nType: ${s.type}\n\nGUID: \`${s.id}\`` },
      sortText: String(i).padStart(5, '0'),
      filterText: `'${s.name}'`,
      textEdit: { range: r, newText: `'${s.name}'` },
    })),
  };
}
