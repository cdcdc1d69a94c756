/**
 * The protocol catalog: the server's `CatalogProvider` that asks the client (the extension, which owns
 * the connection to the Analytics Service) through the custom requests of the catalog protocol
 * (`tsq/dataSources`, `tsq/columns`, `tsq/columnValues`; docs/architecture.md "The catalog protocol",
 * common/src/protocol.ts). `null` from `tsq/columns` is "the service has no such data source"; an error
 * reply (`CATALOG_UNKNOWN`, or any other) is "unknown", as `undefined` is for the language service.
 * Its time budget, validation, caching and stale answers: `ProtocolCatalog`.
 *
 * Does not import `vscode`; it only needs the `sendRequest` of an LSP connection.
 */
import { CancellationTokenSource, DiagnosticSeverity, ErrorCodes, ResponseError } from 'vscode-languageserver';
import type { Diagnostic } from 'vscode-languageserver';
import type { CancellationToken, Disposable } from 'vscode-languageserver';
import { CalendarsRequest, DataSourcesRequest, ColumnsRequest, ColumnValuesRequest } from '../../common/src/protocol';
import { checkCalendarsAnswer, checkColumnValuesAnswer, checkDataSourceColumnsAnswer, checkDataSourcesAnswer } from '../../common/src/protocolSchemas';
import type { DataSource, DataSourceColumns } from '../../common/src/model';
import type { CancellationLike, CatalogProvider } from '../../common/src/languageService/types';

/** What `ProtocolCatalog` needs of the connection: sending a request with a cancellation token. */
export interface RequestSender {
  sendRequest<R>(method: string, params: unknown, token?: CancellationToken): Promise<R>;
}

/** Timers, injected (the json-language-features `RuntimeEnvironment` pattern). */
export interface CatalogTimer {
  /** Calls `callback` after `ms` milliseconds; `dispose()` cancels it. */
  setTimeout(callback: () => void, ms: number): Disposable;
}

/** Options of `ProtocolCatalog`. */
export interface ProtocolCatalogOptions {
  /** Budget of each request to the client, in ms (default 2000). */
  requestTimeout?: number;
  timer: CatalogTimer;
  /** Where problems are logged (the connection's console); never stdout. */
  log?: (message: string) => void;
  /** The clock, in epoch ms (for the age of a stale answer); default `Date.now`. */
  now?: () => number;
}

/** An answer kept for when the client cannot answer: its value and when it came (epoch ms). */
interface KnownAnswer<T> {
  value: T;
  at: number;
}

/** A data source whose last known columns are in use because a fresh request failed. */
export interface StaleColumns {
  /** The data source as asked (name or GUID). */
  dataSource: string;
  /** When the columns in use were answered (epoch ms). */
  since: number;
  /** Why no fresh answer came, e.g. "no answer within 2000 ms". */
  reason: string;
}

/** The outcome of one request to the client. */
type Outcome =
  | { kind: 'answer'; value: unknown }
  | { kind: 'timeout' }
  | { kind: 'methodNotFound' }
  | { kind: 'error'; message: string };

/**
 * Sends `method` to the client and waits at most `budgetMs`. Never rejects.
 * On timeout the request is cancelled (`$/cancelRequest` goes to the client).
 */
