/** Hover (`textDocument/hover`) over a column, a keyword or an `@datasource` directive. */
import type { FeatureContext } from './context';

/** Registers the hover handler. */
export function registerHover(ctx: FeatureContext): void {
  ctx.connection.onHover((params, token) =>
    ctx.runSafeAsync(
      async () => {
        const document = ctx.documents.get(params.textDocument.uri);
        if (!document) return null;
        return ctx.service.doHover(document, params.position, await ctx.settings.get(document.uri), token);
      },
      null,
      `Hover in ${params.textDocument.uri}`,
      token,
    ),
  );
}
