/**
 * Run Query and the results panel: Run Query (the query under the cursor, or the selection), Run All,
 * Cancel, Pin, Export, Show Data, Preview Data (every run is in the History) — the `▶ Run` lens is the server's; the
 * service's error text as a diagnostic on the query, a query with a local error held back (heldBack.ts).
 * Queries come from the language server's `tsq/queries`; pages as run.ts fetches them; Cancel aborts every
 * request of the run (one `AbortSignal`).
 * `ResultsController` owns the panels, the runs, the last run and the search-error diagnostics;
 * `registerResults` makes one and registers its commands. A document's panel is reused unless pinned. Where results show is `tsq.results.location`: the TSQ Results view in
 * the bottom panel (view.ts: a tab per document and a Messages tab; the default) or a panel beside the
 * editor (panel.ts). The status bar shows the run in progress (a click cancels it), then the rows and
 * time of the last run (status.ts).
 */
import * as vscode from 'vscode';
import { ServiceError, type AnalyticsServiceClient } from '../../../common/src/api';
import { abortable, isAbort } from '../abortable';
import type { TsqClient } from '../context';
import { errorMessage } from '../service';
import { QueriesRequest, type DocumentQuery } from '../../../common/src/protocol';
import type { ObjectNode } from '../tree/nodes';
import { copyAsText } from '../../../common/src/results/export';
import type { WebviewMessage, WebviewProbe } from '../../../common/src/results/messages';
import { ResultsPanel, RESULTS_VIEW_TYPE, type ResultsTarget, type TabData } from './panel';
import { ResultsView } from './view';
import { RunStatusItem } from './status';
import type { RunLogEntry } from '../../../common/src/results/messages';
import { resultsLocation } from '../settings';
import { activeTsqEditor, queryToRun } from './pick';
import { PREVIEW_ROWS, previewData, previewText, type PreviewTarget, type ShownQuery } from './preview';
import { csvOptions, exportTab } from './export';
import { answerRunEntry, type HistoryAnswer } from '../../../common/src/results/history';
import { answerQueryText } from '../answers';
import { addServiceProblem, heldBack } from './heldBack';
import { ActiveRun, fetchPinboardPages, fetchSearchPages, resolveDataSource, type RunQueryArgs, type RunSummary } from './run';
import { commandRegistrar } from '../commands';

export { FIRST_PAGE_ROWS, type RunQueryArgs, type RunSummary } from './run';

/** The results panels of the extension and their state; one per extension host (see `registerResults`). */
class ResultsController {
  private readonly log: vscode.LogOutputChannel;
  private readonly context: vscode.ExtensionContext;
  private readonly extensionUri: vscode.Uri;
  /** Unpinned panels by key (a document URI, or `pinboard:<id>`). */
  private readonly panels = new Map<string, ResultsTarget>();
  private readonly allPanels = new Set<ResultsTarget>();
  /** The TSQ Results view of the bottom panel (`tsq.results.location: panel`). */
  private readonly view: ResultsView;
  private readonly status: RunStatusItem;
  private readonly runs = new Set<ActiveRun>();
  private readonly diagnostics: vscode.DiagnosticCollection;
  private lastRun: RunSummary | undefined;
  private lastPanel: ResultsTarget | undefined;
  /** tabId → when its run started (Date.now()) and its summary, for the painted report. */
  private readonly paintWatch = new Map<string, { started: number; summary?: RunSummary; painted?: number }>();
  private tabSeq = 0;

  /** @param deps the client: its extension context, log, connections, language client and catalog. */
  constructor(private readonly deps: TsqClient) {
    const context = (this.context = deps.extension);
    this.log = deps.log;
    this.extensionUri = context.extensionUri;
    this.diagnostics = vscode.languages.createDiagnosticCollection('tsq.run');
    this.view = new ResultsView(this.extensionUri);
    this.status = new RunStatusItem('tsq.results.show');
    context.subscriptions.push(this.diagnostics, this.view, this.status);
  }

