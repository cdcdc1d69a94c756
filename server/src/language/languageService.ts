/**
 * The factory of the TSQ language service (the vscode-css-languageservice pattern): `getLanguageService`
 * returns the verbs of types.ts over `TextDocument`s, one feature per module, with the parse of each
 * document cached by URI and version.
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, CodeActionContext, CompletionList, Diagnostic, Hover, Position, Range } from 'vscode-languageserver-types';
import type { ParseDiagnostic, TsqDocument } from './ast';
import { getCodeActions } from './codeActions';
import { doComplete } from './completion';
import { format } from './format';
import { doHover } from './hover';
import { tokenize, type Token } from './lexer';
import { parseTokens } from './parser';
import { getQueries } from './queries';
import { getSemanticTokens } from './semanticTokens';
import { findDocumentSymbols } from './symbols';
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
  tokens: Token[];
}

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
    const diagnostics: ParseDiagnostic[] = [];
    const tokens = tokenize(text, diagnostics);
    const doc = parseTokens(text, tokens, diagnostics);
    const e: CacheEntry = { version: document.version, text, doc, tokens };
    cache.delete(key);
    cache.set(key, e);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return e;
  };

  const ctx: ServiceContext = {
    parse: (document) => entry(document).doc,
    tokens: (document) => entry(document).tokens,
  };
  if (options.catalog) ctx.catalog = options.catalog;

  return {
    parseDocument: ctx.parse,
    doComplete: (document, position, settings = {}, token) => doComplete(ctx, document, position, settings, token),
    doValidation: (document, settings = {}, token): Promise<Diagnostic[]> => doValidation(ctx, document, settings, token),
    doHover: (document, position, settings = {}, token) => doHover(ctx, document, position, settings, token),
    getSemanticTokens: (document) => getSemanticTokens(ctx, document),
    format: (document, range, formattingOptions) => format(ctx, document, range, formattingOptions),
    getCodeActions: (document, range, context, settings = {}, token) => getCodeActions(ctx, document, range, context, settings, token),
    findDocumentSymbols: (document) => findDocumentSymbols(ctx, document),
    getQueries: (document, settings = {}) => getQueries(ctx, document, settings),
  };
}
