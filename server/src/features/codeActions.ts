/** Quick fixes (`textDocument/codeAction`) for the diagnostics in a range. */
import type { FeatureContext } from './context';

/** Registers the code-action handler. */
export function registerCodeActions(ctx: FeatureContext): void {
  ctx.connection.onCodeAction((params, token) =>
    ctx.runSafeAsync(
      async () => {
        const document = ctx.documents.get(params.textDocument.uri);
        if (!document) return [];
        return ctx.service.getCodeActions(document, params.range, params.context, await ctx.settings.get(document.uri), token);
      },
      [],
      `Code actions in ${params.textDocument.uri}`,
      token,
    ),
  );
}
