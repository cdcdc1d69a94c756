/**
 * The service catalog, once for every front end: data sources, columns and column values of a
 * connection read from the Analytics Service (`ServiceCatalog`), the one mapping of the service's column
 * metadata (`columns.ts`), and the catalog as the language service reads it (`ServiceCatalogProvider`).
 */
export * from './columns';
export * from './serviceCatalog';
export * from './provider';
export * from './dependents';
