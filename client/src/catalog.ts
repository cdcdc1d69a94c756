/**
 * The catalog of one connection: its data sources, their columns and column values, cached, for the
 * language server's `tsq/*` requests (docs/architecture.md, "The catalog protocol"). Pure (no `vscode`): it
 * reads the service through `ServiceApi` and is unit-tested against the real emulator.
 *
 * Caching: every answer is cached as a promise until `clear()`; a failed request is removed from the
 * cache at once, so errors are never cached and the next request asks the service again.
 */
import { MAX_COLUMN_VALUES } from '../../common/src/protocol';
import { type DataSource, type DataSourceColumns } from '../../common/src/model';
import { columnsFromDetails, columnsFromHeaders } from './columns';
import { errorStatus, type ObjectHeader, type ServiceApi } from './service';

/** LOGICAL_TABLE subtypes that can be a data source (docs/service-interface.md §4.2; SQL_VIEW from docs/service-notes.md §3.1). */
export const DATA_SOURCE_SUBTYPES = ['WORKSHEET', 'ONE_TO_ONE_LOGICAL', 'AGGR_WORKSHEET', 'USER_DEFINED', 'SQL_VIEW'] as const;

/** A GUID (8-4-4-4-12 hex digits). */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class Catalog {
  private dataSourcesPromise: Promise<DataSource[]> | undefined;
  private readonly columnsCache = new Map<string, Promise<DataSourceColumns | null>>();
  private readonly valuesCache = new Map<string, Promise<string[]>>();

  constructor(private readonly api: ServiceApi) {}

  /** Drops every cached answer (Refresh Catalog, connection switch). */
  clear(): void {
    this.dataSourcesPromise = undefined;
    this.columnsCache.clear();
    this.valuesCache.clear();
  }

  /**
   * Every data source: LOGICAL_TABLE headers, one request per subtype so that each carries its type
   * (headers have no subtype member, docs/service-notes.md §3.1). A subtype the service rejects with 400/500
   * ("Invalid metadata subtype") is skipped; any other error rejects.
   */
  dataSources(): Promise<DataSource[]> {
    if (!this.dataSourcesPromise) {
      const p = this.loadDataSources();
      this.dataSourcesPromise = p;
      p.catch(() => {
        if (this.dataSourcesPromise === p) this.dataSourcesPromise = undefined;
      });
    }
    return this.dataSourcesPromise;
  }

  private async loadDataSources(): Promise<DataSource[]> {
    const pages = await Promise.all(
      DATA_SOURCE_SUBTYPES.map(async (subtype): Promise<[string, ObjectHeader[]]> => {
        try {
          return [subtype, await this.api.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: [subtype], batchSize: -1, sort: 'NAME', sortAscending: true })];
        } catch (e) {
          // SQL_VIEW is not in the documented list: a service that rejects it just has none
          const status = errorStatus(e);
          if (subtype === 'SQL_VIEW' && (status === 400 || status === 500)) return [subtype, []];
          throw e;
        }
      }),
    );
    const seen = new Map<string, DataSource>();
    for (const [subtype, headers] of pages) for (const h of headers) if (!seen.has(h.id)) seen.set(h.id, { id: h.id, name: h.name, type: subtype });
    return [...seen.values()];
  }

  /** The data source named (case-insensitively) or identified by `nameOrId`, or undefined. */
  async resolve(nameOrId: string): Promise<DataSource | undefined> {
    const key = nameOrId.trim();
    const all = await this.dataSources();
    if (GUID.test(key)) {
      const byId = all.find((d) => d.id.toLowerCase() === key.toLowerCase());
      if (byId) return byId;
    }
    const lower = key.toLowerCase();
    return all.find((d) => d.name === key) ?? all.find((d) => d.name.toLowerCase() === lower);
  }

  /**
   * The columns of a data source by name or GUID; null when there is no such data source. Columns come
   * from `metadata/details` (docs/service-notes.md §3.2); when the service has no details for it (an error other
   * than 401/403, or no storable), from the LOGICAL_COLUMN headers owned by the data source.
   */
  columns(dataSource: string): Promise<DataSourceColumns | null> {
    const key = dataSource.trim().toLowerCase();
    return this.cached(this.columnsCache, key, () => this.loadColumns(dataSource));
  }

  private async loadColumns(dataSource: string): Promise<DataSourceColumns | null> {
    const ds = await this.resolve(dataSource);
    if (!ds) return null;
    try {
      const storables = await this.api.tableDetails([ds.id]);
      const table = storables.find((s) => s?.header?.id === ds.id) ?? storables[0];
      if (table && Array.isArray(table.columns)) return { id: ds.id, name: ds.name, columns: columnsFromDetails(table.columns) };
    } catch (e) {
      const status = errorStatus(e);
      if (!status || status === 401 || status === 403) throw e;
    }
    const headers = await this.api.listObjectHeaders({ type: 'LOGICAL_COLUMN', batchSize: -1 });
    return { id: ds.id, name: ds.name, columns: columnsFromHeaders(headers, ds.id) };
  }

  /**
   * Up to 50 distinct values of a column that begin with `prefix` (case-insensitive), by a searchdata
   * query `[column] [column] begins with 'prefix'` (docs/service-interface.md §4.3; docs/service-notes.md §2.4). A prefix holding a quote
   * cannot be written in a query (docs/service-interface.md §8, limit 5) and answers []. An unknown data source answers [].
   * When the values for a shorter prefix were complete (fewer than 50), they are filtered instead of
   * asking the service again.
   */
  columnValues(dataSource: string, column: string, prefix: string): Promise<string[]> {
    if (prefix.includes("'") || column.includes('[') || column.includes(']')) return Promise.resolve([]);
    const base = `${dataSource.trim().toLowerCase()}\u0000${column.toLowerCase()}\u0000`;
    const key = base + prefix.toLowerCase();
    if (!this.valuesCache.has(key)) {
      for (let n = prefix.length - 1; n >= 0; n--) {
        const shorter = this.valuesCache.get(base + prefix.slice(0, n).toLowerCase());
        if (!shorter) continue;
        const lower = prefix.toLowerCase();
        const derived = shorter.then(async (values) => {
          if (values.length >= MAX_COLUMN_VALUES) return this.loadValues(dataSource, column, prefix);
          return values.filter((v) => v.toLowerCase().startsWith(lower));
        });
        return this.cached(this.valuesCache, key, () => derived);
      }
    }
    return this.cached(this.valuesCache, key, () => this.loadValues(dataSource, column, prefix));
  }

  private async loadValues(dataSource: string, column: string, prefix: string): Promise<string[]> {
    const ds = await this.resolve(dataSource);
    if (!ds) return [];
    const query = prefix ? `[${column}] [${column}] begins with '${prefix}'` : `[${column}]`;
    const result = await this.api.searchData({ queryString: query, dataSourceGuid: ds.id, batchSize: MAX_COLUMN_VALUES });
    const index = Math.max(0, result.columnNames.findIndex((n) => n.toLowerCase() === column.toLowerCase()));
    const out = new Set<string>();
    for (const row of result.data) {
      const cell = Array.isArray(row) ? row[index] : (row as Record<string, unknown>)[result.columnNames[index]];
      if (cell === null || cell === undefined) continue;
      out.add(String(cell));
      if (out.size >= MAX_COLUMN_VALUES) break;
    }
    return [...out];
  }

  private cached<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let p = map.get(key);
    if (!p) {
      p = load();
      map.set(key, p);
      const mine = p;
      p.catch(() => {
        if (map.get(key) === mine) map.delete(key);
      });
    }
    return p;
  }
}
