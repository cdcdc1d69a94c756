/**
 * A run of the results panel: its summary for automation, the cancellable state every request of a run
 * shares (`ActiveRun`), and the paging of searchdata and pinboard data into a panel's tabs.
 */
import type { AnalyticsServiceClient } from '../../../common/src/api';
import { pagesOf, pagesOfEach } from '../../../common/src/api/paging';
import { packPage } from '../../../common/src/results/messages';
import { describeColumns, type CellValue } from '../../../common/src/results/shape';
import type { Column } from '../../../common/src/model';
import { resultsSettings } from '../settings';
import type { ResultsTarget, TabData } from './panel';
import { abortable } from '../abortable';
import type { CatalogAccess } from '../languageClient';

/** What a run command resolves to (for automation: tests and benchmarks). */
export interface RunSummary {
  tabId: string;
  /** Rows fetched (and sent to the grid). */
  rows: number;
  totalRowCount: number;
  samplingRatio: number;
  columnNames: string[];
  /** The error text shown, when the search failed. */
  error?: string;
  cancelled?: boolean;
  /** ms from the command to the first page's arrival from the service. */
  firstPageMs?: number;
  /** ms from the command to the webview reporting the first rows painted (set when it reports). */
  firstPaintMs?: number;
  /** ms from the command to the last page. */
  elapsedMs: number;
}

/** Arguments of `tsq.runQuery` for automation; without them the active editor's cursor or selection decides. */
export interface RunQueryArgs {
  /** Document URI (default: the active editor's). */
  uri?: string;
  /** Index of the query in `tsq/queries` order (default: the one under the cursor). */
  index?: number;
  /** Send the query although the language server reports an error in it (the action Run Anyway). */
  anyway?: boolean;
  /**
   * The text of the query to run (the first query of the document with this text, as `tsq/queries`
   * gives it, e.g. a History entry's `query`); when the document no longer holds it, nothing runs.
   */
  query?: string;
}

/** Rows of the first searchdata page of a run: small, so that the first rows show at once. */
export const FIRST_PAGE_ROWS = 1000;

/**
 * Most rows of one `rows` message: a page of 100,000 rows (`tsq.results.pageSize`) went over as one
 * message of 4 MB, and the webview, which shares the workbench's thread, decoded and stored it in one
 * task of 100–300 ms (`npm run bench -- results`); in messages of this many rows each task stays short.
 */
export const MESSAGE_ROWS = 10_000;

/**
 * Posts rows of tab `tabId` to the webview in messages of at most MESSAGE_ROWS rows, and keeps each
 * message's packed bytes in `pages`. `loaded` is the count of rows before these; `done` and `limited`
 * go on the last message only.
 */
function postRows(panel: ResultsTarget, pages: Uint8Array[], tabId: string, rows: CellValue[][], loaded: number, m: { elapsedMs: number; done: boolean; limited: boolean }): void {
  for (let i = 0; i < rows.length || i === 0; i += MESSAGE_ROWS) {
    const chunk = rows.slice(i, i + MESSAGE_ROWS);
    const packed = packPage(chunk);
    pages.push(packed);
    const last = i + MESSAGE_ROWS >= rows.length;
    panel.post({ type: 'rows', tabId, packed, loaded: loaded + i + chunk.length, elapsedMs: m.elapsedMs, done: last && m.done, limited: last && m.limited });
  }
}

/**
 * A run in progress: one `AbortSignal` that every request of the run gets (the data-source lookup, every
 * searchdata page, pinboard data), and the tabs it fills. `cancel()` aborts the signal and ends its
 * unfinished tabs in the panel at once, without waiting for the requests to end.
 */
export class ActiveRun {
  readonly abort = new AbortController();
  readonly tabIds = new Set<string>();
  /** Tabs whose end (done, error or cancelled) the panel was told. */
  readonly ended = new Set<string>();

