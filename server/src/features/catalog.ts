/**
 * The catalog protocol's messages from the client (common/src/protocol.ts): `tsq/catalogChanged` drops
 * the catalog cache and refreshes diagnostics; `tsq/queries` answers the queries of an open document for
 * Run Query.
 */
import type { CancellationToken } from 'vscode-languageserver';
import { CatalogChangedNotification, QueriesRequest } from '../../../common/src/protocol';
import type { DocumentQuery, QueriesParams } from '../../../common/src/protocol';
import type { FeatureContext } from './context';
import type { DiagnosticsFeature } from './diagnostics';

/** Registers the handlers of `tsq/catalogChanged` and `tsq/queries`. */
export function registerCatalogProtocol(ctx: FeatureContext, diagnostics: DiagnosticsFeature): void {
  ctx.connection.onNotification(CatalogChangedNotification, () => {
    ctx.log('tsq/catalogChanged: dropping the catalog cache and refreshing diagnostics.');
    ctx.catalog.clear();
    diagnostics.refresh();
  });

  ctx.connection.onRequest(QueriesRequest, (params: QueriesParams, token: CancellationToken) =>
    ctx.runSafeAsync<DocumentQuery[]>(
      async () => {
        const uri = typeof params?.uri === 'string' ? params.uri : undefined;
        const document = uri ? ctx.documents.get(uri) : undefined;
        if (!document) return [];
        return ctx.service.getQueries(document, await ctx.settings.get(document.uri));
      },
      [],
      'tsq/queries',
      token,
    ),
  );
}
