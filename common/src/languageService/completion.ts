/**
 * Completion for `.tsq` documents: columns after `[`, date buckets after `[date column].`,
 * calendars after `calendar.`, the operators and keywords that fit after a column, column values after a
 * comparison operator (from `tsq/columnValues`), keywords at the start of a word (multi-word ones as one
 * item), and data sources after `@datasource`.
 *
 * The context is read from the lossless syntax tree (language/cursor.ts `TreeCursor`, docs/architecture.md
 * "The syntax tree"): the token under the cursor, the significant tokens before it in its query and the
 * nodes holding them (`readContext`). Nothing is lexed or parsed again per keystroke.
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
  BOOLEAN_VALUES, DATE_BUCKETS, DATE_TYPES, DATE_UNITS, GROWTH_DEFAULT_BUCKET, KEYWORDS, NUMERIC_TYPES, PERIOD_OVER_PERIOD, TEXT_TYPES, bucketsFor, findKeyword, keywordReferenceUrl,
  operatorsFor as filterOperatorsFor, type DateBucket, type KeywordCategory, type KeywordInfo,
} from '../language/keywords';
import { DATE_OPERAND_KEYWORDS, KEYWORDS_BEFORE_COLUMN, KEYWORDS_BEFORE_DATE_UNIT, dotExpectations } from '../language/grammar';
import type { Token } from '../language/lexer';
import { dataSourceAt, type SyntaxDocument } from '../language/parser';
import { treeCursorAt, type TreeCursor, type TreeNode, type TreeToken } from '../language/cursor';
import type { CancellationLike, CompletionItemData, LanguageSettings, ServiceContext } from './types';
import { findColumnByName, pathCompletion, pathNameOf } from './tablePaths';

/** The answer to a cancelled request (LSP: an incomplete empty list makes the client ask again). */
const CANCELLED: CompletionList = { isIncomplete: true, items: [] };
const EMPTY: CompletionList = { isIncomplete: false, items: [] };

// The column-type facts are the keyword catalogue's (one fact for the language service and the emulator).
export { DATE_TYPES, NUMERIC_TYPES, TEXT_TYPES, bucketsFor };

/** Calendars offered after `calendar.` besides those already written in the document (docs/service-notes.md §1.5, 2.5). */
export const BUILT_IN_CALENDARS: readonly { name: string; meaning: string }[] = [
  { name: 'fiscal', meaning: 'The fiscal-offset calendar of the cluster (docs/service-notes.md §2.5).' },
];

/** Keyword categories offered at the start of a word when nothing more specific fits. */
const WORD_START_CATEGORIES: ReadonlySet<KeywordCategory> = new Set(['general', 'aggregation', 'filter', 'date', 'period', 'in', 'location', 'dateName']);

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
  | { kind: 'bucket'; column: string; replace: Range; prefix: string }
  | { kind: 'calendar'; replace: Range; written: string[] }
  | { kind: 'value'; column: string; operator: string; prefix: string; quoted: boolean; replace: Range; space: boolean }
  | { kind: 'word'; replace: Range; space: boolean; after: After; heads: number[] };