  constructor(readonly panel: ResultsTarget, private readonly started: number) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Marks a tab ended; false when it already was (its end is posted once). */
  end(tabId: string): boolean {
    if (this.ended.has(tabId)) return false;
    this.ended.add(tabId);
    return true;
  }

  /** Aborts every request of the run and shows its unfinished tabs as cancelled now. */
  cancel(): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    for (const tabId of this.tabIds) {
      if (this.panel.tabs.get(tabId)?.done || !this.end(tabId)) continue;
      this.panel.post({ type: 'cancelled', tabId, elapsedMs: Date.now() - this.started });
    }
  }
}

/**
 * Pages of pinboard data (seed §4.2 pinboarddata, `batchsize`/`pagenumber`) into one tab per
 * visualization of `panel`, until every visualization is complete or has `tsq.results.maxRows` rows.
 * `onFirstPage(tabId)` is called when a visualization's first rows were posted. Throws the service's
 * error (`ServiceError`), or `Error('cancelled')` when `run` was cancelled.
 */
export async function fetchPinboardPages(panel: ResultsTarget, run: ActiveRun, client: AnalyticsServiceClient, id: string, vizIds: string[] | undefined, started: number, summaries: Map<string, RunSummary>, onFirstPage: (tabId: string) => void): Promise<void> {
  const { maxRows, pageSize } = resultsSettings();
  // One request pages every visualization still short of its rows (`keys`; the first asks for `vizIds`).
  const fetch = async (pageNumber: number, batchSize: number, keys: readonly string[] | undefined) => Object.entries(await client.pinboardData({ id, vizIds: keys ? [...keys] : vizIds, batchSize, pageNumber }, { signal: run.signal }));
  let firstRequest = true;
  for await (const pages of pagesOfEach(fetch, { pageSize, maxRows })) {
    if (run.signal.aborted) throw new Error('cancelled');
    let first = true;
    for (const { key: vizId, answer: v, rows: vizRows, loaded, done, limited } of pages) {
      const tabId = `viz-${id}-${vizId}`;
      let tab = panel.tabs.get(tabId);
      const rows = vizRows as CellValue[][];
      const elapsedMs = Date.now() - started;
      if (!tab) {
        run.tabIds.add(tabId);
        tab = { tabId, title: v.name || vizId, pages: [], totalRowCount: v.totalRowCount, samplingRatio: v.samplingRatio, loaded: 0, done: false, columnNames: v.columnNames };
        panel.tabs.set(tabId, tab);
        panel.post({ type: 'start', tabId, title: tab.title, replace: firstRequest && first, startedAt: started });
        first = false;
      }
      const before = tab.loaded;
      tab.loaded = loaded;
      tab.done = done;
      if (done) run.end(tabId);
      if (firstRequest) {
        tab.pages.push(packPage(rows));
        tab.columns = describeColumns(v.columnNames, rows);
        panel.post({ type: 'columns', tabId, columns: tab.columns, totalRowCount: v.totalRowCount, samplingRatio: v.samplingRatio, rows, elapsedMs, done, limited, expectedRows: Math.min(v.totalRowCount, maxRows) });
        onFirstPage(tabId);
      } else {
        postRows(panel, tab.pages, tabId, rows, before, { elapsedMs, done, limited });
      }
      summaries.set(tabId, { tabId, rows: tab.loaded, totalRowCount: v.totalRowCount, samplingRatio: v.samplingRatio, columnNames: v.columnNames, elapsedMs });
    }
    firstRequest = false;
  }
}

/**
 * Pages the answer of `query` on data source `ds` (seed §4.2 searchdata) into `tab` of `panel`: a small
 * first page (`FIRST_PAGE_ROWS`) shown at once, then pages of `tsq.results.pageSize` (page 1 of those
 * repeats the first rows, which are skipped), until the answer is complete or `tsq.results.maxRows`
 * rows came. Fills `summary` as pages arrive and names `tab`'s data source (`ds.name`). Throws the
 * service's error, or `Error('cancelled')`.
 * @param rowLimit fewer rows than `tsq.results.maxRows` (Preview Data's first 1,000), or undefined.
 */
