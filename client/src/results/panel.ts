/**
 * A results panel: a webview panel (`tsq.results`) beside the editor showing one or more tabs of
 * answers (grid and chart, client/webview/main.ts). The host keeps each tab's pages as fetched, so
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
export function resultsHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
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
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

export class ResultsPanel implements vscode.Disposable {
  readonly tabs = new Map<string, TabData>();
  pinned = false;
  /** The tab the webview shows (its last `activeTab` message); Export Results exports it. */
  activeTab?: string;
  private ready = false;
  private readonly queue: HostMessage[] = [];
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private readonly messageEmitter = new vscode.EventEmitter<WebviewMessage>();
  /** Every message of the webview. */
  readonly onMessage = this.messageEmitter.event;
  private probeSeq = 0;
  private readonly probes = new Map<number, (p: WebviewProbe) => void>();
  private disposed = false;

  /**
   * @param panel a new or restored webview panel; its HTML is (re)set here
   * @param key the document the panel belongs to (URI string) or a pinboard key
   */
  constructor(readonly panel: vscode.WebviewPanel, readonly key: string, extensionUri: vscode.Uri) {
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] };
    panel.webview.html = resultsHtml(panel.webview, extensionUri);
    panel.onDidDispose(() => {
      this.disposed = true;
      this.disposeEmitter.fire();
      this.disposeEmitter.dispose();
      this.messageEmitter.dispose();
    });
    panel.webview.onDidReceiveMessage((m: WebviewMessage) => {
      if (!m || typeof m !== 'object') return;
      if (m.type === 'ready') {
        this.ready = true;
        for (const q of this.queue.splice(0)) void panel.webview.postMessage(q);
        return;
      }
      if (m.type === 'probeResult') {
        this.probes.get(m.id)?.(m.state);
        this.probes.delete(m.id);
        return;
      }
      this.messageEmitter.fire(m);
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

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Posts a message, queued until the webview said `ready`. */
  post(message: HostMessage): void {
    if (this.disposed) return;
    if (this.ready) void this.panel.webview.postMessage(message);
    else this.queue.push(message);
  }

  /** Asks the webview what it shows (rows per tab, status, errors); rejects after `timeoutMs`. */
  probe(timeoutMs = 10_000): Promise<WebviewProbe> {
    const id = ++this.probeSeq;
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
    this.panel.title = this.panel.title.replace(/^📌 /, '');
    if (pinned) this.panel.title = `📌 ${this.panel.title}`;
    this.post({ type: 'pinned', pinned });
  }

  dispose(): void {
    if (!this.disposed) this.panel.dispose();
  }
}
