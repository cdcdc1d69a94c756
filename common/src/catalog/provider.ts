/**
 * The service catalog as the language service reads it (`CatalogProvider`,
 * common/src/languageService/types.ts), for the front ends that read the service themselves: `tsq check`,
 * `tsq query`, and `tsq lsp` when the editor does not answer TSQ's catalog protocol (Neovim, Helix…).
 * A failure never rejects: it reads as "unknown" (undefined, or [] for values), so no false diagnostic is
 * reported; it is logged once per hold-off and kept in `lastError` for the command line to report.
 */
import type { DataSource, DataSourceColumns } from '../model';
import type { CancellationLike, CatalogProvider } from '../languageService/types';
import { ServiceCatalog, type CatalogSource } from './serviceCatalog';

/** A catalog provider whose cached answers can be dropped (`tsq/catalogChanged`). */
export interface ClearableCatalog extends CatalogProvider {
  /** Drops every cached answer. */
  clear(): void;
}

/** Options of `ServiceCatalogProvider`. */
export interface ServiceCatalogProviderOptions {
  /** Where failures are logged (the connection's console, or stderr); never stdout. */
  log?: (message: string) => void;
  /** Milliseconds one service call may take before it is given up (default 30 000). */
  timeoutMs?: number;
  /** The clock, in ms (default `Date.now`); tests move it to end a hold-off. */
  now?: () => number;
}

/** The message of any thrown value. */
function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The service catalog (`ServiceCatalog`, with its hold-off) behind the `CatalogProvider` interface.
 * `null` from `getColumns` is "the service has no such data source"; undefined is "unknown".
 */
export class ServiceCatalogProvider implements ClearableCatalog {
  private readonly catalog: ServiceCatalog;
  /**
   * The last failure of a service call, e.g. an `AuthenticationError`; cleared only by `clear()`, so that
   * `tsq check` fails a run in which any answer was unknown even if a later call succeeded.
   */
  lastError: unknown;

  /** @param source the service, or a function that makes it when first needed (it may throw: the catalog is then unknown). */
  constructor(source: CatalogSource | (() => CatalogSource | Promise<CatalogSource>), options: ServiceCatalogProviderOptions = {}) {
    this.catalog = new ServiceCatalog(source, {
      timeoutMs: options.timeoutMs,
      now: options.now,
      onFailure: (what, e, ms, authentication) =>
        options.log?.(`${what} from the service failed: ${messageOf(e)}. The service is not asked again for ${Math.round(ms / 1000)} s${authentication ? ' (a wrong password is not retried at every keystroke; change the password or reconnect to try at once)' : ''}.`),
    });
  }

  /** Drops every cached answer and ends a hold-off: the next call asks the service at once. */
  clear(): void {
    this.catalog.clear();
    this.lastError = undefined;
  }

  /** The answer, or undefined (kept in `lastError`) when the service could not be read. */
  private async unknownOnFailure<T>(answer: Promise<T>): Promise<T | undefined> {
    try {
      return await answer;
    } catch (e) {
      this.lastError = e;
      return undefined;
    }
  }

  /** Every data source; undefined when the service cannot be read. */
  getDataSources(_token?: CancellationLike): Promise<DataSource[] | undefined> {
    return this.unknownOnFailure(this.catalog.dataSources());
  }

  /** Columns of a data source by name or GUID; null when the service has no such data source; undefined when unknown. */
  getColumns(dataSource: string, _token?: CancellationLike): Promise<DataSourceColumns | null | undefined> {
    return this.unknownOnFailure(this.catalog.columns(dataSource));
  }

  /** The custom calendars' names (`ServiceCatalog.calendars`); undefined when the service cannot be read (not kept in `lastError`: no check depends on them). */
  async getCalendars(_token?: CancellationLike): Promise<string[] | undefined> {
    try {
      return await this.catalog.calendars();
    } catch {
      return undefined;
    }
  }

  /** Up to 50 values of a column beginning with `prefix`; [] when unknown. */
  async getColumnValues(dataSource: string, column: string, prefix: string, _token?: CancellationLike): Promise<string[]> {
    return (await this.unknownOnFailure(this.catalog.columnValues(dataSource, column, prefix))) ?? [];
  }
}
