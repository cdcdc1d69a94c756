/**
 * The queries of a `.tsq` document for Run Query and its CodeLens (`tsq/queries` of protocol.ts).
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentQuery } from '../protocol';
import type { LanguageSettings, ServiceContext } from './types';

/**
 * Lists the document's queries in order: range (LSP positions), text (comments removed, trimmed: what
 * searchdata receives) and the data source in force — the query's `@datasource`, else
 * `settings.defaultDataSource` (`tsq.defaultDataSource`) when not empty, else null. Never throws.
 */
export function getQueries(ctx: ServiceContext, document: TextDocument, settings: LanguageSettings = {}): DocumentQuery[] {
  const doc = ctx.parse(document);
  const fallback = settings.defaultDataSource?.trim() ? settings.defaultDataSource.trim() : null;
  // each query's AST made for the list, not kept with the parse
  return Array.from({ length: doc.queryCount }, (_, i) => doc.query(i)).map((q) => ({
    range: { start: document.positionAt(q.start), end: document.positionAt(q.end) },
    text: q.text,
    dataSource: q.dataSource ?? fallback,
  }));
}
