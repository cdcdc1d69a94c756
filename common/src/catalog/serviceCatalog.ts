/**
 * The service catalog: the data sources, columns and column values of one connection, read from the
 * Analytics Service once for every front end (the extension, `tsq check`, `tsq query`, `tsq lsp`). The
 * front ends only say where the service is (`CatalogSource`) and what a failure means to them.
 * How each answer is read and cached: `ServiceCatalog`; the service's calls: docs/service-notes.md §3
 * and docs/service-interface.md §4.
 */
import { AuthenticationError, type CallOptions, type DetailsStorable, type ListObjectHeadersParams, type MetadataDetails, type ObjectHeader, type SearchDataParams, type SearchDataResult } from '../api';
import type { DataSource, DataSourceColumns } from '../model';
import { MAX_COLUMN_VALUES } from '../protocol';
import { columnsFromDetails, columnsFromHeaders } from './columns';
import { memberOf } from '../guards';

/** LOGICAL_TABLE subtypes that can be a data source (docs/service-interface.md §4.2; SQL_VIEW from docs/service-notes.md §3.1). */
export const DATA_SOURCE_SUBTYPES = ['WORKSHEET', 'ONE_TO_ONE_LOGICAL', 'AGGR_WORKSHEET', 'USER_DEFINED', 'SQL_VIEW'] as const;

/** A GUID (8-4-4-4-12 hex digits). */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Where the catalog's answers come from: the three operations of the public API it calls, with the
 * shapes of common/src/api (`AnalyticsServiceClient` is one). Each rejects with an error carrying the HTTP
 * `status` when the service refused.
 */
export interface CatalogSource {
  /** `metadata/listobjectheaders` (docs/service-interface.md §4.2): the bare array of headers. */
  listObjectHeaders(params: ListObjectHeadersParams, opts?: CallOptions): Promise<ObjectHeader[]>;
  /** `metadata/details?type=LOGICAL_TABLE&id=[…]` (docs/service-notes.md §3.2): `{ storables }`, empty when none. */
  metadataDetails(type: 'LOGICAL_TABLE', ids: string[], opts?: CallOptions): Promise<MetadataDetails>;
  /** `searchdata` (docs/service-interface.md §4.2) in the COMPACT format: rows in the order of `columnNames`. */
  searchData(params: SearchDataParams, opts?: CallOptions): Promise<SearchDataResult>;
  /** v2 `calendars/search` (OpenAPI `searchCalendars`): the custom calendars' names. Absent: the source lists none. */
  searchCalendars?(opts?: CallOptions): Promise<string[]>;
}

/**
 * How long (ms) the catalog stops calling the service after a failure: the first hold-off, doubled
 * after each further failure of the same kind up to the longest. Without it an editor without TSQ's
 * catalog protocol (Neovim, `tsq check --watch`) called the service at every keystroke: a wrong password
 * meant a failed login per keystroke, which a service with an account-lockout policy ends by locking the
 * account. A refused login (401) is held off longer than an unreachable service, since a wrong password
 * stays wrong until the user changes it. `clear()` ends a hold-off at once.
 */
export const CATALOG_HOLD_OFF_MS = {
  authentication: { first: 60_000, longest: 15 * 60_000 },
  other: { first: 2_000, longest: 60_000 },
} as const;

/** Options of `ServiceCatalog`. */
export interface ServiceCatalogOptions {
  /**
   * Hold off the service after a failure (`CATALOG_HOLD_OFF_MS`); default true. The extension turns it
   * off: its connection health (client/src/connectionHealth.ts) already decides when to try a failing
   * service again and stops at a refused password.
   */
  holdOff?: boolean;
  /** Milliseconds one service call may take before it is given up (default 30 000). */
  timeoutMs?: number;
  /** The clock, in ms (default `Date.now`); tests move it to end a hold-off. */
  now?: () => number;
  /**
   * Told of each failure that starts a hold-off (or of each failure, without hold-off): what was asked
   * ("The columns of Orders"), the error, the hold-off's length in ms (0 without hold-off), and whether
   * the service refused the credentials (401).
   */
  onFailure?: (what: string, error: unknown, holdOffMs: number, authentication: boolean) => void;
}

