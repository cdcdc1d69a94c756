/**
 * The factory of the TSQ language service (the vscode-css-languageservice pattern): `getLanguageService`
 * returns the verbs of types.ts over `TextDocument`s, one feature per module, with the parse of each
 * document cached by URI and version; a new version is parsed incrementally from the previous one
 * (common/src/language/incremental.ts: the unchanged parts of the syntax tree are reused as they are).
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { neverRejecting } from './catalogGuard';
import { getCodeActions } from './codeActions';
import { completionMemo, doComplete, doResolve } from './completion';
import { format } from './format';
import { doHover } from './hover';
import { parseDocument, type SyntaxDocument } from '../language/parser';
import { reparseDocument } from '../language/incremental';
import { getQueries } from './queries';
import { getSemanticTokens } from './semanticTokens';
import { findDocumentSymbols } from './symbols';
import type { LanguageService, LanguageServiceOptions, ServiceContext } from './types';
import { doValidation, validationMemo } from './validation';

interface CacheEntry {
  version: number;
  text: string;
  doc: SyntaxDocument;
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
    // After an edit only the queries it touches are parsed again and spliced into the tree
    // (incremental.ts); every `MAX_REUSED_PARSES`th parse is whole, so that the tree is in one buffer
    // again rather than in the small buffers of many reparses.
    const reuse = hit !== undefined && hit.reused < MAX_REUSED_PARSES;
    const doc = reuse ? reparseDocument(hit.text, hit.doc, text) : parseDocument(text);
    const e: CacheEntry = { version: document.version, text, doc, reused: reuse ? hit.reused + 1 : 0 };
    cache.delete(key);
    cache.set(key, e);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return e;
  };

  const ctx: ServiceContext = {
    parse: (document) => entry(document).doc,
    // made on first use (completion, semantic tokens, formatting) and kept with the parse: validation alone never needs them
    tokens: (document) => entry(document).doc.tokens(),
    memo: { completion: completionMemo(), validation: validationMemo() },
  };
  if (options.catalog) ctx.catalog = neverRejecting(options.catalog);

  return {
    ...(ctx.catalog ? { catalog: ctx.catalog } : {}),
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
