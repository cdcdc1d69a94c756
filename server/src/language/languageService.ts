/**
 * The factory of the TSQ language service (the vscode-css-languageservice pattern): `getLanguageService`
 * returns the verbs of types.ts over `TextDocument`s, one feature per module, with the parse of each
 * document cached by URI and version; a new version is parsed incrementally from the previous one
 * (common/src/language/incremental.ts: the unchanged queries' parses are reused).
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, CodeActionContext, CompletionList, Diagnostic, Hover, Position, Range } from 'vscode-languageserver-types';
import type { TsqDocument } from '../../../common/src/language/ast';
import { getCodeActions } from './codeActions';
import { doComplete, doResolve } from './completion';
import { format } from './format';
import { doHover } from './hover';
import { tokenize, type Token } from '../../../common/src/language/lexer';
import { parseDocument } from '../../../common/src/language/parser';
import { reparseDocument } from '../../../common/src/language/incremental';
import { getQueries } from './queries';
import { getSemanticTokens } from './semanticTokens';
import { findDocumentSymbols } from './symbols';
import { MAX_COLUMN_VALUES } from '../../../common/src/protocol';
import { COLUMN_DATA_TYPES, type Column, type DataSource, type DataSourceColumns } from '../../../common/src/model';
import type { CancellationLike, CatalogProvider, LanguageService, LanguageServiceOptions, LanguageSettings } from './types';
import { doValidation } from './validation';

/**
 * What every feature module receives: the catalog (absent when there is none) and the cached parse of a
 * document. `tokens(document)` are the lexer's tokens of the same text (comments and blank lines
 * included), for completion and semantic tokens; pair them with `tokenAt` of parser.ts.
 */
export interface ServiceContext {
  catalog?: CatalogProvider;
  /** The parsed document (cached by URI and version). Never throws. */
  parse(document: TextDocument): TsqDocument;
  /** The tokens of the document (cached with the parse). Never throws. */
  tokens(document: TextDocument): Token[];
}

/** Signature the completion module implements (completion.ts). */
export type CompleteFn = (ctx: ServiceContext, document: TextDocument, position: Position, settings: LanguageSettings, token?: CancellationLike) => Promise<CompletionList>;
/** Signature the hover module implements (hover.ts). */
export type HoverFn = (ctx: ServiceContext, document: TextDocument, position: Position, settings: LanguageSettings, token?: CancellationLike) => Promise<Hover | null>;
/** Signature the code-action module implements (codeActions.ts). */
export type CodeActionsFn = (ctx: ServiceContext, document: TextDocument, range: Range, context: CodeActionContext, settings: LanguageSettings, token?: CancellationLike) => Promise<CodeAction[]>;

interface CacheEntry {
  version: number;
  text: string;
  doc: TsqDocument;
  /** Made on first use (completion, semantic tokens, formatting): validation alone never needs them. */
  tokens: Token[] | undefined;
  /** How many parses in a row reused the previous one (see `entry`). */
  reused: number;
}

/** Most incremental parses in a row before a whole parse (see `entry` of `getLanguageService`). */
const MAX_REUSED_PARSES = 32;

/** Number of documents whose parse is kept (least recently used dropped first). */
const CACHE_SIZE = 64;

/**
 * Builds a language service.
 * @param options `catalog`: where columns and data sources are read; omit it for syntax-only service
 *   (keyword completion and syntax diagnostics; no semantic diagnostic is ever reported without it).
 */
export function getLanguageService(options: LanguageServiceOptions = {}): LanguageService {
  const cache = new Map<string, CacheEntry>();

  const entry = (document: TextDocument): CacheEntry => {
    const key = document.uri;
    const hit = cache.get(key);
    if (hit && hit.version === document.version) {
      // Refresh LRU position; check the text too (a TextDocument may be re-created with the same version).
      const text = document.getText();
      if (hit.text === text) {
        cache.delete(key);
        cache.set(key, hit);
        return hit;
      }
    }
    const text = document.getText();
    // After an edit only the queries it touches are parsed again (incremental.ts); every
    // `MAX_REUSED_PARSES`th parse is whole, so that nodes kept across versions do not hold on to the
    // texts of many old versions (a query's text is a slice of the text it was parsed from).
    const reuse = hit !== undefined && hit.reused < MAX_REUSED_PARSES;
    const doc = reuse ? reparseDocument(hit.text, hit.doc, text) : parseDocument(text);
    const e: CacheEntry = { version: document.version, text, doc, tokens: undefined, reused: reuse ? hit.reused + 1 : 0 };
    cache.delete(key);
    cache.set(key, e);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return e;
  };

  const ctx: ServiceContext = {
    parse: (document) => entry(document).doc,
    tokens: (document) => {
      const e = entry(document);
      return (e.tokens ??= tokenize(e.text));
    },
  };
  if (options.catalog) ctx.catalog = safeCatalog(options.catalog);

  return {
    parseDocument: ctx.parse,
    doComplete: (document, position, settings = {}, token) => doComplete(ctx, document, position, settings, token),
    doResolve: (item, token) => doResolve(ctx, item, token),
    doValidation: (document, settings = {}, token): Promise<Diagnostic[]> => doValidation(ctx, document, settings, token),
    doHover: (document, position, settings = {}, token) => doHover(ctx, document, position, settings, token),
    getSemanticTokens: (document) => getSemanticTokens(ctx, document),
    format: (document, range, formattingOptions) => format(ctx, document, range, formattingOptions),
    getCodeActions: (document, range, context, settings = {}, token) => getCodeActions(ctx, document, range, context, settings, token),
    findDocumentSymbols: (document) => findDocumentSymbols(ctx, document),
    getQueries: (document, settings = {}) => getQueries(ctx, document, settings),
  };
}