/** What precedes a word being typed. */
type After =
  | { kind: 'start' }
  | { kind: 'column'; column: string; sortBy: boolean; growthBucket?: DateBucket }
  | { kind: 'keyword'; keyword: string; previous?: Token; growthBucket?: DateBucket }
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

  const range = (start: number, end: number): Range => ({ start: document.positionAt(start), end: document.positionAt(end) });
  const context = readContext(ctx.parse(document), text, offset, range);
  if (context.kind === 'none') return EMPTY;

  const dataSource = dataSourceAt(ctx.parse(document), offset) || settings.defaultDataSource?.trim() || undefined;
  const columns = ctx.catalog && dataSource && context.kind !== 'calendar' ? await knownColumns(ctx, dataSource, token) : undefined;
  if (token?.isCancellationRequested) return CANCELLED;

  switch (context.kind) {
    case 'column': {
      const typed = text.slice(document.offsetAt(context.replace.start), offset);
      // `[airports_2::|` on a model: the columns of that table path, named as its table names them
      const paths = columns && pathCompletion(columns.columns, typed);
      if (paths) return { isIncomplete: false, items: pathItems(paths, dataSource!, range(document.offsetAt(context.replace.start) + paths.offset, document.offsetAt(context.replace.end)), context.close ? ']' : '') };
      return { isIncomplete: isCapped(columns), items: columns ? columnItems(ctx.memo.completion, columns, dataSource!, context.replace, context.close ? ']' : '', false, typed) : [] };
    }
    case 'bucket': {
      // what the grammar expects after the dot on this column (grammar.ts `dotExpectations`): buckets of a
      // date, the token form's values of an attribute (`[origin].SEA`, docs/service-notes.md §2.11),
      // booleans, relative dates; a column the catalog does not know gets nothing
      const col = findColumn(columns, context.column);
      if (!col && columns) return EMPTY;
      const expect = dotExpectations(col);
      const items = expect.buckets.map((b, i) => bucketItem(b, i, context.replace));
      const more = [...expect.booleans, ...expect.relativeDates];
      let isIncomplete = false;
      if (expect.values && ctx.catalog && dataSource) {
        const values = await ctx.catalog.getColumnValues(dataSource, col!.name, context.prefix, token);
        if (token?.isCancellationRequested) return CANCELLED;
        isIncomplete = true;
        more.unshift(...(values ?? []).filter((v) => typeof v === 'string' && !v.includes("'")));
        more.push(...KEYWORDS.filter((k) => k.category === 'constant').map((k) => k.name));
      }
      const from = items.length;
      more.forEach((v, i) => items.push(dotValueItem(v, from + i, context.replace)));
      return { isIncomplete, items };
    }
    case 'calendar':
      return { isIncomplete: false, items: await calendarItems(ctx, context.written, context.replace, token) };
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
      return { isIncomplete: isCapped(columns), items: wordItems(ctx.memo.completion, document, text, offset, context, columns, dataSource) };
  }
}

/**
 * `completionItem/resolve`: adds the markdown `documentation` of a column or keyword item from its `data`
 * (`CompletionItemData`, set by `doComplete`). A column is looked up again through the catalog (by the
 * data source name or GUID it was completed from, exact name; a column item whose `data` is only
 * `{ dataSource }`, the list's `itemDefaults.data` (server/src/features/completion.ts `withItemDefaults`),
 * by its label); a keyword in the catalogue.
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
    return info ? { ...item, documentation: keywordDoc(ctx.memo.completion.keywordDocs, info) } : item;
  }
  // a column item of a list whose itemDefaults.data holds only the data source names its column by its label
  const name = typeof data.column === 'string' ? data.column : item.kind === CompletionItemKind.Field ? columnOfLabel(item.label) : undefined;
  if (name === undefined || typeof data.dataSource !== 'string' || !ctx.catalog || token?.isCancellationRequested) return item;
  const columns = await knownColumns(ctx, data.dataSource, token);
  if (!columns || token?.isCancellationRequested) return item;
  const column = columns.columns.find((c) => c.name === name);
  return column ? { ...item, documentation: { kind: MarkupKind.Markdown, value: columnMarkdown(column, columns.name) } } : item;
}

/** The column a column item's label names: `name` inside brackets, `[name]` at the start of a word. */
function columnOfLabel(label: string): string {
  return label.length >= 2 && label.startsWith('[') && label.endsWith(']') ? label.slice(1, -1) : label;
}

/** Columns of a data source, or undefined when unknown or missing. */
async function knownColumns(ctx: ServiceContext, dataSource: string, token?: CancellationLike): Promise<DataSourceColumns | undefined> {
  return (await ctx.catalog!.getColumns(dataSource, token)) ?? undefined;
}

/**
 * A column by name, case-insensitively and ignoring surrounding spaces (docs/service-interface.md §8.2,
 * 8.3), then by its table path (`[airports_2::city]`, tablePaths.ts `findColumnByName`).
 */
export function findColumn(columns: DataSourceColumns | undefined, name: string): Column | undefined {
  return columns ? findColumnByName(columns.columns, name) : undefined;
}

// ---- context ------------------------------------------------------------------------------------------

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c >= 0xc0;
/** Offset of the end of the run of word characters starting at `from`. */
function wordEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
  return i;
}

/** Whether `text[from, to)` is blanks only (spaces and tabs; no line break). */
function blankGap(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * The completion context at `offset`, read from the document's syntax tree (tree.ts, through cursor.ts
 * `TreeCursor`): the token under the cursor, the significant tokens before it within its query, and the
 * nodes holding them (a `columnRef` and its clause, a `filter` and its `value` children, the `missing`
 * value of `[sales] >`). Nothing is lexed again.
 */