/** Why the catalog is not calling the service for now, and until when (ms of `now()`). */
interface HoldOff {
  until: number;
  kind: keyof typeof CATALOG_HOLD_OFF_MS;
  /** The hold-off's length, doubled by the next failure of the same kind. */
  length: number;
  /** The failure that started it, the rejection of the calls held off. */
  error: unknown;
}

/** The HTTP status an error carries (`status` or `statusCode`), if any. */
export function statusOf(error: unknown): number | undefined {
  const s = memberOf(error, 'status') ?? memberOf(error, 'statusCode');
  return typeof s === 'number' ? s : undefined;
}

/**
 * The service catalog of one connection. Every method rejects with the service's error when the
 * service cannot be read (or with the error that started a hold-off); `null` answers mean "the service
 * has no such data source".
 *
 * - Data sources: LOGICAL_TABLE object headers, one `listobjectheaders` call per subtype so each carries
 *   its type (headers have no subtype member, docs/service-notes.md §3.1).
 * - Columns: `metadata/details` (docs/service-notes.md §3.2) mapped by `columnsFromDetails`; when the
 *   service has no details for the table, its LOGICAL_COLUMN headers (`columnsFromHeaders`).
 * - Column values: a searchdata query `[column] [column] begins with 'prefix'` (docs/service-interface.md
 *   §4.3), cached; a longer prefix is narrowed from a shorter prefix's complete answer.
 * - Every answer is cached as a promise until `clear()`; a failure is never cached. After a failure the
 *   service is not called for a while (`CATALOG_HOLD_OFF_MS`) unless the front end turns that off.
 */
export class ServiceCatalog {
  private dataSourcesPromise: Promise<DataSource[]> | undefined;
  private calendarsPromise: Promise<string[]> | undefined;
  private readonly columnsCache = new Map<string, Promise<DataSourceColumns | null>>();
  private readonly valuesCache = new Map<string, Promise<string[]>>();
  private holdOff: HoldOff | undefined;
  private made: Promise<CatalogSource> | undefined;

  /** @param source the service, or a function that makes it when first needed (it may throw: the call then fails). */
  constructor(
    private readonly source: CatalogSource | (() => CatalogSource | Promise<CatalogSource>),
    private readonly options: ServiceCatalogOptions = {},
  ) {}

  /** Drops every cached answer and ends a hold-off (Refresh Catalog, a new connection or password). */
  clear(): void {
    this.dataSourcesPromise = undefined;
    this.calendarsPromise = undefined;
    this.columnsCache.clear();
    this.valuesCache.clear();
    this.holdOff = undefined;
  }

  private getSource(): Promise<CatalogSource> {
    if (typeof this.source !== 'function') return Promise.resolve(this.source);
    if (!this.made) {
      const made = Promise.resolve().then(this.source as () => CatalogSource | Promise<CatalogSource>);
      // a source that could not be made is made again by the next call
      made.catch(() => {
        if (this.made === made) this.made = undefined;
      });
      this.made = made;
    }
    return this.made;
  }

