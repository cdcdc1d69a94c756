/**
 * The one guard the language service puts around a catalog. Answers are validated where they arrive
 * (the server's `ProtocolCatalog` checks each answer against its JSON Schema, common/src/protocolSchemas.ts),
 * so the features trust their shape; what a feature cannot trust is that a host's provider keeps the
 * promise of `CatalogProvider` never to reject. A rejection reads as "unknown", as a missing answer does:
 * no semantic diagnostic is reported, never a false one.
 */
import type { CancellationLike, CatalogProvider } from './types';

/** A catalog whose methods never reject: a rejection answers undefined (unknown), or [] for values; `getCalendars` when the catalog has it. */
export function neverRejecting(catalog: CatalogProvider): CatalogProvider {
  const guarded: CatalogProvider = {
    getDataSources: (token?: CancellationLike) => catalog.getDataSources(token).catch(() => undefined),
    getColumns: (dataSource: string, token?: CancellationLike) => catalog.getColumns(dataSource, token).catch(() => undefined),
    getColumnValues: (dataSource: string, column: string, prefix: string, token?: CancellationLike) => catalog.getColumnValues(dataSource, column, prefix, token).catch((): string[] => []),
  };
  if (catalog.getCalendars) guarded.getCalendars = (token?: CancellationLike) => Promise.resolve().then(() => catalog.getCalendars!(token)).catch(() => undefined);
  return guarded;
}