  /**
   * A new run into `panel`. The run still filling that panel is cancelled first: its tabs are replaced
   * by the new run's, so its requests would only load the service (a second Show Data on a pinboard
   * whose visualizations are still computing doubled the work at every click).
   */
  private startRun(panel: ResultsTarget, started: number): ActiveRun {
    for (const r of this.runs) if (r.panel === panel) r.cancel();
    const run = new ActiveRun(panel, started);
    this.runs.add(run);
    return run;
  }

  /** Cancels every run in progress (TSQ: Cancel Query). */
  cancelAll(): void {
    for (const r of this.runs) r.cancel();
  }

  private wirePanel<T extends ResultsTarget>(p: T): T {
    this.allPanels.add(p);
    p.onDidDispose(() => {
      this.allPanels.delete(p);
      if (this.panels.get(p.key) === p) this.panels.delete(p.key);
      if (this.lastPanel === p) this.lastPanel = undefined;
    });
    p.onDidBecomeActive(() => {
      this.lastPanel = p;
    });
    p.onMessage((m) => void this.onMessage(p, m));
    return p;
  }

  /**
   * The results of `key` where `tsq.results.location` says: its unpinned panel or view group when there
   * is one of that location, else a new one. `title` is the editor tab's (`Results: flights.tsq`),
   * `name` the view tab's (`flights.tsq`).
   */
  private panelFor(key: string, title: string, name: string): ResultsTarget {
    const location = resultsLocation();
    let p = this.panels.get(key);
    if (!p || p.isDisposed || p.pinned || (p instanceof ResultsPanel) !== (location === 'beside')) {
      p = this.wirePanel(location === 'beside' ? ResultsPanel.create(key, title, this.extensionUri) : this.view.createGroup(key, name));
      this.panels.set(key, p);
    } else p.setTitle(location === 'beside' ? title : name);
    p.show();
    this.lastPanel = p;
    return p;
  }

  /** A line of the Messages tab for a run that ended. */
  private logRun(source: string, query: string, started: number, s: RunSummary): void {
    const entry: RunLogEntry = { at: started, source, query, outcome: s.cancelled ? 'cancelled' : s.error !== undefined ? 'error' : 'ok', rows: s.rows, totalRowCount: s.totalRowCount, elapsedMs: s.elapsedMs };
    if (s.error !== undefined) entry.message = s.error;
    this.view.logRun(entry);
  }

