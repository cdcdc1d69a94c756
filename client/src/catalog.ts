/**
 * Where the extension's service catalog (common/src/catalog) gets its answers: the active connection's
 * `ServiceApi` (client/src/service.ts). The catalog answers the language server's `tsq/*` requests
 * (client/src/languageClient.ts), the Objects view and Run Query. Pure (no `vscode`).
 */
import { ServiceCatalog, type CatalogSource } from '../../common/src/catalog';
import type { ServiceApi } from './service';

/** The calls of the service catalog, made through the extension's `ServiceApi`. */
export function catalogSource(api: ServiceApi): CatalogSource {
  return {
    listObjectHeaders: (params, opts) => api.listObjectHeaders(params, opts),
    metadataDetails: (type, ids, opts) => api.metadataDetails(type, ids, opts),
    searchData: (params) => api.searchData({ queryString: params.queryString, dataSourceGuid: params.dataSourceGuid, batchSize: params.batchSize, offset: params.offset }),
    searchCalendars: (opts) => api.searchCalendars(opts),
  };
}

/**
 * The service catalog of one connection of the extension. Without hold-off: the extension's connection
 * health (client/src/connectionHealth.ts) decides when a failing service is tried again, and a failure
 * is never cached, so the next ask after a reconnect goes to the service.
 */
export function createServiceCatalog(api: ServiceApi): ServiceCatalog {
  return new ServiceCatalog(catalogSource(api), { holdOff: false });
}
