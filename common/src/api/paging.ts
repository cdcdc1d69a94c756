/**
 * Paging of an answer, written once: `pagesOf` asks page after page by `pagenumber` and `batchsize`
 * (docs/service-notes.md §1.4: page 1 first; REST API v2 sends `record_offset` (n − 1) × size), until a
 * page is short or empty, every row came, or a row limit is reached. `pagesOfEach` pages several answers asked
 * for together (a liveboard's visualizations). Every paging of TSQ goes through them: both API classes'
 * `searchAllPages`, `searchCalendars`, the extension's results (client/src/results/run.ts) and `tsq tml
 * export`'s users and groups (test/unit/paging-once.test.ts fails on a paging loop written elsewhere).
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

/** One answer's page in a request that pages several answers at once (`pagesOfEach`): `key` names the answer. */
export interface KeyedPage<K, R extends PagedAnswer> extends Page<R> {
  key: K;
}

/**
 * The pages of several answers asked for together (a liveboard's visualizations: one pinboarddata request
 * pages every visualization), request after request: each yield is the pages of one request, in the
 * order `fetch` gave them. Every answer is paged as `pagesOf` pages one; an answer is asked for until it is
 * done, and the paging ends when every answer of a request is done (or a request names none).
 * @param fetch asks for page `pageNumber` (1-based) of `batchSize` rows of the answers `keys` (undefined on
 * the first request: the caller's own choice), as [key, answer] pairs; its rejection is the generator's
 * @param plan page sizes, row limit (per answer) and whether to ask ahead
 */
export async function* pagesOfEach<K, R extends PagedAnswer>(fetch: (pageNumber: number, batchSize: number, keys: readonly K[] | undefined) => Promise<Iterable<readonly [K, R]>>, plan: PagePlan): AsyncGenerator<KeyedPage<K, R>[]> {
  const pageSize = Math.max(1, plan.pageSize);
  const maxRows = plan.maxRows ?? Infinity;
  const ask = (pageNumber: number, batchSize: number, keys: readonly K[] | undefined) => {
    const answers = fetch(pageNumber, batchSize, keys);
    if (plan.askAhead) answers.catch(() => undefined); // a page asked for ahead may fail unawaited (the consumer stopped)
    return answers;
  };
  const loadedOf = new Map<K, number>();
  let batchSize = Math.max(1, Math.min(pageSize, plan.firstPageSize ?? pageSize));
  let pageNumber = 1;
  let keys: readonly K[] | undefined;
  let pending = plan.askAhead ? ask(pageNumber, batchSize, keys) : undefined;
  for (;;) {
    const answers = await (pending ?? ask(pageNumber, batchSize, keys));
    const pageStart = (pageNumber - 1) * batchSize;
    const pages: KeyedPage<K, R>[] = [];
    for (const [key, answer] of answers) {
      const before = loadedOf.get(key) ?? 0;
      let rows: R['data'][number][] = answer.data.slice(Math.max(0, before - pageStart));
      if (rows.length > maxRows - before) rows = rows.slice(0, maxRows - before);
      const loaded = before + rows.length;
      loadedOf.set(key, loaded);
      const limited = loaded >= maxRows && loaded < answer.totalRowCount;
      const done = limited || answer.data.length === 0 || answer.data.length < batchSize || loaded >= answer.totalRowCount;
      pages.push({ key, answer, rows, loaded, done, limited });
    }
    const open = pages.filter((p) => !p.done);
    if (open.length) {
      pageNumber = Math.floor(Math.min(...open.map((p) => p.loaded)) / pageSize) + 1;
      batchSize = pageSize;
      keys = open.map((p) => p.key);
    }
    pending = open.length && plan.askAhead ? ask(pageNumber, batchSize, keys) : undefined;
    yield pages;
    if (!open.length) return;
  }
}

/**
 * The pages of one answer, in order (see the file comment): `pagesOfEach` with a single answer.
 * @param fetch asks for page `pageNumber` (1-based) of `batchSize` rows; its rejection is the generator's
 * @param plan page sizes, row limit and whether to ask ahead
 */
export async function* pagesOf<R extends PagedAnswer>(fetch: (pageNumber: number, batchSize: number) => Promise<R>, plan: PagePlan): AsyncGenerator<Page<R>> {
  const single = async (pageNumber: number, batchSize: number) => [[0, await fetch(pageNumber, batchSize)] as const];
  for await (const [page] of pagesOfEach(single, plan)) if (page) yield page;
}