export function requestWithBudget(sender: RequestSender, method: string, params: unknown, budgetMs: number, timer: CatalogTimer): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const source = new CancellationTokenSource();
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      timeout.dispose();
      source.dispose();
      resolve(outcome);
    };
    const timeout = timer.setTimeout(() => {
      if (done) return;
      source.cancel();
      finish({ kind: 'timeout' });
    }, budgetMs);
    let pending: Promise<unknown>;
    try {
      pending = sender.sendRequest<unknown>(method, params, source.token);
    } catch (e) {
      finish({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
      return;
    }
    pending.then(
      (value) => finish({ kind: 'answer', value }),
      (e: unknown) => {
        if (e instanceof ResponseError && e.code === ErrorCodes.MethodNotFound) finish({ kind: 'methodNotFound' });
        else finish({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
      },
    );
  });
}

/**
 * Checks a `tsq/dataSources` answer against its JSON Schema (common/src/protocolSchemas.ts): an array of
 * `{ id: string, name: string, type: string }`.
 * @returns the data sources (only the three fields kept), or undefined when any part is malformed.
 */
export function parseDataSources(value: unknown): DataSource[] | undefined {
  const checked = checkDataSourcesAnswer(value);
  return checked.ok ? checked.value : undefined;
}

/**
 * Checks a `tsq/columns` answer against its JSON Schema (common/src/protocolSchemas.ts): `null` (the
 * service says the data source does not exist) or `{ id: string, name: string, columns: Column[] }` with
 * every column well-formed (`dataType` one of `COLUMN_DATA_TYPES`, `kind` ATTRIBUTE or MEASURE).
 * @returns the columns, `null`, or undefined when the answer is malformed (treated as unknown).
 */
export function parseDataSourceColumns(value: unknown): DataSourceColumns | null | undefined {
  const checked = checkDataSourceColumnsAnswer(value);
  return checked.ok ? checked.value : undefined;
}

/**
 * Checks a `tsq/columnValues` answer against its JSON Schema (common/src/protocolSchemas.ts): an array of
 * strings.
 * @returns at most `MAX_COLUMN_VALUES` values, or undefined when malformed.
 */
export function parseColumnValues(value: unknown): string[] | undefined {
  const checked = checkColumnValuesAnswer(value);
  return checked.ok ? checked.value : undefined;
}

/**
 * Checks a `tsq/calendars` answer against its JSON Schema (common/src/protocolSchemas.ts): an array of
 * strings.
 * @returns at most `MAX_CALENDARS` non-blank names, or undefined when malformed.
 */
export function parseCalendars(value: unknown): string[] | undefined {
  const checked = checkCalendarsAnswer(value);
  return checked.ok ? checked.value : undefined;
}

/**
 * A `CatalogProvider` that asks the client over the catalog protocol. Never rejects: every failure reads
 * as "unknown".
 *
 * Robustness rules:
 * - every request has a time budget (`requestTimeout`, ms); a client that does not answer within it is
 *   cancelled (`$/cancelRequest`) and the answer is "unknown" (`undefined`): no semantic diagnostics;
 * - answers are checked once, here, against their JSON Schemas (common/src/protocolSchemas.ts); a
 *   malformed answer is "unknown" too (never a false error), and the language features trust the rest;
 * - a client that does not implement a method (`MethodNotFound`) is not asked that method again until
 *   `clear()` (sent on `tsq/catalogChanged`);
 * - successful answers are cached per data source (`tsq/columns`) and for the data-source list; errors,
 *   timeouts and malformed answers are never cached. Concurrent askers of the same data source share one
 *   request in flight.
 * - stale while revalidating: the last answer of each data source (and of the list) is kept,
 *   also across `clear()`. When a fresh request fails (the service or the client does not answer), the
 *   last known answer is used, so diagnostics do not vanish while the service is unreachable, and
 *   `staleDiagnostics` gives each document that uses it one Information diagnostic that says how old it
 *   is and why. Only when there never was an answer is the catalog unknown (no semantic diagnostics).
 */
export class ProtocolCatalog implements CatalogProvider {
  private readonly budget: number;
  private dataSources: Promise<DataSource[] | undefined> | undefined;
  private calendars: Promise<string[] | undefined> | undefined;
  private readonly columns = new Map<string, Promise<DataSourceColumns | null | undefined>>();
  private readonly unsupported = new Set<string>();
  /** The last answer per data source and of the list, kept across `clear()` (stale while revalidating). */
  private readonly knownColumns = new Map<string, KnownAnswer<DataSourceColumns | null>>();
  private knownDataSources: KnownAnswer<DataSource[]> | undefined;
  /** Data sources (lower-cased key) whose last known columns are in use, with why. */
  private readonly stale = new Map<string, StaleColumns>();
  /** Why the last request of a method failed (for the stale notice). */
  private readonly lastFailure = new Map<string, string>();

  constructor(private readonly sender: RequestSender, private readonly options: ProtocolCatalogOptions) {
    this.budget = options.requestTimeout ?? 2000;
  }

  /**
   * Drops every cached answer and forgets which methods the client lacks (on `tsq/catalogChanged`). The
   * last known answers stay, for when the fresh requests fail.
   */
  clear(): void {
    this.dataSources = undefined;
    this.calendars = undefined;
    this.columns.clear();
    this.unsupported.clear();
  }

  /** Asks the client, logging failures; undefined when there is no usable answer. */
  private async ask<T>(method: string, params: unknown, parse: (value: unknown) => T | undefined): Promise<T | undefined> {
    if (this.unsupported.has(method)) return undefined;
    const outcome = await requestWithBudget(this.sender, method, params, this.budget, this.options.timer);
    switch (outcome.kind) {
      case 'answer': {
        const parsed = parse(outcome.value);
        if (parsed === undefined) this.options.log?.(`${method}: the client's answer is malformed; treating the catalog as unknown.`);
        return parsed;
      }
      case 'timeout':
        this.options.log?.(`${method}: no answer from the client within ${this.budget} ms; using the last known answer, if any.`);
        this.lastFailure.set(method, `no answer within ${this.budget / 1000} s`);
        return undefined;
      case 'methodNotFound':
        this.options.log?.(`${method}: the client does not implement it; no catalog until tsq/catalogChanged.`);
        this.unsupported.add(method);
        return undefined;
      case 'error':
        this.options.log?.(`${method}: the client answered an error: ${outcome.message}`);
        this.lastFailure.set(method, outcome.message);
        return undefined;
    }
  }

  /**
   * Shares one request in flight per key, and keeps it only when it succeeded. A `clear()` while it is in
   * flight empties the slot, so its late answer is not cached.
   */
  private cached<T>(get: () => Promise<T> | undefined, set: (p: Promise<T> | undefined) => void, load: () => Promise<T>, usable: (v: T) => boolean): Promise<T> {
    const existing = get();
    if (existing) return existing;
    const promise = load().then((value) => {
      if (!usable(value) && get() === promise) set(undefined);
      return value;
    });
    set(promise);
    return promise;
  }

  /**
   * All data sources (`tsq/dataSources`), cached once answered; the last known list when a fresh request
   * fails; undefined when there never was one.
   */
  async getDataSources(_token?: CancellationLike): Promise<DataSource[] | undefined> {
    const fresh = await this.cached(
      () => this.dataSources,
      (p) => (this.dataSources = p),
      () => this.ask(DataSourcesRequest.method, {}, parseDataSources),
      (v) => v !== undefined,
    );
    if (fresh !== undefined) {
      this.knownDataSources = { value: fresh, at: this.now() };
      return fresh;
    }
    return this.knownDataSources?.value;
  }

  /**
   * Columns of a data source by name or GUID (`tsq/columns`), cached per data source once answered; the
   * last known columns when a fresh request fails (see `staleDiagnostics`); undefined when there never
   * were any.
   */
  async getColumns(dataSource: string, _token?: CancellationLike): Promise<DataSourceColumns | null | undefined> {
    const fresh = await this.cached(
      () => this.columns.get(dataSource),
      (p) => (p ? this.columns.set(dataSource, p) : this.columns.delete(dataSource)),
      () => this.ask(ColumnsRequest.method, { dataSource }, parseDataSourceColumns),
      (v) => v !== undefined,
    );
    return fresh !== undefined ? this.rememberColumns(dataSource, fresh) : this.lastKnownColumns(dataSource);
  }

  /** Keeps a fresh answer as the last known one; the data source is no longer stale. */
  private rememberColumns(dataSource: string, value: DataSourceColumns | null): DataSourceColumns | null {
    const key = dataSource.trim().toLowerCase();
    this.knownColumns.set(key, { value, at: this.now() });
    this.stale.delete(key);
    return value;
  }

  /** The last known columns of a data source (marked stale, with the reason), or undefined. */
  private lastKnownColumns(dataSource: string): DataSourceColumns | null | undefined {
    const key = dataSource.trim().toLowerCase();
    const known = this.knownColumns.get(key);
    if (!known) return undefined;
    const reason = this.unsupported.has(ColumnsRequest.method) ? 'the client no longer answers tsq/columns' : (this.lastFailure.get(ColumnsRequest.method) ?? 'no answer');
    if (!this.stale.has(key)) this.options.log?.(`tsq/columns: using the columns of ${dataSource} from ${ago(this.now() - known.at)} (${reason}).`);
    this.stale.set(key, { dataSource, since: known.at, reason });
    return known.value;
  }

  /** The data sources whose last known columns are in use now. */
  staleColumns(): StaleColumns[] {
    return [...this.stale.values()];
  }

  /**
   * One Information diagnostic (on the first line) for a document that names a data source whose
   * columns are stale (or uses it as `defaultDataSource`), saying how old they are and why:
   * "Columns of 'Flights' from 2 min ago; the service is unreachable (no answer within 2 s)…". [] when
   * nothing is stale. The names are matched in the text case-insensitively.
   */
  staleDiagnostics(text: string, defaultDataSource?: string): Diagnostic[] {
    if (!this.stale.size) return [];
    const lower = text.toLowerCase();
    const used = [...this.stale.entries()].filter(([key]) => lower.includes(key) || key === defaultDataSource?.trim().toLowerCase()).map(([, s]) => s);
    if (!used.length) return [];
    const now = this.now();
    const parts = used.map((s) => `'${s.dataSource}' from ${ago(now - s.since)}`);
    const message = `Columns of ${parts.join(', ')}; the service is unreachable (${used[0].reason}). Diagnostics use these columns until it answers again.`;
    return [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Information, source: 'tsq', code: 'tsq.staleCatalog', message }];
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The custom calendars' names (`tsq/calendars`), cached once answered until `clear()`; undefined when unknown (a client without the method included). */
  getCalendars(_token?: CancellationLike): Promise<string[] | undefined> {
    return this.cached(
      () => this.calendars,
      (p) => (this.calendars = p),
      () => this.ask(CalendarsRequest.method, {}, parseCalendars),
      (v) => v !== undefined,
    );
  }

  /** Up to 50 values of a column starting with `prefix` (`tsq/columnValues`, not cached); [] when unknown. */
  async getColumnValues(dataSource: string, column: string, prefix: string, _token?: CancellationLike): Promise<string[]> {
    return (await this.ask(ColumnValuesRequest.method, { dataSource, column, prefix }, parseColumnValues)) ?? [];
  }
}

/** "12 s ago", "2 min ago", "3 h ago". */
function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min ago` : `${Math.round(min / 60)} h ago`;
}
