/**
 * The catalog read straight from the Analytics Service, for a language server whose editor does not
 * answer TSQ's catalog requests (Neovim, Helix, Zed…) and for `tsq check`.
 *
 * - `ServiceCatalog`: a `CatalogProvider` over `common/src/api`'s client. Data sources are the
 *   LOGICAL_TABLE object headers, one `listobjectheaders` call per subtype so each carries its type
 *   (headers have no subtype member, docs/service-notes.md §3.1); columns come from `metadata/details`
 *   (docs/service-notes.md §3.2); column values from a searchdata query
 *   `[column] [column] begins with 'prefix'` (docs/service-interface.md §4.3). Answers are cached until
 *   `clear()`; failures are never cached, are logged, and read as "unknown" (undefined), so no false
 *   diagnostic is ever reported. After a failure the service is not called again for a while
 *   (`CATALOG_HOLD_OFF_MS`), so that a wrong password is not tried at every keystroke.
 * - `TakeoverCatalog`: asks the client first (`ClientCatalog`); when the client gives no usable answer —
 *   a timeout, `MethodNotFound` or any other error reply, a malformed answer — the service catalog takes
 *   over until `tsq/catalogChanged` (which only a client that implements the protocol sends). Neovim
 *   answers `tsq/dataSources` and `tsq/columns` at once with MethodNotFound (-32601), so the takeover
 *   happens on the first request, without waiting for a timeout.
 *
 * Imports no LSP library: `tsq check` uses it without a connection.
 */
import { AuthenticationError, type AnalyticsServiceClient } from '../../common/src/api';
import { MAX_COLUMN_VALUES } from '../../common/src/protocol';
import type { DataSource, DataSourceColumns } from '../../common/src/model';
import type { CancellationLike, CatalogProvider } from './language/types';

/** LOGICAL_TABLE subtypes that can be a data source (docs/service-interface.md §4.2; SQL_VIEW from docs/service-notes.md §3.1). */
export const DATA_SOURCE_SUBTYPES = ['WORKSHEET', 'ONE_TO_ONE_LOGICAL', 'AGGR_WORKSHEET', 'USER_DEFINED', 'SQL_VIEW'] as const;

/** A GUID (8-4-4-4-12 hex digits). */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A catalog whose cached answers can be dropped. */
export interface ClearableCatalog extends CatalogProvider {
  /** Drops every cached answer. */
  clear(): void;
}

/** Options of `ServiceCatalog`. */
export interface ServiceCatalogOptions {
  /** Where failures are logged (the connection's console, or stderr); never stdout. */
  log?: (message: string) => void;
  /** Milliseconds one service call may take before it is given up (default 30 000). */
  timeoutMs?: number;
  /** The clock, in ms (default `Date.now`); tests move it to end a hold-off. */
  now?: () => number;
}

/**
 * How long (ms) the catalog stops calling the service after a failure: the first hold-off, doubled
 * after each further failure up to the longest. Without it every completion and every validation of
 * an editor without TSQ's catalog (Neovim, `tsq check --watch`) called the service again: a wrong
 * password meant a failed login per keystroke, which a service with an account-lockout policy ends by
 * locking the account. A refused login (401) is held off longer than an unreachable service, since
 * a wrong password stays wrong until the user changes it. `clear()` (`tsq/catalogChanged`, a new
 * connection or password) ends a hold-off at once.
 */
export const CATALOG_HOLD_OFF_MS = {
  authentication: { first: 60_000, longest: 15 * 60_000 },
  other: { first: 2_000, longest: 60_000 },
} as const;

/** Why the catalog is not calling the service for now, and until when (ms of `now()`). */
interface HoldOff {
  until: number;
  kind: keyof typeof CATALOG_HOLD_OFF_MS;
  /** The hold-off's length, doubled by the next failure of the same kind. */
  length: number;
  /** The failure that started it, answered to the calls held off. */
  error: unknown;
}

/** The message of any thrown value. */
function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The catalog of one connection, read from the service. Every method answers "unknown" (undefined, or
 * [] for values) instead of throwing; `lastError` keeps the last failure for the command line to report.
 */
export class ServiceCatalog implements ClearableCatalog {
  private dataSources: Promise<DataSource[] | undefined> | undefined;
  private readonly columns = new Map<string, Promise<DataSourceColumns | null | undefined>>();
  /** The last failure of a service call (cleared by `clear()`), e.g. an authentication error. */
  lastError: unknown;
  /** Set after a failure: calls before `until` answer "unknown" without calling the service. */
  private holdOff: HoldOff | undefined;

