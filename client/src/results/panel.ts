/**
 * Where results show (`tsq.results.location`): a results panel, a webview panel (`tsq.results`) beside
 * the editor, or a group of tabs of the one TSQ Results view in the bottom panel (`view.ts`). Either
 * is a `ResultsTarget` showing one or more tabs of answers (grid and chart, client/webview/main.ts). The host keeps each tab's pages as fetched, so
 * Export writes the whole answer from them, never from the grid's DOM.
 *
 * The webview has a strict Content-Security-Policy: scripts only from `dist/webview.js` with a nonce,
 * styles only from `dist/webview.css` (plus the CSSOM, which the grid uses for sizes), no inline script,
 * no eval. Values reach it as data (`postMessage`), never as HTML.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { HostMessage, WebviewMessage, WebviewProbe } from '../../../common/src/results/messages';
import type { ResultColumn } from '../../../common/src/results/shape';
import type { resultsLocation } from '../settings';

/**
 * `tsq.results.location`: `panel`, the TSQ Results view in the bottom panel (one tab per document and a
 * Messages tab), or `beside`, a results editor tab beside the query (package.json declares the setting).
 */
export type ResultsLocation = ReturnType<typeof resultsLocation>;

/** View type of the results webview panel (also its serializer's). */
export const RESULTS_VIEW_TYPE = 'tsq.results';

/** What the host keeps of one tab. */
export interface TabData {
  tabId: string;
  title: string;
  /** The name of the data source the answer came from (a query's; undefined for a pinboard's visualization). */
  dataSource?: string;
  columns?: ResultColumn[];
  columnNames?: string[];
  /**
   * The pages as fetched, each packed by column (`packPage`: the same bytes the webview gets): about 30
   * bytes a row of five cells, where arrays of cells took several times that.
   */
  pages: Uint8Array[];
  totalRowCount: number;
  samplingRatio: number;
  loaded: number;
  done: boolean;
  error?: string;
}

/** The HTML of the results webview: an empty shell; all content is built by `dist/webview.js` with DOM calls. */
export function resultsHtml(webview: vscode.Webview, extensionUri: vscode.Uri, location: ResultsLocation = 'beside'): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.css'));
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>TSQ Results</title>
</head>
<body data-location="${location}">
<div id="app"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/**
 * What shows the tabs of one document's (or one object's) runs: `post` messages to the webview,
 * `probe` what it shows; the host keeps each tab's data in `tabs`. A run of the same key replaces its
 * tabs unless `pinned`. Subclasses deliver the messages: `ResultsPanel` to its own webview panel,
 * `ResultsGroup` (view.ts) to its share of the TSQ Results view.
 */
/** Ids of probes, unique across targets (the groups of the view share one webview). */
let probeSeq = 0;

export abstract class ResultsTarget implements vscode.Disposable {
  readonly tabs = new Map<string, TabData>();
  pinned = false;
  /** The tab the webview shows (its last `activeTab` message); Export Results exports it. */
  activeTab?: string;
  protected ready = false;
  private readonly queue: HostMessage[] = [];
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private readonly messageEmitter = new vscode.EventEmitter<WebviewMessage>();
  /** Every message of the webview about this target's tabs. */
  readonly onMessage = this.messageEmitter.event;
  private readonly activeEmitter = new vscode.EventEmitter<void>();
  /** The person turned to this target (its editor tab became active, or one of its tabs in the view). */
  readonly onDidBecomeActive = this.activeEmitter.event;
  private readonly probes = new Map<number, (p: WebviewProbe) => void>();
  private disposed = false;

  /** @param key the document the target belongs to (URI string), or `pinboard:<id>` / `answer:<id>` */
  constructor(readonly key: string) {}

  /** Sends one message to the webview (called once it is ready). */
  protected abstract deliver(message: HostMessage): void;
  /** Sets the title the person sees (the editor tab's, or the document name of the view's tabs). */
  abstract setTitle(title: string): void;
  /** Brings the results on screen without taking the focus from the editor. */
  abstract show(): void;

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Posts a message, queued until the webview said `ready`. */
  post(message: HostMessage): void {
    if (this.disposed) return;
    if (this.ready) this.deliver(message);
    else this.queue.push(message);
  }

  /** The webview is ready: the queued messages go. */
  protected markReady(): void {
    this.ready = true;
    for (const q of this.queue.splice(0)) this.deliver(q);
  }

  /** A message of the webview about this target (`ready` and `probeResult` are handled here). */
  receive(m: WebviewMessage): void {
    if (m.type === 'ready') return this.markReady();
    if (m.type === 'probeResult') {
      this.probes.get(m.id)?.(m.state);
      this.probes.delete(m.id);
      return;
    }
    this.messageEmitter.fire(m);
  }

  protected fireActive(): void {
    this.activeEmitter.fire();
  }

  /** Asks the webview what it shows (rows per tab, status, errors); rejects after `timeoutMs`. */
  probe(timeoutMs = 10_000): Promise<WebviewProbe> {
    const id = ++probeSeq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.probes.delete(id);
        reject(new Error('the results webview did not answer'));
      }, timeoutMs);
      this.probes.set(id, (p) => {
        clearTimeout(timer);
        resolve(p);
      });
      this.post({ type: 'probe', id });
    });
  }

  setPinned(pinned: boolean): void {
    this.pinned = pinned;
    this.post({ type: 'pinned', pinned });
  }

  /** Marks the target gone (its panel closed, or the view disposed) and tells its listeners once. */
  protected markDisposed(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.disposeEmitter.fire();
    for (const e of [this.disposeEmitter, this.messageEmitter, this.activeEmitter]) e.dispose();
  }

  abstract dispose(): void;
}

/** Results in a webview panel of their own beside the editor (`tsq.results.location: beside`). */
export class ResultsPanel extends ResultsTarget {
  private title = '';

  /**
   * @param panel a new or restored webview panel; its HTML is (re)set here
   * @param key the document the panel belongs to (URI string) or a pinboard key
   */
  constructor(readonly panel: vscode.WebviewPanel, key: string, extensionUri: vscode.Uri) {
    super(key);
    this.title = panel.title;
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] };
    panel.webview.html = resultsHtml(panel.webview, extensionUri, 'beside');
    panel.onDidDispose(() => this.markDisposed());
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this.fireActive();
    });
    panel.webview.onDidReceiveMessage((m: WebviewMessage) => {
      if (m && typeof m === 'object') this.receive(m);
    });
  }

  /** Creates a panel beside the active editor. */
  static create(key: string, title: string, extensionUri: vscode.Uri): ResultsPanel {
    const panel = vscode.window.createWebviewPanel(RESULTS_VIEW_TYPE, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
    });
    return new ResultsPanel(panel, key, extensionUri);
  }

  protected deliver(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  setTitle(title: string): void {
    this.title = title;
    this.panel.title = this.pinned ? `📌 ${title}` : title;
  }

  show(): void {
    // revealing a panel on screen made its webview lay out (and its grid render) again for nothing
    if (!this.panel.visible) this.panel.reveal(this.panel.viewColumn ?? vscode.ViewColumn.Beside, true);
  }

  override setPinned(pinned: boolean): void {
    super.setPinned(pinned);
    this.setTitle(this.title);
  }

  dispose(): void {
    if (!this.isDisposed) this.panel.dispose();
  }
}
