/** Formatting of a document (`textDocument/formatting`) or a range of it (`textDocument/rangeFormatting`). */
import type { FeatureContext } from './context';

/** Registers the formatting handlers. */
export function registerFormatting(ctx: FeatureContext): void {
  ctx.connection.onDocumentFormatting((params, token) =>
    ctx.runSafe(
      () => {
        const document = ctx.documents.get(params.textDocument.uri);
        return document ? ctx.service.format(document, undefined, params.options) : [];
      },
      [],
      `Formatting ${params.textDocument.uri}`,
      token,
    ),
  );

  ctx.connection.onDocumentRangeFormatting((params, token) =>
    ctx.runSafe(
      () => {
        const document = ctx.documents.get(params.textDocument.uri);
        return document ? ctx.service.format(document, params.range, params.options) : [];
      },
      [],
      `Formatting a range of ${params.textDocument.uri}`,
      token,
    ),
  );
}
