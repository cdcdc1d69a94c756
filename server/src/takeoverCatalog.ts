/**
 * The takeover between the two places a language server reads the catalog from: the client, over the
 * catalog protocol (`ProtocolCatalog`, server/src/protocolCatalog.ts), and the service itself (the service
 * catalog of common/src/catalog, behind `ServiceCatalogProvider`), for an editor that does not answer
 * TSQ's catalog requests (Neovim, Helix, Zed…).
 *
 * `TakeoverCatalog` asks the client first; when the client gives no usable answer — a timeout,
 * `MethodNotFound` or any other error reply, a malformed answer — the service catalog takes over until
 * `tsq/catalogChanged` (which only a client that implements the protocol sends). Neovim answers
 * `tsq/dataSources` and `tsq/columns` at once with MethodNotFound (-32601), so the takeover happens on the
 * first request, without waiting for a timeout.
 */
import type { ClearableCatalog } from '../../common/src/catalog';
import type { DataSource, DataSourceColumns } from '../../common/src/model';
import type { CancellationLike } from '../../common/src/languageService/types';

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

  /** The custom calendars' names: the client's (`tsq/calendars`), or the service's once it has taken over or when the client knows none. */
  async getCalendars(token?: CancellationLike): Promise<string[] | undefined> {
    if (!this.takenOver) {
      const answer = await this.client.getCalendars?.(token);
      if (answer !== undefined) return answer;
    }
    return this.service.getCalendars?.(token);
  }

  getColumnValues(dataSource: string, column: string, prefix: string, token?: CancellationLike): Promise<string[]> {
    // [] is also the client's "unknown": the values follow whoever answers the columns
    return this.takenOver ? this.service.getColumnValues(dataSource, column, prefix, token) : this.client.getColumnValues(dataSource, column, prefix, token);
  }
}
