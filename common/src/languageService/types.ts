/**
 * Public interface of the pure TSQ language service: the catalog it reads through, its settings, and the
 * LSP-shaped verbs it offers (the vscode-css-languageservice pattern: a factory returning verbs over a
 * `TextDocument`, shapes from `vscode-languageserver-types`).
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type {
  CodeAction,
  CodeActionContext,
  CompletionItem,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  FormattingOptions,
  Hover,
  Position,
  Range,
  SemanticTokens,
  TextEdit,
} from 'vscode-languageserver-types';
import type { DocumentQuery } from '../protocol';
import type { DataSource, DataSourceColumns } from '../model';
import type { TsqDocument } from '../language/ast';
import type { SyntaxDocument } from '../language/parser';
import type { Token } from '../language/lexer';
import type { CompletionMemo } from './completion';
import type { ValidationMemo } from './validation';

/** A cancellation signal; compatible with LSP's `CancellationToken`. */
export interface CancellationLike {
  readonly isCancellationRequested: boolean;
}

/**
 * Where the service reads the catalog. Every method may be slow (it crosses to the client and to the
 * service); implementations cache. `undefined` means "unknown right now" (not connected, the client did
 * not answer, a malformed answer): the service then reports no semantic diagnostic at all — never a
 * false error.
 */
export interface CatalogProvider {
  /** All data sources of the active connection, or undefined when unknown. */
  getDataSources(token?: CancellationLike): Promise<DataSource[] | undefined>;
  /** Columns of a data source by name or GUID; `null` when the service says it does not exist; undefined when unknown. */
  getColumns(dataSource: string, token?: CancellationLike): Promise<DataSourceColumns | null | undefined>;
  /** Up to 50 values of a column starting with `prefix` (case-insensitive); [] when unknown. */
  getColumnValues(dataSource: string, column: string, prefix: string, token?: CancellationLike): Promise<string[]>;
  /**
   * The names of the service's custom calendars (v2 `calendars/search`), offered after `calendar.`;
   * undefined when unknown. Optional: a provider without it knows none.
   */
  getCalendars?(token?: CancellationLike): Promise<string[] | undefined>;
}

/** Per-document settings (resolved by the server from `tsq.*` settings). */
export interface LanguageSettings {
  /** `tsq.defaultDataSource`: data source for queries with no `@datasource`; empty or undefined for none. */
  defaultDataSource?: string;
  /** `tsq.diagnostics.disabled`: diagnostic codes to silence. */
  disabledDiagnostics?: string[];
}

/**
 * The `data` of a completion item whose documentation is left to `completionItem/resolve` (`doResolve`):
 * a column (`column` + `dataSource`, the data source name or GUID the columns were asked by; `dataSource`
 * alone when the column is the item's label, the list's `itemDefaults.data` of the server) or a keyword of
 * the catalogue (`keyword`, its canonical name). Clients hand it back unchanged.
 */
export type CompletionItemData =
  | { column: string; dataSource: string; keyword?: undefined }
  | { dataSource: string; column?: undefined; keyword?: undefined }
  | { keyword: string; column?: undefined; dataSource?: undefined };

/** Options of `getLanguageService`. */
export interface LanguageServiceOptions {
  /** The catalog; omitted when there is none (keyword completion and syntax diagnostics only). */
  catalog?: CatalogProvider;
}

/** The verbs of the TSQ language service. All positions and ranges are LSP's (UTF-16). */
export interface LanguageService {
  /**
   * The catalog the service reads through (guarded: it never rejects), absent for a syntax-only service.
   * A document embedding queries over a catalog of its own making (an Answer TML's several `tables` and
   * its `formulas`, common/src/tml/answerSources.ts) builds a service over a view of it.
   */
  readonly catalog?: CatalogProvider;
  /** Parses (and caches by URI and version) a document. Never throws. */
  parseDocument(document: TextDocument): TsqDocument;
  /**
   * Completion at a position (columns, buckets, calendars, operators, values, keywords, data sources).
   * Column and keyword items carry `data` (`CompletionItemData`) and no documentation: see `doResolve`.
   */
  doComplete(document: TextDocument, position: Position, settings?: LanguageSettings, token?: CancellationLike): Promise<CompletionList>;
  /** `completionItem/resolve`: the item with its markdown documentation added (unchanged when none can be found). Never throws. */
  doResolve(item: CompletionItem, token?: CancellationLike): Promise<CompletionItem>;
  /** Syntax diagnostics, plus semantic ones when the catalog is known. Each has a stable `code`. */
  doValidation(document: TextDocument, settings?: LanguageSettings, token?: CancellationLike): Promise<Diagnostic[]>;
  /** Hover over a column, a keyword or an `@datasource` directive. */
  doHover(document: TextDocument, position: Position, settings?: LanguageSettings, token?: CancellationLike): Promise<Hover | null>;
  /** Semantic tokens of the whole document, in the legend of `SEMANTIC_TOKEN_LEGEND`. */
  getSemanticTokens(document: TextDocument): SemanticTokens;
  /** Formatting edits for the document (or a range): canonical spacing, keywords lower-case; column names and values untouched. */
  format(document: TextDocument, range: Range | undefined, options: FormattingOptions): TextEdit[];
  /** Quick fixes for the diagnostics in `context`. */
  getCodeActions(document: TextDocument, range: Range, context: CodeActionContext, settings?: LanguageSettings, token?: CancellationLike): Promise<CodeAction[]>;
  /** One symbol per query (the outline). */
  findDocumentSymbols(document: TextDocument): DocumentSymbol[];
  /** The queries of a document with their text (comments removed) and data source in force. */
  getQueries(document: TextDocument, settings?: LanguageSettings): DocumentQuery[];
}

/**
 * What every feature module receives: the catalog (absent when there is none) and the cached parse of a
 * document. `tokens(document)` are the lexer's tokens of the same text (comments and blank lines
 * included), for completion and semantic tokens; pair them with `tokenAt` of parser.ts.
 */
export interface ServiceContext {
  catalog?: CatalogProvider;
  /** The parsed document, its syntax tree with the AST derived from it (cached by URI and version). Never throws. */
  parse(document: TextDocument): SyntaxDocument;
  /** The lexer's tokens of the document, read from the tree (cached with the parse). Never throws. */
  tokens(document: TextDocument): Token[];
  /** What completion and validation keep between requests: state of this service, made with it (never module state). */
  readonly memo: { readonly completion: CompletionMemo; readonly validation: ValidationMemo };
}