function readContext(doc: SyntaxDocument, text: string, offset: number, range: (start: number, end: number) => Range): Context {
  const cur = treeCursorAt(doc, offset);
  const underTok = cur.under;
  const under = underTok?.token;
  // In a comment, or on an `@datasource` line (its value is completed by `completeDirective`).
  if (under && (under.kind === 'comment' || under.kind === 'directive')) return NONE;

  // Inside a column's brackets: `[fl|`, `[fl|]`, `[or|igin]`.
  if (under && under.kind === 'column' && (!under.closed || offset < under.end)) {
    if (under.closed) return { kind: 'column', replace: range(under.innerStart, under.innerEnd), close: false };
    const end = wordEnd(text, offset);
    return { kind: 'column', replace: range(under.innerStart, end), close: text.charCodeAt(end) !== 93 };
  }
  // The token being typed ends at the cursor: a word, keyword or number, or a value before its closing quote.
  const partialTok = under && (under.kind === 'word' || under.kind === 'keyword' || under.kind === 'number' || (under.kind === 'value' && (!under.closed || offset < under.end))) ? underTok : undefined;
  const partial = partialTok?.token;
  // Inside an operator, a constant or a stray run (`!|=`, `{nu|ll}`): nothing to complete there.
  if (under && !partial && offset < under.end) return NONE;
  let prevTok = cur.previous(partialTok);
  // `[Major |`: blanks after an unclosed column's name still belong to it.
  if (!partial && prevTok && prevTok.token.kind === 'column' && !prevTok.token.closed && blankGap(text, prevTok.token.end, offset)) {
    const end = wordEnd(text, offset);
    return { kind: 'column', replace: range(prevTok.token.innerStart, end), close: text.charCodeAt(end) !== 93 };
  }
  // `[origin] not con|`, `growth o|`: words that start a multi-word keyword belong to the word being typed.
  for (let k = 0; k < 2 && partial && partial.kind !== 'value'; k++) {
    const w = prevTok?.token;
    if (!w || w.kind !== 'word' || !MULTI_WORD_HEADS.has(w.value.toLowerCase()) || /[\r\n]/.test(text.slice(w.end, partial.start))) break;
    prevTok = cur.previous(prevTok);
  }
  const prev = prevTok?.token;
  const replaceStart = partial ? partial.start : offset;
  /** End of the replaced text: the rest of the token under the cursor (a value's closing quote included). */
  const replaceEnd = (): number => {
    if (partial && partial.kind === 'value') {
      if (partial.closed) return partial.end;
      let e = offset;
      while (e < text.length && !/[\s']/.test(text[e]!)) e++;
      return text[e] === "'" ? e + 1 : e;
    }
    return partial ? partial.end : wordEnd(text, offset);
  };

  // `[date].|`, `[date].mon|`, `[date].'day o|`: the dot of a column reference; `calendar.|`.
  if (prevTok && prev!.kind === 'dot' && prev!.end === replaceStart) {
    // the token before the dot: a column glued to it (`[origin].SEA` is a filter, the dot outside its columnRef)
    const owner = cur.previous(prevTok)?.token;
    if (owner && owner.kind === 'column' && owner.end === prev!.start) {
      const prefix = partial ? text.slice(partial.kind === 'value' ? partial.innerStart : partial.start, offset) : '';
      return { kind: 'bucket', column: owner.value, replace: range(replaceStart, replaceEnd()), prefix };
    }
    if (owner && owner.end === prev!.start && owner.kind === 'keyword' && owner.value === 'calendar') {
      return { kind: 'calendar', replace: range(replaceStart, replaceEnd()), written: cur.calendarNames() };
    }
    return NONE;
  }
  // After a filter's operator, a comma or `or` in its value list, the `and` of `between`: values of its column.
  const slot = prevTok && valueSlot(cur, prevTok);
  if (slot) {
    const prefix = partial ? text.slice(partial.kind === 'value' ? partial.innerStart : partial.start, offset) : '';
    return { kind: 'value', column: slot.column, operator: slot.operator, prefix, quoted: !!partial && partial.kind === 'value', replace: range(replaceStart, replaceEnd()), space: !partial && needsSpace(text, offset) };
  }
  if (partial && partial.kind === 'value') return NONE;
  return { kind: 'word', replace: range(replaceStart, replaceEnd()), space: !partial && needsSpace(text, offset), after: afterOf(cur, prevTok), heads: headsBefore(cur, text, partialTok, replaceStart) };
}

const NONE: Context = { kind: 'none' };

/** True when the character before the cursor glues to a new token (`[delay]|`, `>|`). */
function needsSpace(text: string, offset: number): boolean {
  if (offset === 0) return false;
  const c = text[offset - 1]!;
  return !/[\s([,]/.test(c);
}

/** The last (innermost) of the nodes `TreeCursor.nodesOf` answers. */
function innermost(nodes: TreeNode[]): TreeNode | undefined {
  return nodes[nodes.length - 1];
}

/** A filter's column and operator as written (`=`, `between`, `contains`; '' when none is), from its nodes and tokens. */
function filterParts(cur: TreeCursor, part: number, filter: TreeNode): { ref: TreeNode; column: string; operator: string; values: TreeNode[] } | undefined {
  const children = cur.childrenOf(part, filter);
  const ref = children.find((c) => c.kind === 'columnRef');
  const column = ref && cur.token(part, ref.from)?.token;
  if (!ref || !column || column.kind !== 'column') return undefined;
  let operator = '';
  for (let t = ref.to; t < filter.to && !operator; t++) {
    const tok = cur.token(part, t)?.token;
    if (tok && tok.kind !== 'comment') operator = tok.value;
  }
  return { ref, column: column.value, operator, values: children.filter((c) => c.kind === 'value') };
}

/**
 * The filter whose value comes after `prevTok` (the token before the cursor, or before the word being
 * typed): `prevTok` stands in a `filter` node after its column and in none of its children — its
 * operator (`[origin] = |`: the filter's value is a `missing` node), a comma or `or` of its value list,
 * the `and` of `between` after the first value — or it is a comma or `or` right after a filter's last
 * token (`[origin] = 'SEA', |`: the parser leaves a dangling separator out of the filter). Subsearches
 * included (their filters are nodes like any other). Undefined elsewhere.
 */
function valueSlot(cur: TreeCursor, prevTok: TreeToken): { column: string; operator: string } | undefined {
  const t = prevTok.token;
  if (!(t.kind === 'operator' || t.kind === 'keyword' || t.kind === 'comma')) return undefined;
  const at = innermost(cur.nodesOf(prevTok));
  if (at && at.kind === 'filter') {
    const f = filterParts(cur, prevTok.part, at);
    if (!f || prevTok.index < f.ref.to) return undefined;
    if (t.kind === 'keyword' && t.value === 'and' && !(f.operator === 'between' && f.values.some((v) => v.to <= prevTok.index))) return undefined;
    return { column: f.column, operator: f.operator };
  }
  if (t.kind === 'comma' || (t.kind === 'keyword' && t.value === 'or')) {
    const before = cur.previous(prevTok);
    const filter = before && cur.nodesOf(before).filter((n) => n.kind === 'filter').pop();
    if (!before || !filter || filter.to !== before.index + 1) return undefined;
    const f = filterParts(cur, before.part, filter);
    return f && { column: f.column, operator: f.operator };
  }
  return undefined;
}

/**
 * What precedes the word being typed, from `prevTok` and the nodes holding it: the last token of a
 * `columnRef` (`[col]`, `[col].bucket`; `sortBy` when its clause is a `sort`), a keyword, a number or a
 * value (`betweenValue` for the first value of a `between` filter), with the token before it where a
 * rule needs it.
 */
function afterOf(cur: TreeCursor, prevTok: TreeToken | undefined): After {
  if (!prevTok) return { kind: 'start' };
  const t = prevTok.token;
  const nodes = cur.nodesOf(prevTok);
  const at = innermost(nodes);
  const growth = nodes.some((n) => n.kind === 'growth');
  if (t.kind !== 'dot' && at && at.kind === 'columnRef' && at.to === prevTok.index + 1) {
    const first = cur.token(prevTok.part, at.from);
    const col = first?.token;
    if (col && col.kind === 'column') {
      if (!col.closed) return { kind: 'other' };
      const after: After = { kind: 'column', column: col.value, sortBy: nodes.length >= 2 && nodes[nodes.length - 2]!.kind === 'sort' };
      const bucket = growth ? growthBucketAt(t, cur.previous(first)?.token) : undefined;
      return bucket ? { ...after, growthBucket: bucket } : after;
    }
  }
  if (t.kind === 'column' && t.closed) return { kind: 'column', column: t.value, sortBy: false };
  if (t.kind === 'keyword') {
    const bucket = growth ? growthBucketAt(t, undefined) : undefined;
    return { kind: 'keyword', keyword: t.value, previous: cur.previous(prevTok)?.token, ...(bucket ? { growthBucket: bucket } : {}) };
  }
  if (t.kind === 'number') return { kind: 'number', previous: cur.previous(prevTok)?.token };
  if (t.kind === 'value') {
    const filter = nodes.length >= 2 ? nodes[nodes.length - 2]! : undefined;
    const f = filter && filter.kind === 'filter' && at && at.kind === 'value' ? filterParts(cur, prevTok.part, filter) : undefined;
    return { kind: 'value', betweenValue: !!f && f.operator === 'between' && f.values[0]?.node === at!.node };
  }
  return { kind: 'other' };
}

/**
 * The bucket of a `growth of [measure] by [date]` clause whose last token is `last`: the bucket keyword
 * itself (`monthly`, `[date].daily`), or `GROWTH_DEFAULT_BUCKET` when `last` is the date column right
 * after `by` (`before`, the token before its column reference); else undefined (e.g. the measure).
 */
function growthBucketAt(last: Token, before: Token | undefined): DateBucket | undefined {
  if (last.kind === 'keyword' && findKeyword(last.value)?.category === 'bucket') return last.value as DateBucket;
  return last.kind === 'column' && before?.kind === 'keyword' && before.value === 'by' ? GROWTH_DEFAULT_BUCKET : undefined;
}

/**
 * The starts of up to three word or keyword tokens directly before the word being typed (nearest first),
 * each separated from the next by blanks on the same line: the words a multi-word keyword typed in part
 * began with (`sort b|`, `month to date f|`; see `multiWordStarts`).
 */
function headsBefore(cur: TreeCursor, text: string, partialTok: TreeToken | undefined, replaceStart: number): number[] {
  const heads: number[] = [];
  let end = replaceStart;
  let tok = cur.previous(partialTok);
  while (tok && heads.length < 3) {
    const t = tok.token;
    if ((t.kind !== 'word' && t.kind !== 'keyword') || t.end === end || !blankGap(text, t.end, end)) break;
    heads.push(t.start);
    end = t.start;
    tok = cur.previous(tok);
  }
  return heads;
}

// ---- items ----------------------------------------------------------------------------------------

const TYPE_LABEL: Record<string, string> = { ATTRIBUTE: 'attribute', MEASURE: 'measure' };

/** Markdown describing a column: data type, kind, data source, description (used by hover too). */
export function columnMarkdown(column: Column, dataSource: string): string {
  const lines = [`**[${column.name}]** — ${column.dataType} ${TYPE_LABEL[column.kind] ?? column.kind}`, '', `Data source: **${dataSource}**`];
  if (column.description) lines.push('', column.description);
  if (column.synonyms?.length) lines.push('', `Synonyms: ${column.synonyms.join(', ')}`);
  const path = pathNameOf(column);
  if (path) lines.push('', `Reads \`[${path}]\` (its table path and column)`);
  return lines.join('\n');
}

/** Markdown describing a keyword: its meaning, an example, whether the local emulator runs it and its reference page (used by hover too). */
export function keywordMarkdown(info: KeywordInfo): string {
  const note = info.emulator === 'unsupported' ? ['', '_Not supported by the local emulator (it answers 400)._'] : [];
  return [`**${info.name}** — ${info.meaning}`, '', 'Example:', '```tsq', info.example, '```', ...note, '', `Reference: [ThoughtSpot keyword reference: ${info.page.split('/').pop()!.replace(/\.adoc$/, '').replace(/[_-]+/g, ' ')}](${keywordReferenceUrl(info.page)})`].join('\n');
}

interface ColumnTemplate {
  label: string;
  /** `label` in lower case, for `pickColumns`. */
  lower: string;
  bracketedLabel: string;
  closedText: string;
  detail: string;
  sortIndex: string;
  /** `Rank.Fits + sortIndex`, made once (the sort text of every column item inside brackets). */
  fitsSortText: string;
}
/**
 * Item parts that do not depend on the cursor, cached per data source (1,000 columns are described once,
 * not per keystroke). The server's catalog answers the same validated object while it answers from its
 * cache (identity hit); a catalog that answers a fresh copy of the same columns still
 * reuses the entry when its columns are equal field by field — a comparison that allocates nothing.
 */
/** The templates of one data source's columns, and what is made once from them. */
interface TemplateSet {
  columns: Column[];
  list: ColumnTemplate[];
  /** `data` of each column item, for the data source named `dataSource` (items share them; they are never mutated). */
  data?: { dataSource: string; data: CompletionItemData[] };
  /** The lower-case names of `list`, for `pickColumns`. */
  lower?: string[];
}
/** Data sources whose templates are kept (least recently used dropped first). */
const TEMPLATE_CACHE_SIZE = 16;

/**
 * What completion keeps between the requests of one language service (`ServiceContext.memo`), never
 * shared with another service (another connection names other data sources alike).
 */
export interface CompletionMemo {
  /** Template sets by data source (`id` NUL `name`), least recently used first, at most TEMPLATE_CACHE_SIZE. */
  readonly templates: Map<string, TemplateSet>;
  /** The markdown documentation of keywords, by keyword name, built once. */
  readonly keywordDocs: Map<string, { kind: MarkupKind; value: string }>;
}

/** An empty `CompletionMemo`, for a new language service. */
export function completionMemo(): CompletionMemo {
  return { templates: new Map(), keywordDocs: new Map() };
}

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

function columnTemplates(templates: CompletionMemo['templates'], columns: DataSourceColumns): TemplateSet {
  const key = `${columns.id}\u0000${columns.name}`;
  const hit = templates.get(key);
  templates.delete(key);
  if (hit && sameColumns(hit.columns, columns.columns)) {
    templates.set(key, hit);
    return hit;
  }
  const width = String(columns.columns.length).length;
  const list = columns.columns.map((c, i) => ({
    label: c.name,
    lower: c.name.toLowerCase(),
    bracketedLabel: `[${c.name}]`,
    closedText: `${c.name}]`,
    detail: `${c.dataType} ${TYPE_LABEL[c.kind] ?? c.kind}`,
    sortIndex: String(i).padStart(width, '0'),
    fitsSortText: Rank.Fits + String(i).padStart(width, '0'),
  }));
  const set: TemplateSet = { columns: columns.columns, list };
  templates.set(key, set);
  if (templates.size > TEMPLATE_CACHE_SIZE) templates.delete(templates.keys().next().value!);
  return set;
}

/** The `data` of each column item, made once per template set and data source (`TemplateSet.data`). */
function itemData(set: TemplateSet, dataSource: string): CompletionItemData[] {
  if (set.data?.dataSource === dataSource) return set.data.data;
  const data = set.list.map((t): CompletionItemData => ({ column: t.label, dataSource }));
  set.data = { dataSource, data };
  return data;
}

/**
 * Most column items in one completion list. A data source with more columns gets the first this many of
 * those that match what is typed (`pickColumns`) in a list marked incomplete, so that the client asks
 * again as the person types. Measured (test/bench/server.bench.ts, 10,000 columns over stdio): the whole
 * list was 2 MB of JSON and took 30–50 ms a request at the median, nearly all of it in making, copying
 * (server/src/features/completion.ts `withItemDefaults`), encoding and collecting 10,000 items, and the
 * client had 2 MB to decode. With the list's shared parts in `itemDefaults`, 200 items are 17.5 KB, p50
 * 0.47 ms (a trivial request 0.17 ms); 100 items are 8.8 KB, p50 0.36 ms. A person sees a dozen.
 */
export const COLUMN_LIST_LIMIT = 100;

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
  if (at > 0) return isSeparator(name.charCodeAt(at - 1)) ? 1 : 2;
  return inOrder(name, typed) ? 3 : -1;
}

/** Whether a character code separates words in a column name for `columnMatch` (white space, `_ - . / (`). */
function isSeparator(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 95 || c === 45 || c === 46 || c === 47 || c === 40;
}

/** Whether the characters of `typed` occur in `name` in order (a native `indexOf` per character). */
function inOrder(name: string, typed: string): boolean {
  let j = -1;
  for (let k = 0; k < typed.length; k++) {
    j = name.indexOf(typed[k]!, j + 1);
    if (j < 0) return false;
  }
  return true;
}

/**
 * The indices of the columns one list offers: all of them when there are at most `limit`; otherwise at
 * most `limit` of those matching `typed` (case-insensitive, `columnMatch`), best matches first and in
 * catalog order within a kind of match. One pass of `indexOf` over the names sorts them into the first
 * three kinds (stopping as soon as the prefixes alone fill the list); the characters-in-order kind is
 * looked for only when those do not fill it.
 * @param lower the column names in lower case, in catalog order.
 * @param typed what was typed of the name so far (any case; '' for nothing).
 */
export function pickColumns(lower: readonly string[], typed: string, limit = COLUMN_LIST_LIMIT): number[] {
  if (lower.length <= limit) return lower.map((_, i) => i);
  const key = typed.trim().toLowerCase();
  const prefix: number[] = [];
  if (!key) {
    for (let i = 0; i < limit; i++) prefix.push(i);
    return prefix;
  }
  const wordStart: number[] = [];
  const inside: number[] = [];
  for (let i = 0; i < lower.length; i++) {
    const name = lower[i]!;
    const at = name.indexOf(key);
    if (at === 0) {
      prefix.push(i);
      if (prefix.length >= limit) return prefix; // the best kind alone fills the list
    } else if (at > 0) (isSeparator(name.charCodeAt(at - 1)) ? wordStart : inside).push(i);
  }
  const out = prefix.concat(wordStart, inside);
  if (out.length >= limit) return out.slice(0, limit);
  for (let i = 0; i < lower.length && out.length < limit; i++) {
    const name = lower[i]!;
    if (name.indexOf(key) < 0 && inOrder(name, key)) out.push(i);
  }
  return out;
}

/** The lower-case names of a template set, made once per set. */
function lowerNames(set: TemplateSet): string[] {
  return (set.lower ??= set.list.map((t) => t.lower));
}

/**
 * Column items. Inside brackets (`bracketed` false) the name replaces what was typed and `suffix` (`]` or
 * '') closes the bracket; at a word start (`bracketed` true) `[name]` is inserted. No documentation:
 * `data` names the column and `dataSource` (the name or GUID the columns were asked by) for `doResolve`.
 * A data source of more than COLUMN_LIST_LIMIT columns gets only those `pickColumns` picks for `typed`.
 */
function columnItems(memo: CompletionMemo, columns: DataSourceColumns, dataSource: string, replace: Range, suffix: string, bracketed: boolean, typed: string, rank: Rank = Rank.Fits, space = false): CompletionItem[] {
  const set = columnTemplates(memo.templates, columns);
  const list = set.list;
  const data = itemData(set, dataSource);
  const picked = list.length > COLUMN_LIST_LIMIT ? pickColumns(lowerNames(set), typed) : undefined;
  const count = picked ? picked.length : list.length;
  const items: CompletionItem[] = new Array(count);
  const lead = space ? ' ' : '';
  for (let k = 0; k < count; k++) {
    const i = picked ? picked[k]! : k;
    const t = list[i]!;
    const newText = bracketed ? (space ? lead + t.bracketedLabel : t.bracketedLabel) : suffix ? t.closedText : t.label;
    const sortText = rank === Rank.Fits ? t.fitsSortText : rank + t.sortIndex;
    // inside brackets the label is the name typed: no filterText (LSP: the label is the default)
    items[k] = bracketed
      ? { label: t.bracketedLabel, kind: CompletionItemKind.Field, detail: t.detail, sortText, filterText: space ? lead + t.label : t.label, textEdit: { range: replace, newText }, data: data[i] }
      : { label: t.label, kind: CompletionItemKind.Field, detail: t.detail, sortText, textEdit: { range: replace, newText }, data: data[i] };
  }
  return items;
}

/** Items of a table path's columns after `[path::` (tablePaths.ts `pathCompletion`): the source column's name, the model's column as detail. */
function pathItems(paths: NonNullable<ReturnType<typeof pathCompletion>>, dataSource: string, replace: Range, suffix: string): CompletionItem[] {
  return paths.columns.map(({ column, name }, i) => ({
    label: name,
    kind: CompletionItemKind.Field,
    detail: `${column.dataType} ${TYPE_LABEL[column.kind] ?? column.kind} — [${column.name}]`,
    sortText: Rank.Fits + String(i).padStart(4, '0'),
    textEdit: { range: replace, newText: name + suffix },
    data: { column: column.name, dataSource } satisfies CompletionItemData,
  }));
}

/** The booleans, written bare after the dot (`[is delayed].true`). */
const BOOLEAN_NAMES: ReadonlySet<string> = new Set(BOOLEAN_VALUES);

/** A value after `[column].` (the token form): a word as is when it is one, else quoted (`'los angeles'`). */
function dotValueItem(value: string, index: number, replace: Range): CompletionItem {
  const text = /^[A-Za-z0-9_]+$/.test(value) && (!findKeyword(value) || BOOLEAN_NAMES.has(value)) || /^\{(null|empty)\}$/.test(value) ? value : `'${value}'`;
  return { label: value, kind: CompletionItemKind.Value, detail: 'Value (token form)', sortText: Rank.Fits + String(index).padStart(3, '0'), filterText: text, textEdit: { range: replace, newText: text } };
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
 * `tsq/calendars` in the editor) and `written`, the calendars named elsewhere in the document (the tree's
 * `calendar` nodes but the one at the cursor, `TreeCursor.calendarNames`), in that order, each
 * once ignoring case (docs/service-interface.md §4.3: `calendar.name`, quoted when multi-word). Without a
 * catalog, or when it cannot list them, the others only.
 */
async function calendarItems(ctx: ServiceContext, written: readonly string[], replace: Range, token?: CancellationLike): Promise<CompletionItem[]> {
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
  for (const name of written) add(name, 'A calendar used elsewhere in this document');
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

/** The markdown documentation of a keyword, built once a service (`CompletionMemo.keywordDocs`). */
function keywordDoc(keywordDocs: CompletionMemo['keywordDocs'], info: KeywordInfo): { kind: MarkupKind; value: string } {
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

/** The period-over-period keywords that may follow a growth bucket (keywords.ts `PERIOD_OVER_PERIOD`), in the catalogue's order. */
function periodOverPeriodAfter(bucket: DateBucket): string[] {
  return Object.entries(PERIOD_OVER_PERIOD).filter(([, p]) => (p.buckets as readonly DateBucket[]).includes(bucket)).map(([k]) => k);
}

/** Items at the start of a word: the keywords (and columns) that fit what precedes it. */
function wordItems(memo: CompletionMemo, document: TextDocument, text: string, offset: number, context: Extract<Context, { kind: 'word' }>, columns: DataSourceColumns | undefined, dataSource: string | undefined): CompletionItem[] {
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
        fits.push(...DATE_OPERAND_KEYWORDS);
      }
      break;
    }
    case 'keyword': {
      const k = after.keyword;
      if (KEYWORDS_BEFORE_COLUMN.has(k)) columnsFirst = true;
      if (KEYWORDS_BEFORE_DATE_UNIT.has(k)) {
        fits.push(...DATE_UNITS);
        offerColumns = false;
      }
      if (findKeyword(k)?.category === 'dateUnit' && after.previous?.kind === 'number') fits.push('ago', 'for each');
      if (k === 'growth of') defaults = false;
      break;
    }
    case 'number': {
      const p = after.previous;
      if (p && p.kind === 'keyword' && KEYWORDS_BEFORE_DATE_UNIT.has(p.value)) {
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
  // after the bucket of growth of … by [date], the period-over-period keywords that may follow it, first (search-growth)
  const growthBucket = after.kind === 'column' || after.kind === 'keyword' ? after.growthBucket : undefined;
  if (growthBucket) fits.unshift(...periodOverPeriodAfter(growthBucket));
  const items: CompletionItem[] = [];
  const used = new Set<string>();
  const multiWord = multiWordStarts(document, text, offset, context.replace, context.heads);
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
    for (const it of columnItems(memo, columns, dataSource, context.replace, '', true, typed, columnsFirst ? Rank.Fits : Rank.Column, context.space)) items.push(it);
  }
  return items;
}

/**
 * For multi-word keywords: when the words typed before the cursor (`sort b|`, `for e|`) are the start of
 * the keyword, the range to replace starts at the first of them, so that the client filters on the
 * whole typed phrase.
 * @param heads the starts of the word and keyword tokens right before the replaced text, nearest first
 *   (`headsBefore`).
 */
function multiWordStarts(document: TextDocument, text: string, offset: number, replace: Range, heads: readonly number[]): (keyword: string) => Range | undefined {
  if (!heads.length) return () => undefined;
  const replaceStart = document.offsetAt(replace.start);
  const typed = text.slice(replaceStart, offset).toLowerCase();
  const phrases = heads.map((h) => text.slice(h, replaceStart).trim().toLowerCase().split(/[ \t]+/).join(' '));
  return (keyword) => {
    for (let n = heads.length - 1; n >= 0; n--) {
      if (keyword.startsWith(`${phrases[n]} ${typed}`)) return { start: document.positionAt(heads[n]!), end: replace.end };
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
