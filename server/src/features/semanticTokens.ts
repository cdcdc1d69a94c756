/** Semantic tokens of a whole document (`textDocument/semanticTokens/full`), in `SEMANTIC_TOKEN_LEGEND`. */
import type { FeatureContext } from './context';

/** Registers the semantic-tokens handler. */
export function registerSemanticTokens(ctx: FeatureContext): void {
  ctx.connection.languages.semanticTokens.on((params, token) =>
    ctx.runSafe(
      () => {
        const document = ctx.documents.get(params.textDocument.uri);
        return document ? ctx.service.getSemanticTokens(document) : { data: [] };
      },
      { data: [] },
      `Semantic tokens of ${params.textDocument.uri}`,
      token,
    ),
  );
}