  private async onMessage(p: ResultsTarget, m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'cancel':
        for (const r of this.runs) if (r.tabIds.has(m.tabId)) r.cancel();
        return;
      case 'pin':
        this.togglePin(p);
        return;
      case 'activeTab':
        p.activeTab = m.tabId;
        return;
      case 'export':
        await exportTab(this.log, p, m.tabId, m.format);
        return;
      case 'copy': {
        const text = copyAsText(m.format, m.columns, m.rows, csvOptions());
        await vscode.env.clipboard.writeText(text);
        vscode.window.setStatusBarMessage(`TSQ: copied ${m.rows.length === 1 && m.columns.length === 1 ? 'a cell' : `${m.rows.length} row(s)`} as ${m.format.toUpperCase()}`, 3000);
        return;
      }
      case 'painted': {
        const w = this.paintWatch.get(m.tabId);
        if (w && w.painted === undefined) {
          w.painted = Date.now();
          if (w.summary) w.summary.firstPaintMs = w.painted - w.started;
        }
        return;
      }
      default:
        return;
    }
  }

  private togglePin(p: ResultsTarget | undefined): void {
    if (!p) return;
    p.setPinned(!p.pinned);
    if (p.pinned && this.panels.get(p.key) === p) this.panels.delete(p.key);
  }

  /** The queries of a document from the language server. */
  private async documentQueries(doc: vscode.TextDocument): Promise<DocumentQuery[]> {
    await this.deps.languageClient.whenReady();
    const lc = this.deps.languageClient.languageClient;
    if (!lc) throw new Error('The TSQ language server is not running.');
    return lc.sendRequest(QueriesRequest, { uri: lc.code2ProtocolConverter.asUri(doc.uri) });
  }

  /**
   * Runs one query into tab `tabId` of `panel`, page by page. Never throws: failures become the tab's
   * error (and a diagnostic on `range` of `uri`).
   */
  private async runOne(panel: ResultsTarget, run: ActiveRun, tabId: string, q: ShownQuery, started: number, uri?: vscode.Uri): Promise<RunSummary> {
    const signal = run.signal;
    const tab: TabData = { tabId, title: q.text.split('\n')[0].slice(0, 80), pages: [], totalRowCount: 0, samplingRatio: 1, loaded: 0, done: false };
    panel.tabs.set(tabId, tab);
    const summary: RunSummary = { tabId, rows: 0, totalRowCount: 0, samplingRatio: 1, columnNames: [], elapsedMs: 0 };
    const watch = { started, summary } as { started: number; summary?: RunSummary; painted?: number };
    this.paintWatch.set(tabId, watch);
    this.lastRun = summary;
    try {
      if (q.answerId) Object.assign(q, await abortable(answerQueryText(await abortable(this.deps.connections.getClient(), signal), q.answerId), signal));
      if (!q.dataSource) throw new Error('This query has no data source: add a line @datasource \'name\' above it, or set tsq.defaultDataSource.');
      const client: AnalyticsServiceClient = await abortable(this.deps.connections.getClient(), signal);
      const ds = await resolveDataSource(this.deps.catalog, q.dataSource, signal);
      if (q.preview) q.text = previewText(ds, (line) => this.log.info(line));
      await fetchSearchPages(client, q.text, ds, panel, run, tab, summary, started, q.preview ? PREVIEW_ROWS : undefined);
      tab.done = true;
    } catch (e) {
      summary.elapsedMs = Date.now() - started;
      if (signal.aborted || isAbort(e)) {
        summary.cancelled = true;
        if (run.end(tabId)) panel.post({ type: 'cancelled', tabId, elapsedMs: summary.elapsedMs });
        this.log.info(`Query cancelled after ${summary.elapsedMs} ms: ${q.text}`);
      } else {
        const service = e instanceof ServiceError && e.serviceMessage ? e.serviceMessage : undefined;
        const message = service ? `The service refused the query: ${service}` : errorMessage(e);
        summary.error = message;
        tab.error = message;
        if (run.end(tabId)) panel.post({ type: 'error', tabId, message, elapsedMs: summary.elapsedMs });
        this.log.warn(`Query failed: ${errorMessage(e)}`);
        if (uri) addServiceProblem(this.diagnostics, uri, q, service ?? errorMessage(e));
      }
    }
    return summary;
  }

  /** Runs queries of a document in turn into its panel, with a cancellable progress notification. */
  private async runQueries(doc: vscode.TextDocument, queries: DocumentQuery[], started: number): Promise<RunSummary[]> {
    const name = doc.uri.path.split('/').pop() || 'query';
    const panel = this.panelFor(doc.uri.toString(), `Results: ${name}`, name);
    this.diagnostics.delete(doc.uri);
    const run = this.startRun(panel, started);
    const out: RunSummary[] = [];
    const status = this.status.start(queries[0]?.text ?? name);
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'TSQ', cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => run.cancel());
        let i = 0;
        for (const q of queries) {
          if (run.signal.aborted) break;
          const tabId = `t${++this.tabSeq}`;
          run.tabIds.add(tabId);
          progress.report({ message: `Running ${queries.length > 1 ? `query ${i + 1} of ${queries.length}: ` : ''}${q.text.slice(0, 60)}` });
          panel.post({ type: 'start', tabId, title: q.text.split('\n')[0].slice(0, 80), query: q.text, dataSource: q.dataSource ?? undefined, replace: i === 0, startedAt: i === 0 ? started : Date.now() });
          if (i === 0) panel.tabs.clear();
          const startedAt = i === 0 ? started : Date.now();
          const summary = await this.runOne(panel, run, tabId, q, startedAt, doc.uri);
          out.push(summary);
          this.logRun(name, q.text, startedAt, summary);
          this.deps.history?.record({ query: q.text, dataSource: q.dataSource, connection: this.deps.connections.getState().name, startedAt, rows: summary.rows, durationMs: summary.elapsedMs, outcome: summary.cancelled ? 'cancelled' : summary.error ? 'error' : 'ok', ...(summary.error ? { error: summary.error } : {}), ...(doc.uri.scheme === 'file' ? { source: doc.uri.toString() } : {}) });
          i++;
        }
      });
    } finally {
      this.runs.delete(run);
      this.status.end(status, out);
    }
    return out;
  }



  /** TSQ: Run Query: the query under the cursor, the selection, or `args.index`. */
  async runQuery(args?: RunQueryArgs): Promise<RunSummary | undefined> {
    const started = Date.now();
    const target = activeTsqEditor(typeof args?.uri === 'string' ? args.uri : undefined);
    if (!target) {
      void vscode.window.showWarningMessage('TSQ: open a .tsq file and put the cursor in a query to run it.');
      return undefined;
    }
    const { doc, editor } = target;
    let queries: DocumentQuery[];
    try {
      queries = await this.documentQueries(doc);
    } catch (e) {
      void vscode.window.showErrorMessage(`TSQ: could not read the queries of ${doc.uri.path}: ${errorMessage(e)}`);
      return undefined;
    }
    const query = queryToRun(doc, editor, queries, args);
    if (!query) return undefined;
    if (!args?.anyway && heldBack(this.log, doc, [query], () => this.runQueries(doc, [query], Date.now()))) return undefined;
    const [summary] = await this.runQueries(doc, [query], started);
    return summary;
  }

  /** TSQ: Run All Queries of a document. */
  async runAll(args?: RunQueryArgs): Promise<RunSummary[] | undefined> {
    const started = Date.now();
    const target = activeTsqEditor(typeof args?.uri === 'string' ? args.uri : undefined);
    if (!target) {
      void vscode.window.showWarningMessage('TSQ: open a .tsq file to run its queries.');
      return undefined;
    }
    const queries = await this.documentQueries(target.doc);
    if (!queries.length) {
      void vscode.window.showWarningMessage('TSQ: this file has no query.');
      return [];
    }
    if (!args?.anyway && heldBack(this.log, target.doc, queries, () => this.runQueries(target.doc, queries, Date.now()))) return undefined;
    return this.runQueries(target.doc, queries, started);
  }

  /** Show Data on a saved answer: its TML's search_query on its data source (`runOne` reads it), recorded in the History. */
  private async showAnswerData(id: string, name: string, started: number): Promise<RunSummary[]> {
    const q: ShownQuery = { text: name, dataSource: null, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, answerId: id };
    const s = await this.showOne(`answer:${id}`, `Data: ${name}`, q, started);
    this.deps.history?.record(answerRunEntry({ kind: 'answer', id, name }, { searchQuery: q.dataSource ? q.text : undefined, dataSource: q.dataSource ?? undefined, connection: this.deps.connections.getState().name, startedAt: started, rows: s.rows, durationMs: s.elapsedMs, outcome: s.cancelled ? 'cancelled' : s.error ? 'error' : 'ok', error: s.error }));
    return [s];
  }

  /** Runs one query not of a document (`q.text` titles its tab until it is read) into the panel `key`, with a cancellable progress notification. */
  async showOne(key: string, title: string, q: ShownQuery, started: number): Promise<RunSummary> {
    const name = q.text;
    const panel = this.panelFor(key, title, name);
    const run = this.startRun(panel, started);
    const status = this.status.start(name);
    const tabId = `t${++this.tabSeq}`;
    run.tabIds.add(tabId);
    let s: RunSummary = { tabId, rows: 0, totalRowCount: 0, samplingRatio: 1, columnNames: [], elapsedMs: 0, cancelled: true };
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `TSQ: ${q.text}`, cancellable: true }, async (_progress, token) => {
        token.onCancellationRequested(() => run.cancel());
        panel.tabs.clear();
        panel.post({ type: 'start', tabId, title: q.text, replace: true, startedAt: started });
        s = await this.runOne(panel, run, tabId, q, started);
      });
    } finally {
      this.runs.delete(run);
      this.status.end(status, [s]);
      this.logRun(name, q.text, started, s);
    }
    return s;
  }

  /** Show Data on a saved answer, a pinboard (all its visualizations) or one visualization; recorded in the History. */
  async showData(node?: ObjectNode): Promise<RunSummary[] | undefined> {
    const started = Date.now();
    let id: string;
    let vizIds: string[] | undefined;
    let title: string;
    if (node?.kind === 'object' && node.type === 'QUESTION_ANSWER_BOOK') return this.showAnswerData(node.header.id, node.header.name, started);
    if (node?.kind === 'object' && node.type === 'PINBOARD_ANSWER_BOOK') {
      id = node.header.id;
      title = node.header.name;
    } else if (node?.kind === 'viz' && node.parentType === 'PINBOARD_ANSWER_BOOK') {
      id = node.parentId;
      vizIds = [node.header.id];
      title = node.header.name;
    } else {
      this.log.warn(`Show Data: not an answer, a Liveboard or a visualization of one: ${JSON.stringify(node)?.slice(0, 300)}`);
      void vscode.window.showWarningMessage('TSQ: Show Data works on an answer, a Liveboard or one of its visualizations in the Objects view.');
      return undefined;
    }
    this.log.info(`Show Data: ${title}`);
    const panel = this.panelFor(`pinboard:${id}`, `Data: ${title}`, title);
    const run = this.startRun(panel, started);
    const summaries = new Map<string, RunSummary>();
    const status = this.status.start(title);
    let failure: { outcome: 'error' | 'cancelled'; error?: string } | undefined;
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `TSQ: ${title}`, cancellable: true }, async (_progress, token) => {
        token.onCancellationRequested(() => run.cancel());
        const client = await abortable(this.deps.connections.getClient(), run.signal);
        panel.tabs.clear();
        await fetchPinboardPages(panel, run, client, id, vizIds, started, summaries, (tabId) => this.paintWatch.set(tabId, { started }));
      });
    } catch (e) {
      const cancelled = run.signal.aborted;
      const message = cancelled ? 'cancelled' : e instanceof ServiceError && e.serviceMessage ? `The service refused: ${e.serviceMessage}` : errorMessage(e);
      failure = cancelled ? { outcome: 'cancelled' } : { outcome: 'error', error: message };
      const tabId = `viz-${id}-error`;
      if (!panel.tabs.size) panel.post({ type: 'start', tabId, title, replace: true });
      for (const t of panel.tabs.size ? panel.tabs.keys() : [tabId]) {
        if (panel.tabs.get(t)?.done || !run.end(t)) continue;
        panel.post(cancelled ? { type: 'cancelled', tabId: t, elapsedMs: Date.now() - started } : { type: 'error', tabId: t, message, elapsedMs: Date.now() - started });
      }
      if (!cancelled) this.log.warn(`Show Data of ${title} failed: ${errorMessage(e)}`);
    } finally {
      this.runs.delete(run);
      const elapsedMs = Date.now() - started;
      const outcomes = summaries.size ? [...summaries.values()].map((s) => ({ ...s, ...(failure?.outcome === 'cancelled' ? { cancelled: true } : failure ? { error: failure.error } : {}) })) : [{ tabId: '', rows: 0, totalRowCount: 0, samplingRatio: 1, columnNames: [], elapsedMs, ...(failure?.outcome === 'error' ? { error: failure.error } : { cancelled: true }) }];
      this.status.end(status, outcomes);
      for (const [tabId, s] of summaries) this.logRun(title, panel.tabs.get(tabId)?.title ?? title, started, { ...s, ...(failure?.outcome === 'cancelled' && !panel.tabs.get(tabId)?.done ? { cancelled: true } : {}) });
      if (!summaries.size) this.logRun(title, title, started, outcomes[0]!);
    }
    const shown: HistoryAnswer = vizIds ? { kind: 'visualization', id: vizIds[0]!, name: title, pinboardId: id } : { kind: 'pinboard', id, name: title };
    this.deps.history?.record(answerRunEntry(shown, { connection: this.deps.connections.getState().name, startedAt: started, rows: [...summaries.values()].reduce((n, x) => n + x.rows, 0), durationMs: Date.now() - started, outcome: failure?.outcome ?? 'ok', error: failure?.error }));
    return [...summaries.values()];
  }

  /** Registers the commands, the ▶ Run lenses, the diagnostics' lifetime and the panel serializer. */
  register(): void {
    const context = this.context;
    const register = commandRegistrar(context.subscriptions);
    const runArgs = (args?: RunQueryArgs) => (args && typeof args === 'object' && !(args instanceof vscode.Uri) ? args : undefined);
    register('tsq.runQuery', (args?: RunQueryArgs) => this.runQuery(runArgs(args)));
    register('tsq.runAllQueries', (args?: RunQueryArgs) => this.runAll(runArgs(args)));
    register('tsq.cancelQuery', () => this.cancelAll());
    register('tsq.results.pin', () => this.togglePin(this.lastPanel ?? [...this.allPanels].pop()));
    register('tsq.results.export', async (args?: { format?: 'csv' | 'json'; path?: string }) => {
      const p = this.lastPanel ?? [...this.allPanels].pop();
      if (!p) {
        void vscode.window.showWarningMessage('TSQ: there are no results to export.');
        return undefined;
      }
      // from the palette (no arguments): ask for the format, as the panel's two buttons offer both
      const format = args?.format ?? (args?.path ? (/\.json$/i.test(args.path) ? 'json' : 'csv') : (await vscode.window.showQuickPick(['csv', 'json'], { title: 'TSQ: Export Results as…' })));
      if (format !== 'csv' && format !== 'json') return undefined;
      return exportTab(this.log, p, undefined, format, typeof args?.path === 'string' ? args.path : undefined);
    });
    register('tsq.showData', (node?: ObjectNode) => this.showData(node));
    register('tsq.previewData', (target?: PreviewTarget) => previewData(this.deps, (key, title, q, started) => this.showOne(key, title, q, started), target));
    register('tsq.results.show', () => {
      const p = this.lastPanel ?? [...this.allPanels].pop();
      if (p && !p.isDisposed) p.show();
      else if (resultsLocation() === 'panel') this.view.show();
    });
    // automation (tests, benchmarks): what the last panel's webview shows, and the last run's timings
    register('tsq.results.probe', async (): Promise<WebviewProbe | undefined> => (this.lastPanel ? this.lastPanel.probe() : undefined));
    register('tsq.results.lastRun', async (waitForPaintMs = 0): Promise<RunSummary | undefined> => {
      const deadline = Date.now() + (typeof waitForPaintMs === 'number' ? waitForPaintMs : 0);
      while (this.lastRun && this.lastRun.firstPaintMs === undefined && !this.lastRun.error && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return this.lastRun ? { ...this.lastRun } : undefined;
    });

    // ▶ Run above each query is the language server's lens (server/src/features/codeLens.ts), mapped onto tsq.runQuery by languageClient.ts
    context.subscriptions.push(
      // a search error's diagnostic belongs to the text it was about
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.diagnostics.has(e.document.uri)) this.diagnostics.delete(e.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.diagnostics.delete(doc.uri)),
    );

    // a restored panel (after a reload) shows what its webview kept in its state
    context.subscriptions.push(
      this.view.register(),
      vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel: vscode.WebviewPanel) => {
          this.wirePanel(new ResultsPanel(panel, `restored:${++this.tabSeq}`, this.extensionUri));
        },
      }),
    );
  }
}

/** Registers Run Query, the results panels and their commands (one `ResultsController`). */
export function registerResults(client: TsqClient): void {
  new ResultsController(client).register();
}
