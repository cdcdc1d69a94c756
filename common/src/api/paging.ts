/**
 * Paging of an answer, written once: `pagesOf` asks page after page by `pagenumber` and `batchsize`
 * (docs/service-notes.md §1.4: page 1 first; REST API v2 sends `record_offset` (n − 1) × size), until a
 * page is short or empty, every row came, or a row limit is reached. Used by `PublicApi.searchAllPages`,
 * `PublicApiV2.searchAllPages` and the extension's results (client/src/results/run.ts, with a small first
 * page and the next page asked for ahead).
 */

/** What paging reads of an answer: its rows and the count of rows of the whole answer. */
export interface PagedAnswer {
  data: readonly unknown[];
  totalRowCount: number;
}

/** How to page. */
export interface PagePlan {
  /** Rows per page (`batchsize`), at least 1. */
  pageSize: number;
  /** Rows of the first page, when it is to be smaller (shown at once); the next pages repeat its rows, which are skipped. */
  firstPageSize?: number;
  /** The most rows to take; the page that reaches it is the last (`limited` when the answer has more). */
  maxRows?: number;
  /** Ask for the next page as soon as a page came, before it is handed on (the service answers it meanwhile). */
  askAhead?: boolean;
}

/** One page as `pagesOf` hands it on. */
export interface Page<R extends PagedAnswer> {
  /** The service's answer, as it came. */
  answer: R;
  /** The rows new in this page (repeated ones skipped, cut at `maxRows`). */
  rows: R['data'][number][];
  /** Rows handed on so far, this page's included. */
  loaded: number;
  /** True on the last page. */
  done: boolean;
  /** True when the last page stopped at `maxRows` with rows left in the answer. */
  limited: boolean;
}

/**
 * The pages of an answer, in order (see the file comment).
 * @param fetch asks for page `pageNumber` (1-based) of `batchSize` rows; its rejection is the generator's
 * @param plan page sizes, row limit and whether to ask ahead
 */
export async function* pagesOf<R extends PagedAnswer>(fetch: (pageNumber: number, batchSize: number) => Promise<R>, plan: PagePlan): AsyncGenerator<Page<R>> {
  const pageSize = Math.max(1, plan.pageSize);
  const maxRows = plan.maxRows ?? Infinity;
  const ask = (pageNumber: number, batchSize: number) => {
    const answer = fetch(pageNumber, batchSize);
    if (plan.askAhead) answer.catch(() => undefined); // a page asked for ahead may fail unawaited (the consumer stopped)
    return answer;
  };
  let batchSize = Math.max(1, Math.min(pageSize, plan.firstPageSize ?? pageSize));
  let pageNumber = 1;
  let loaded = 0;
  let pending = plan.askAhead ? ask(pageNumber, batchSize) : undefined;
  for (;;) {
    const answer = await (pending ?? ask(pageNumber, batchSize));
    const pageStart = (pageNumber - 1) * batchSize;
    let rows: R['data'][number][] = answer.data.slice(Math.max(0, loaded - pageStart));
    if (rows.length > maxRows - loaded) rows = rows.slice(0, maxRows - loaded);
    loaded += rows.length;
    const limited = loaded >= maxRows && loaded < answer.totalRowCount;
    const done = limited || answer.data.length === 0 || answer.data.length < batchSize || loaded >= answer.totalRowCount;
    pageNumber = Math.floor(loaded / pageSize) + 1;
    batchSize = pageSize;
    pending = !done && plan.askAhead ? ask(pageNumber, batchSize) : undefined;
    yield { answer, rows, loaded, done, limited };
    if (done) return;
  }
}