export async function fetchSearchPages(client: AnalyticsServiceClient, query: string, ds: { id: string; name?: string; columns?: Column[] }, panel: ResultsTarget, run: ActiveRun, tab: TabData, summary: RunSummary, started: number, rowLimit?: number): Promise<void> {
  const signal = run.signal;
  const tabId = tab.tabId;
  tab.dataSource = ds.name;
  const settings = resultsSettings();
  const pageSize = settings.pageSize;
  const maxRows = rowLimit === undefined ? settings.maxRows : Math.min(settings.maxRows, rowLimit);
  // The first page is small so that rows show at once; then pages of `pageSize` (page 1 of those
  // repeats the first rows, which pagesOf skips). The next page is asked for as soon as a page came,
  // before it is posted: the service answers it while this one goes to the webview.
  const fetch = (pageNumber: number, batchSize: number) => client.searchData({ queryString: query, dataSourceGuid: ds.id, batchSize, pageNumber }, { signal });
  const plan = { pageSize, firstPageSize: Math.min(FIRST_PAGE_ROWS, rowLimit ?? FIRST_PAGE_ROWS), maxRows, askAhead: true };
  let first = true;
  for await (const { answer: r, rows, loaded, done, limited } of pagesOf(fetch, plan)) {
    if (signal.aborted) throw new Error('cancelled');
    const before = tab.loaded;
    tab.loaded = loaded;
    const elapsedMs = Date.now() - started;
    if (done) run.end(tabId);
    if (first) {
      summary.firstPageMs = elapsedMs;
      tab.columnNames = r.columnNames;
      tab.columns = describeColumns(r.columnNames, rows, ds.columns);
      tab.totalRowCount = r.totalRowCount;
      tab.samplingRatio = r.samplingRatio;
      tab.pages.push(packPage(rows));
      summary.columnNames = r.columnNames;
      summary.totalRowCount = r.totalRowCount;
      summary.samplingRatio = r.samplingRatio;
      panel.post({ type: 'columns', tabId, columns: tab.columns, totalRowCount: r.totalRowCount, samplingRatio: r.samplingRatio, rows, elapsedMs, done, limited, expectedRows: Math.min(r.totalRowCount, maxRows) });
    } else {
      postRows(panel, tab.pages, tabId, rows, before, { elapsedMs, done, limited });
    }
    first = false;
    summary.rows = tab.loaded;
    summary.elapsedMs = elapsedMs;
  }
}

/** A GUID (8-4-4-4-12 hex digits). */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Resolves a data source name or GUID to its GUID and catalog columns (`catalog`: the client's catalog of
 * the active connection). The catalog's answers are shared by every caller, so the run stops waiting for
 * them when `signal` aborts (they end by their deadline). A GUID the catalog does not know is used as it is.
 * @throws Error naming the data source when it is neither known nor a GUID.
 */
export async function resolveDataSource(catalogOf: CatalogAccess, nameOrId: string, signal: AbortSignal): Promise<{ id: string; name: string; columns?: Column[] }> {
  const catalog = await abortable(catalogOf(), signal);
  const ds = catalog ? await abortable(catalog.resolve(nameOrId), signal) : undefined;
  if (!ds) {
    if (GUID.test(nameOrId.trim())) return { id: nameOrId.trim(), name: nameOrId.trim() };
    throw new Error(`Unknown data source '${nameOrId}': no worksheet, view or table of the service has this name. Check @datasource, or run TSQ: Refresh Catalog.`);
  }
  const cols = await abortable(catalog!.columns(ds.id).catch(() => null), signal);
  return { id: ds.id, name: ds.name, columns: cols?.columns };
}
