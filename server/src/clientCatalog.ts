/**
 * The server's `CatalogProvider`: it asks the client (the extension, which owns the connection to the
 * Analytics Service) through the custom requests of the catalog protocol (`tsq/dataSources`,
 * `tsq/columns`, `tsq/columnValues`; DESIGN.md "The catalog protocol", common/src/protocol.ts).
 *
 * Robustness rules (issue 2, part 3):
 * - every request has a time budget (`requestTimeout`, ms); a client that does not answer within it is
 *   cancelled (`$/cancelRequest`) and the answer is "unknown" (`undefined`): no semantic diagnostics;
 * - answers are checked once, here, against their JSON Schemas (common/src/protocolSchemas.ts); a
 *   malformed answer is "unknown" too (never a false error), and the language features trust the rest;
 * - a client that does not implement a method (`MethodNotFound`) is not asked that method again until
 *   `clear()` (sent on `tsq/catalogChanged`);
 * - successful answers are cached per data source (`tsq/columns`) and for the data-source list; errors,
 *   timeouts and malformed answers are never cached. Concurrent askers of the same data source share one
 *   request in flight.
 *
 * Does not import `vscode`; it only needs the `sendRequest` of an LSP connection.
 */
import { CancellationTokenSource, ErrorCodes, ResponseError } from 'vscode-languageserver';
import type { CancellationToken, Disposable } from 'vscode-languageserver';
import { DataSourcesRequest, ColumnsRequest, ColumnValuesRequest } from '../../common/src/protocol';
import { checkColumnValuesAnswer, checkDataSourceColumnsAnswer, checkDataSourcesAnswer } from '../../common/src/protocolSchemas';
import type { DataSource, DataSourceColumns } from '../../common/src/model';
import type { CancellationLike, CatalogProvider } from './language/types';

/** What `ClientCatalog` needs of the connection: sending a request with a cancellation token. */
export interface RequestSender {
  sendRequest<R>(method: string, params: unknown, token?: CancellationToken): Promise<R>;
}

/** Timers, injected (the json-language-features `RuntimeEnvironment` pattern). */
export interface CatalogTimer {
  /** Calls `callback` after `ms` milliseconds; `dispose()` cancels it. */
  setTimeout(callback: () => void, ms: number): Disposable;
}

/** Options of `ClientCatalog`. */
export interface ClientCatalogOptions {
  /** Budget of each request to the client, in ms (default 2000). */
  requestTimeout?: number;
  timer: CatalogTimer;
  /** Where problems are logged (the connection's console); never stdout. */
  log?: (message: string) => void;
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
 * A `CatalogProvider` that asks the client over the catalog protocol. See the module comment for its
 * budget, validation and caching rules. Never rejects: every failure reads as "unknown".
 */
export class ClientCatalog implements CatalogProvider {
  private readonly budget: number;
  private dataSources: Promise<DataSource[] | undefined> | undefined;
  private readonly columns = new Map<string, Promise<DataSourceColumns | null | undefined>>();
  private readonly unsupported = new Set<string>();

  constructor(private readonly sender: RequestSender, private readonly options: ClientCatalogOptions) {
    this.budget = options.requestTimeout ?? 2000;
  }

  /** Drops every cached answer and forgets which methods the client lacks (on `tsq/catalogChanged`). */
  clear(): void {
    this.dataSources = undefined;
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
        this.options.log?.(`${method}: no answer from the client within ${this.budget} ms; treating the catalog as unknown.`);
        return undefined;
      case 'methodNotFound':
        this.options.log?.(`${method}: the client does not implement it; no catalog until tsq/catalogChanged.`);
        this.unsupported.add(method);
        return undefined;
      case 'error':
        this.options.log?.(`${method}: the client answered an error: ${outcome.message}`);
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

  /** All data sources (`tsq/dataSources`), cached once answered; undefined when unknown. */
  getDataSources(_token?: CancellationLike): Promise<DataSource[] | undefined> {
    return this.cached(
      () => this.dataSources,
      (p) => (this.dataSources = p),
      () => this.ask(DataSourcesRequest.method, {}, parseDataSources),
      (v) => v !== undefined,
    );
  }

  /** Columns of a data source by name or GUID (`tsq/columns`), cached per data source once answered. */
  getColumns(dataSource: string, _token?: CancellationLike): Promise<DataSourceColumns | null | undefined> {
    return this.cached(
      () => this.columns.get(dataSource),
      (p) => (p ? this.columns.set(dataSource, p) : this.columns.delete(dataSource)),
      () => this.ask(ColumnsRequest.method, { dataSource }, parseDataSourceColumns),
      (v) => v !== undefined,
    );
  }

  /** Up to 50 values of a column starting with `prefix` (`tsq/columnValues`, not cached); [] when unknown. */
  async getColumnValues(dataSource: string, column: string, prefix: string, _token?: CancellationLike): Promise<string[]> {
    return (await this.ask(ColumnValuesRequest.method, { dataSource, column, prefix }, parseColumnValues)) ?? [];
  }
}
