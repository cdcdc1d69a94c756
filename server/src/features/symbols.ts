/** Document symbols (`textDocument/documentSymbol`): one per query, the outline. */
import type { FeatureContext } from './context';

/** Registers the document-symbol handler. */
export function registerSymbols(ctx: FeatureContext): void {
  ctx.connection.onDocumentSymbol((params, token) =>
    ctx.runSafe(
      () => {
        const document = ctx.documents.get(params.textDocument.uri);
        return document ? ctx.service.findDocumentSymbols(document) : [];
      },
      [],
      `Document symbols of ${params.textDocument.uri}`,
      token,
    ),
  );
}