  /** @param client a client, or a function that makes one when first needed (it may throw: the catalog is then unknown). */
  constructor(
    private readonly client: AnalyticsServiceClient | (() => AnalyticsServiceClient | Promise<AnalyticsServiceClient>),
    private readonly options: ServiceCatalogOptions = {},
  ) {}

  private made: Promise<AnalyticsServiceClient> | undefined;
  private getClient(): Promise<AnalyticsServiceClient> {
    if (typeof this.client !== 'function') return Promise.resolve(this.client);
    if (!this.made) {
      const made = Promise.resolve().then(this.client as () => AnalyticsServiceClient | Promise<AnalyticsServiceClient>);
      // a client that could not be made is made again by the next call after the hold-off
      made.catch(() => {
        if (this.made === made) this.made = undefined;
      });
      this.made = made;
    }
    return this.made;
  }

  /** Drops every cached answer and ends a hold-off: the next call asks the service at once. */
  clear(): void {
    this.dataSources = undefined;
    this.columns.clear();
    this.lastError = undefined;
    this.holdOff = undefined;
  }

  /**
   * Runs a service call; undefined (logged, kept in `lastError`) when it fails. After a failure the
   * service is not called again until the hold-off (`CATALOG_HOLD_OFF_MS`) ends: the calls in between
   * answer undefined at once (one log line when the hold-off starts, none per call).
   */
  private async attempt<T>(what: string, call: (client: AnalyticsServiceClient, signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const now = this.options.now ?? Date.now;
    if (this.holdOff && now() < this.holdOff.until) {
      this.lastError = this.holdOff.error;
      return undefined;
    }
    try {
      const client = await this.getClient();
      const answer = await call(client, AbortSignal.timeout(this.options.timeoutMs ?? 30_000));
      this.holdOff = undefined;
      return answer;
    } catch (e) {
      this.lastError = e;
      const kind = e instanceof AuthenticationError ? 'authentication' : 'other';
      const limits = CATALOG_HOLD_OFF_MS[kind];
      const length = this.holdOff?.kind === kind ? Math.min(this.holdOff.length * 2, limits.longest) : limits.first;
      this.holdOff = { until: now() + length, kind, length, error: e };
      this.options.log?.(`${what} from the service failed: ${messageOf(e)}. The service is not asked again for ${Math.round(length / 1000)} s${kind === 'authentication' ? ' (a wrong password is not retried at every keystroke; change the password or reconnect to try at once)' : ''}.`);
      return undefined;
    }
  }

  /** Keeps a promise in a slot only when it gives a usable answer. */
  private static keep<T>(get: () => Promise<T> | undefined, set: (p: Promise<T> | undefined) => void, load: () => Promise<T>): Promise<T> {
    const existing = get();
    if (existing) return existing;
    const p = load().then((v) => {
      if (v === undefined && get() === p) set(undefined);
      return v;
    });
    set(p);
    return p;
  }

  /** Every data source (LOGICAL_TABLE headers of the data-source subtypes); undefined when the service cannot be read. */
  getDataSources(_token?: CancellationLike): Promise<DataSource[] | undefined> {
    return ServiceCatalog.keep(
      () => this.dataSources,
      (p) => (this.dataSources = p),
      () =>
        this.attempt('The data sources', async (client, signal) => {
          const pages = await Promise.all(
            DATA_SOURCE_SUBTYPES.map(async (subtype) => {
              try {
                return { subtype, headers: await client.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: [subtype], batchSize: -1, sort: 'NAME', sortAscending: true }, { signal }) };
              } catch (e) {
                // SQL_VIEW is not in the documented list: a service that refuses it just has none
                const status = (e as { status?: number }).status;
                if (subtype === 'SQL_VIEW' && (status === 400 || status === 500)) return { subtype, headers: [] };
                throw e;
              }
            }),
          );
          const seen = new Map<string, DataSource>();
          for (const { subtype, headers } of pages) for (const h of headers) if (!seen.has(h.id)) seen.set(h.id, { id: h.id, name: h.name, type: subtype });
          return [...seen.values()];
        }),
    );
  }

  /** The data source named (exactly, then case-insensitively) or identified by `nameOrId`; null when none; undefined when unknown. */
  async resolve(nameOrId: string, token?: CancellationLike): Promise<DataSource | null | undefined> {
    const all = await this.getDataSources(token);
    if (!all) return undefined;
    const key = nameOrId.trim();
    if (GUID.test(key)) {
      const byId = all.find((d) => d.id.toLowerCase() === key.toLowerCase());
      if (byId) return byId;
    }
    return all.find((d) => d.name === key) ?? all.find((d) => d.name.toLowerCase() === key.toLowerCase()) ?? null;
  }

  /** Columns of a data source by name or GUID (`metadata/details`); null when the service has no such data source. */
  getColumns(dataSource: string, token?: CancellationLike): Promise<DataSourceColumns | null | undefined> {
    const key = dataSource.trim().toLowerCase();
    return ServiceCatalog.keep(
      () => this.columns.get(key),
      (p) => (p ? this.columns.set(key, p) : this.columns.delete(key)),
      async () => {
        const ds = await this.resolve(dataSource, token);
        if (!ds) return ds;
        const columns = await this.attempt(`The columns of ${ds.name}`, (client, signal) => client.tableColumns(ds.id, { signal }));
        // a data source the listing has but the details do not describe: unknown rather than "no columns"
        if (!columns) return undefined;
        return { id: ds.id, name: ds.name, columns: columns.columns };
      },
    );
  }

  /**
   * Up to 50 distinct values of a column beginning with `prefix` (case-insensitive). A prefix holding a
   * quote cannot be written in a query (docs/service-interface.md §8) and answers []. Not cached.
   */
  async getColumnValues(dataSource: string, column: string, prefix: string, token?: CancellationLike): Promise<string[]> {
    if (prefix.includes("'") || column.includes('[') || column.includes(']')) return [];
    const ds = await this.resolve(dataSource, token);
    if (!ds) return [];
    const query = prefix ? `[${column}] [${column}] begins with '${prefix}'` : `[${column}]`;
    const result = await this.attempt(`The values of ${column}`, (client, signal) => client.searchData({ queryString: query, dataSourceGuid: ds.id, batchSize: MAX_COLUMN_VALUES }, { signal }));
    if (!result) return [];
    const index = Math.max(0, result.columnNames.findIndex((n) => n.toLowerCase() === column.toLowerCase()));
    const out = new Set<string>();
    for (const row of result.data) {
      const cell = row[index];
      if (cell === null || cell === undefined) continue;
      out.add(String(cell));
      if (out.size >= MAX_COLUMN_VALUES) break;
    }
    return [...out];
  }
}

