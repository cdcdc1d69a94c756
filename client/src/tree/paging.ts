/**
 * The loading state of one lazily loaded, paged list of the Objects view: what to show now (items,
 * "Loading…", an empty note, an error with Retry, "Load more…") and how to fetch the next page with
 * the documented paging (`offset`, `batchsize` of `listobjectheaders`, docs/service-interface.md §4.2). Pure (no `vscode`).
 *
 * Errors are never cached: after a failure the list shows the error once; `retry()` (or the next
 * `children()` after `reset()`) asks the service again.
 */
import { abortable } from '../abortable';

/** Fetches one page: `offset` is the 0-based index of the first item, `batchSize` the page size (-1 for all). */
export type PageFetcher<T> = (offset: number, batchSize: number) => Promise<T[]>;

/** What the tree shows for a list, in order. */
export type ListEntry<T> =
  | { kind: 'item'; item: T }
  | { kind: 'loading' }
  | { kind: 'empty' }
  | { kind: 'error'; message: string }
  | { kind: 'loadMore' };

export class PagedList<T> {
  private items: T[] = [];
  private done = false;
  private loading: Promise<void> | undefined;
  private error: string | undefined;
  private started = false;
  private generation = 0;
  /** Cancels the page in flight. */
  private abort: AbortController | undefined;

  /**
   * @param fetch fetches a page.
   * @param batchSize page size (≥ 1), or -1 to fetch everything at once (no "Load more…").
   * @param onChange called when the entries changed after an asynchronous load.
   */
  constructor(
    private readonly fetch: PageFetcher<T>,
    private readonly batchSize: number,
    private readonly onChange: () => void,
  ) {}

  /** The entries to show now; the first call starts loading the first page. */
  children(): ListEntry<T>[] {
    if (!this.started) {
      this.started = true;
      void this.loadNext();
    }
    const out: ListEntry<T>[] = this.items.map((item) => ({ kind: 'item', item }));
    if (this.loading) out.push({ kind: 'loading' });
    else if (this.error !== undefined) out.push({ kind: 'error', message: this.error });
    else if (!this.done) out.push({ kind: 'loadMore' });
    else if (this.items.length === 0) out.push({ kind: 'empty' });
    return out;
  }

  /** The fetch in flight, if any (resolves when it ended, never rejects). */
  get pending(): Promise<void> | undefined {
    return this.loading;
  }

  /** True while a page is being fetched. */
  get isLoading(): boolean {
    return this.loading !== undefined;
  }

  /** Items loaded so far. */
  get loaded(): readonly T[] {
    return this.items;
  }

  /** Fetches the next page ("Load more…"); resolves when it arrived (or failed — the error shows as an entry). */
  loadMore(): Promise<void> {
    this.started = true;
    return this.loadNext();
  }

  /**
   * Cancels the page being fetched (the Objects view's "Loading…" clicked): the list stops waiting at
   * once and shows "Loading cancelled" with Retry; the request ends by its own deadline. False when
   * nothing was loading.
   */
  cancel(): boolean {
    if (!this.loading || !this.abort) return false;
    this.abort.abort();
    return true;
  }

  /** Forgets the error and fetches the page that failed again. */
  retry(): Promise<void> {
    this.error = undefined;
    this.started = true;
    return this.loadNext();
  }

  /** Forgets everything; the next `children()` loads the first page again. */
  reset(): void {
    this.generation++;
    this.items = [];
    this.done = false;
    this.loading = undefined;
    this.error = undefined;
    this.started = false;
  }

  private loadNext(): Promise<void> {
    if (this.loading) return this.loading;
    if (this.done) return Promise.resolve();
    const generation = this.generation;
    this.error = undefined;
    const abort = new AbortController();
    this.abort = abort;
    const run = (async () => {
      try {
        const page = await abortable(this.fetch(this.items.length, this.batchSize), abort.signal);
        if (generation !== this.generation) return;
        this.items.push(...page);
        this.done = this.batchSize < 0 || page.length < this.batchSize;
      } catch (e) {
        if (generation !== this.generation) return;
        this.error = abort.signal.aborted ? 'Loading cancelled' : e instanceof Error ? e.message : String(e);
      } finally {
        if (generation === this.generation) {
          this.loading = undefined;
          this.onChange();
        }
      }
    })();
    this.loading = run;
    return run;
  }
}