  /** Runs one service call under the hold-off rule (see `CATALOG_HOLD_OFF_MS`); rejects with its failure. */
  private async attempt<T>(what: string, call: (source: CatalogSource, opts: CallOptions) => Promise<T>): Promise<T> {
    const now = this.options.now ?? Date.now;
    if (this.holdOff && now() < this.holdOff.until) throw this.holdOff.error;
    try {
      const answer = await call(await this.getSource(), { signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000) });
      this.holdOff = undefined;
      return answer;
    } catch (e) {
      const kind = e instanceof AuthenticationError || statusOf(e) === 401 ? 'authentication' : 'other';
      if (this.options.holdOff === false) {
        this.options.onFailure?.(what, e, 0, kind === 'authentication');
        throw e;
      }
      const limits = CATALOG_HOLD_OFF_MS[kind];
      const length = this.holdOff?.kind === kind ? Math.min(this.holdOff.length * 2, limits.longest) : limits.first;
      this.holdOff = { until: now() + length, kind, length, error: e };
      this.options.onFailure?.(what, e, length, kind === 'authentication');
      throw e;
    }
  }

  /** Caches `load()` under `key` until `clear()`; a rejection is removed at once, so errors are never cached. */
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

  /**
   * Every data source: LOGICAL_TABLE headers of `DATA_SOURCE_SUBTYPES`, each with its subtype. A service
   * that refuses SQL_VIEW (400/500 "Invalid metadata subtype") just has none; any other error rejects.
   */
  dataSources(): Promise<DataSource[]> {
    if (!this.dataSourcesPromise) {
      const p = this.attempt('The data sources', (source, opts) => this.loadDataSources(source, opts));
      this.dataSourcesPromise = p;
      p.catch(() => {
        if (this.dataSourcesPromise === p) this.dataSourcesPromise = undefined;
      });
    }
    return this.dataSourcesPromise;
  }

  private async loadDataSources(source: CatalogSource, opts: CallOptions): Promise<DataSource[]> {
    const pages = await Promise.all(
      DATA_SOURCE_SUBTYPES.map(async (subtype): Promise<[string, ObjectHeader[]]> => {
        try {
          return [subtype, await source.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: [subtype], batchSize: -1, sort: 'NAME', sortAscending: true }, opts)];
        } catch (e) {
          // SQL_VIEW is not in the documented list: a service that refuses it just has none
          const status = statusOf(e);
          if (subtype === 'SQL_VIEW' && (status === 400 || status === 500)) return [subtype, []];
          throw e;
        }
      }),
    );
    const seen = new Map<string, DataSource>();
    for (const [subtype, headers] of pages) for (const h of headers) if (!seen.has(h.id)) seen.set(h.id, { id: h.id, name: h.name, type: subtype });
    return [...seen.values()];
  }

  /**
   * The names of the service's custom calendars (v2 `calendars/search`; docs.thoughtspot.com
   * cloud/latest/connections-cust-cal), the names a query writes after `calendar.`, cached until `clear()`.
   * The service lists them only to DATAMANAGEMENT or ADMINISTRATION, and a service before 10.12.0.cl or
   * without REST API v2 has no such call: a 400, 403 or 404 answer is "none listed" ([]), and it never
   * starts a hold-off (the data sources and columns stay readable). Rejects on any other failure, and with
   * the hold-off's error while one lasts.
   */
  calendars(): Promise<string[]> {
    if (!this.calendarsPromise) {
      const p = this.loadCalendars();
      this.calendarsPromise = p;
      p.catch(() => {
        if (this.calendarsPromise === p) this.calendarsPromise = undefined;
      });
    }
    return this.calendarsPromise;
  }

  private async loadCalendars(): Promise<string[]> {
    const now = this.options.now ?? Date.now;
    if (this.holdOff && now() < this.holdOff.until) throw this.holdOff.error;
    const source = await this.getSource();
    if (!source.searchCalendars) return [];
    try {
      return await source.searchCalendars({ signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000) });
    } catch (e) {
      const status = statusOf(e);
      if (status === 400 || status === 403 || status === 404) return [];
      throw e;
    }
  }

  /**
   * The data source identified by `nameOrId`: a GUID, else the name exactly, else the name in any case.
   * @returns null when the service has no such data source.
   */
  async resolve(nameOrId: string): Promise<DataSource | null> {
    const key = nameOrId.trim();
    const all = await this.dataSources();
    if (GUID.test(key)) {
      const byId = all.find((d) => d.id.toLowerCase() === key.toLowerCase());
      if (byId) return byId;
    }
    const lower = key.toLowerCase();
    return all.find((d) => d.name === key) ?? all.find((d) => d.name.toLowerCase() === lower) ?? null;
  }

  /**
   * The columns of a data source by name or GUID (see `columnsFromDetails`). When `metadata/details`
   * answers with no table, or refuses with a status other than 401/403, the columns come from the
   * LOGICAL_COLUMN headers the data source owns (`columnsFromHeaders`).
   * @returns null when the service has no such data source.
   */
  columns(dataSource: string): Promise<DataSourceColumns | null> {
    return this.cached(this.columnsCache, dataSource.trim().toLowerCase(), () => this.loadColumns(dataSource));
  }

  private async loadColumns(dataSource: string): Promise<DataSourceColumns | null> {
    const ds = await this.resolve(dataSource);
    if (!ds) return null;
    // null: the details describe no table, so the columns come from the headers
    const table = await this.attempt(`The columns of ${ds.name}`, (source, opts) =>
      source.metadataDetails('LOGICAL_TABLE', [ds.id], opts).then(
        (d): DetailsStorable | null => d.storables.find((s) => s?.header?.id === ds.id) ?? d.storables[0] ?? null,
        (e: unknown) => {
          // an answer that refuses this table (not the session): the headers may still describe it
          const status = statusOf(e);
          if (status === undefined || status === 401 || status === 403) throw e;
          return null;
        },
      ),
    );
    if (table && Array.isArray(table.columns)) return { id: ds.id, name: ds.name, columns: columnsFromDetails(table.columns) };
    const headers = await this.attempt(`The columns of ${ds.name}`, (source, opts) => source.listObjectHeaders({ type: 'LOGICAL_COLUMN', batchSize: -1 }, opts));
    return { id: ds.id, name: ds.name, columns: columnsFromHeaders(headers, ds.id) };
  }

  /**
   * Up to `MAX_COLUMN_VALUES` distinct values of a column that begin with `prefix` (case-insensitive), by a
   * searchdata query `[column] [column] begins with 'prefix'` (docs/service-interface.md §4.3;
   * docs/service-notes.md §2.4). A prefix holding a quote cannot be written in a query
   * (docs/service-interface.md §8, limit 5) and answers []; so does a data source the service does not
   * have. When the values of a shorter prefix were complete (fewer than the maximum), they are filtered
   * instead of asking the service again.
   */
  columnValues(dataSource: string, column: string, prefix: string): Promise<string[]> {
    if (prefix.includes("'") || column.includes('[') || column.includes(']')) return Promise.resolve([]);
    const base = `${dataSource.trim().toLowerCase()}\u0000${column.toLowerCase()}\u0000`;
    const lower = prefix.toLowerCase();
    const key = base + lower;
    if (!this.valuesCache.has(key)) {
      for (let n = prefix.length - 1; n >= 0; n--) {
        const shorter = this.valuesCache.get(base + lower.slice(0, n));
        if (!shorter) continue;
        const derived = shorter.then((values) => (values.length >= MAX_COLUMN_VALUES ? this.loadValues(dataSource, column, prefix) : values.filter((v) => v.toLowerCase().startsWith(lower))));
        return this.cached(this.valuesCache, key, () => derived);
      }
    }
    return this.cached(this.valuesCache, key, () => this.loadValues(dataSource, column, prefix));
  }

  private async loadValues(dataSource: string, column: string, prefix: string): Promise<string[]> {
    const ds = await this.resolve(dataSource);
    if (!ds) return [];
    const query = prefix ? `[${column}] [${column}] begins with '${prefix}'` : `[${column}]`;
    const result = await this.attempt(`The values of ${column}`, (source, opts) => source.searchData({ queryString: query, dataSourceGuid: ds.id, batchSize: MAX_COLUMN_VALUES }, opts));
    const index = Math.max(0, result.columnNames.findIndex((n) => n.toLowerCase() === column.toLowerCase()));
    const out = new Set<string>();
    for (const row of result.data) {
      // COMPACT rows are arrays; a service that answers FULL rows keys them by column name (docs/service-notes.md §1.3)
      const cell = Array.isArray(row) ? row[index] : (row as Record<string, unknown>)[result.columnNames[index]];
      if (cell === null || cell === undefined) continue;
      out.add(String(cell));
      if (out.size >= MAX_COLUMN_VALUES) break;
    }
    return [...out];
  }
}