/**
 * Asks the client first and lets the service take over once the client gives no usable answer (see the
 * module comment). `clear()` (on `tsq/catalogChanged`) gives the client its turn again.
 */
export class TakeoverCatalog implements ClearableCatalog {
  private takenOver = false;

  constructor(
    private readonly client: ClearableCatalog,
    private readonly service: ClearableCatalog,
    private readonly log?: (message: string) => void,
  ) {}

  /** True once the service answers in the client's place. */
  get isTakenOver(): boolean {
    return this.takenOver;
  }

  private takeOver(method: string): void {
    if (this.takenOver) return;
    this.takenOver = true;
    this.log?.(`${method}: the client gave no catalog; reading it from the service directly until tsq/catalogChanged.`);
  }

  clear(): void {
    this.takenOver = false;
    this.client.clear();
    this.service.clear();
  }

  async getDataSources(token?: CancellationLike): Promise<DataSource[] | undefined> {
    if (!this.takenOver) {
      const answer = await this.client.getDataSources(token);
      if (answer !== undefined) return answer;
      this.takeOver('tsq/dataSources');
    }
    return this.service.getDataSources(token);
  }

  async getColumns(dataSource: string, token?: CancellationLike): Promise<DataSourceColumns | null | undefined> {
    if (!this.takenOver) {
      const answer = await this.client.getColumns(dataSource, token);
      if (answer !== undefined) return answer;
      this.takeOver('tsq/columns');
    }
    return this.service.getColumns(dataSource, token);
  }

  getColumnValues(dataSource: string, column: string, prefix: string, token?: CancellationLike): Promise<string[]> {
    // [] is also the client's "unknown": the values follow whoever answers the columns
    return this.takenOver ? this.service.getColumnValues(dataSource, column, prefix, token) : this.client.getColumnValues(dataSource, column, prefix, token);
  }
}