/**
 * Wraps a catalog so that every feature module sees well-formed answers only (DESIGN.md: a catalog
 * answer that is null or malformed never makes the service throw nor report something false):
 * - a method that throws or rejects answers "unknown" (undefined; [] for values);
 * - `getDataSources`: a non-array is unknown; entries without a string `id` and `name` are dropped; a
 *   missing `type` becomes `''`;
 * - `getColumns`: `null` stays null (the service says the data source does not exist); a non-object or
 *   an object without a `columns` array is unknown; columns without a string `name` are dropped;
 *   `dataType` outside the vocabulary is kept as given only when it is a string (checks that need a type
 *   skip it), `kind` defaults to `ATTRIBUTE`, non-string synonyms are dropped;
 * - `getColumnValues`: a non-array is []; numbers and booleans become strings, other entries are dropped;
 *   at most `MAX_COLUMN_VALUES`.
 *
 * The sanitized answers are memoized (WeakMap): `getColumns` per raw `columns` array (same array, id
 * and name: the same sanitized object), `getDataSources` per raw list. So a raw answer must not be
 * mutated once handed out (answer a new array when the catalog changes, as the client catalog does).
 */
export function safeCatalog(catalog: CatalogProvider): CatalogProvider {
  // The sanitized answer per raw answer: a catalog that caches (the server's client catalog does) hands
  // out the same object on every call, and then the features get the same sanitized object back instead
  // of 1,000 new columns per keystroke (and caches keyed on it, like completion's item templates, hit).
  // Keyed by the raw `columns` array: a catalog may wrap the same cached columns in a new object per call.
  const columnsMemo = new WeakMap<unknown[], DataSourceColumns>();
  const sourcesMemo = new WeakMap<object, DataSource[]>();
  return {
    async getDataSources(token?: CancellationLike): Promise<DataSource[] | undefined> {
      let r: unknown;
      try {
        r = await catalog.getDataSources(token);
      } catch {
        return undefined;
      }
      if (!Array.isArray(r)) return undefined;
      const hit = sourcesMemo.get(r);
      if (hit) return hit;
      const out: DataSource[] = [];
      for (const s of r) {
        if (s && typeof s === 'object' && typeof s.id === 'string' && typeof s.name === 'string') {
          out.push({ id: s.id, name: s.name, type: typeof s.type === 'string' ? s.type : '' });
        }
      }
      sourcesMemo.set(r, out);
      return out;
    },
    async getColumns(dataSource: string, token?: CancellationLike): Promise<DataSourceColumns | null | undefined> {
      let r: unknown;
      try {
        r = await catalog.getColumns(dataSource, token);
      } catch {
        return undefined;
      }
      if (r === null) return null;
      if (!r || typeof r !== 'object' || !Array.isArray((r as { columns?: unknown }).columns)) return undefined;
      const src = r as { id?: unknown; name?: unknown; columns: unknown[] };
      const id = typeof src.id === 'string' ? src.id : '';
      const name = typeof src.name === 'string' ? src.name : dataSource;
      const hit = columnsMemo.get(src.columns);
      if (hit && hit.id === id && hit.name === name) return hit;
      const sanitized: DataSourceColumns = { id, name, columns: hit ? hit.columns : sanitizeColumns(src.columns) };
      columnsMemo.set(src.columns, sanitized);
      return sanitized;
    },
    async getColumnValues(dataSource: string, column: string, prefix: string, token?: CancellationLike): Promise<string[]> {
      let r: unknown;
      try {
        r = await catalog.getColumnValues(dataSource, column, prefix, token);
      } catch {
        return [];
      }
      if (!Array.isArray(r)) return [];
      const out: string[] = [];
      for (const v of r) {
        if (typeof v === 'string') out.push(v);
        else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
        if (out.length >= MAX_COLUMN_VALUES) break;
      }
      return out;
    },
  };
}

/** The well-formed columns of a raw `getColumns` answer's `columns` array (see `safeCatalog`). */
function sanitizeColumns(raw: unknown[]): Column[] {
  const columns: Column[] = [];
  for (const c of raw) {
    if (!c || typeof c !== 'object' || typeof (c as Column).name !== 'string') continue;
    const col = c as Record<string, unknown>;
    const out: Column = {
      name: col.name as string,
      dataType: (typeof col.dataType === 'string' ? col.dataType : '') as Column['dataType'],
      kind: col.kind === 'MEASURE' ? 'MEASURE' : 'ATTRIBUTE',
    };
    if (typeof col.id === 'string') out.id = col.id;
    if (typeof col.description === 'string') out.description = col.description;
    if (Array.isArray(col.synonyms)) out.synonyms = col.synonyms.filter((x): x is string => typeof x === 'string');
    columns.push(out);
  }
  return columns;
}

/** True when a data type is one of the vocabulary's (protocol.ts `COLUMN_DATA_TYPES`). */
export function isKnownDataType(t: unknown): boolean {
  return typeof t === 'string' && (COLUMN_DATA_TYPES as readonly string[]).includes(t);
}
