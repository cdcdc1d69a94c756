/**
 * The TSQ Results view (`tsq.resultsView`, a webview view in the bottom panel's `tsq-results`
 * container; `tsq.results.location: panel`): one webview, the same as a results panel's
 * (client/webview/main.ts), holding a tab per document's run (a `ResultsGroup` each) and a Messages tab
 * with every run's rows, time and the service's message. A group's tab ids are prefixed with the
 * group's id on the way to the webview (`g3/t7`) and stripped on the way back, so that a pinned group
 * and the next run of the same pinboard can both hold a tab `viz-…` of one visualization.
 */
import * as vscode from 'vscode';
import type { HostMessage, RunLogEntry, WebviewMessage, WebviewProbe } from '../../../common/src/results/messages';
import { resultsHtml, ResultsTarget } from './panel';

/** Id of the TSQ Results webview view (package.json `contributes.views`). */
export const RESULTS_WEBVIEW_VIEW = 'tsq.resultsView';

/** The separator of a group's id and its own tab id in the webview. */
const SEP = '/';

/** The one TSQ Results view: resolves the webview, routes messages to and from its groups. */
export class ResultsView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly queue: HostMessage[] = [];
  private readonly groups = new Map<string, ResultsGroup>();
  private groupSeq = 0;
  /** Runs logged so far, replayed into a webview resolved again (the view was closed and reopened). */
  private readonly log: RunLogEntry[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** Registers the provider (its context kept while the panel shows another view). */
  register(): vscode.Disposable {
    return vscode.window.registerWebviewViewProvider(RESULTS_WEBVIEW_VIEW, this, { webviewOptions: { retainContextWhenHidden: true } });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist')] };
    view.webview.html = resultsHtml(view.webview, this.extensionUri, 'panel');
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: WebviewMessage) => this.receive(m)),
      view.onDidDispose(() => {
        if (this.view !== view) return;
        this.view = undefined;
        this.ready = false;
        // the tabs went with the webview: its groups are gone too
        for (const g of [...this.groups.values()]) g.gone();
        this.groups.clear();
      }),
    );
  }

  /** A new group of tabs for `key`, titled `title` (the document's file name, or the object's). */
  createGroup(key: string, title: string): ResultsGroup {
    const g = new ResultsGroup(this, `g${++this.groupSeq}`, key, title);
    this.groups.set(g.id, g);
    if (this.ready) g.viewReady();
    return g;
  }

  /** Forgets a group (disposed). */
  dropGroup(id: string): void {
    this.groups.delete(id);
  }

  /** Shows the view without taking the focus, resolving it first when it never showed. */
  show(): void {
    if (this.view) {
      if (!this.view.visible) this.view.show(true);
      return;
    }
    const editor = vscode.window.activeTextEditor;
    void Promise.resolve(vscode.commands.executeCommand(`${RESULTS_WEBVIEW_VIEW}.focus`)).then(async () => {
      // `.focus` takes the keyboard: give it back to the editor the run came from
      if (editor && !editor.document.isClosed) await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false, preview: false });
    }, () => undefined);
  }

  /** A run ended: a line of the Messages tab. */
  logRun(entry: RunLogEntry): void {
    this.log.push(entry);
    if (this.log.length > 1000) this.log.shift();
    this.send({ type: 'log', entry });
  }

  /** Sends a message to the webview, queued until it is ready. */
  send(message: HostMessage): void {
    if (this.ready && this.view) void this.view.webview.postMessage(message);
    else if (message.type !== 'log') this.queue.push(message); // the Messages are replayed from `log`
  }

  private receive(m: WebviewMessage): void {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'ready') {
      this.ready = true;
      // a webview resolved again starts empty but for the Messages
      const queued = this.queue.splice(0);
      for (const entry of this.log) void this.view?.webview.postMessage({ type: 'log', entry });
      for (const q of queued) void this.view?.webview.postMessage(q);
      for (const g of this.groups.values()) g.viewReady();
      return;
    }
    if (m.type === 'probeResult') {
      for (const g of this.groups.values()) g.receive(m);
      return;
    }
    const group = 'tabId' in m ? m.tabId.split(SEP, 1)[0] : m.type === 'pin' ? m.group : undefined;
    const g = group === undefined ? undefined : this.groups.get(group);
    if (!g) return;
    g.receive('tabId' in m ? { ...m, tabId: m.tabId.slice(group!.length + SEP.length) } as WebviewMessage : m);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** One document's (or object's) tabs in the TSQ Results view. */
export class ResultsGroup extends ResultsTarget {
  constructor(private readonly owner: ResultsView, readonly id: string, key: string, private title: string) {
    super(key);
  }

  /** The webview is ready (or ready again): queued messages go. */
  viewReady(): void {
    if (!this.ready) this.markReady();
  }

  /** The view's webview was disposed. */
  gone(): void {
    this.markDisposed();
  }

  protected deliver(message: HostMessage): void {
    const m = 'tabId' in message ? { ...message, tabId: `${this.id}${SEP}${message.tabId}` } : message;
    if (m.type === 'start') {
      m.group = this.id;
      m.groupTitle = this.title;
    }
    if (m.type === 'pinned' || m.type === 'probe') m.group = this.id;
    this.owner.send(m as HostMessage);
  }

  override receive(m: WebviewMessage): void {
    if (m.type === 'probeResult') {
      // every group sees every probe's answer: only the one it asked for resolves
      const prefix = `${this.id}${SEP}`;
      const strip = (id: string | undefined) => (id?.startsWith(prefix) ? id.slice(prefix.length) : undefined);
      const state: WebviewProbe = { ...m.state, activeTab: strip(m.state.activeTab), tabs: m.state.tabs.filter((t) => t.tabId.startsWith(prefix)).map((t) => ({ ...t, tabId: t.tabId.slice(prefix.length) })) };
      super.receive({ ...m, state });
      return;
    }
    if (m.type === 'activeTab') this.fireActive();
    super.receive(m);
  }

  setTitle(title: string): void {
    this.title = title;
  }

  show(): void {
    this.owner.show();
  }

  dispose(): void {
    this.owner.dropGroup(this.id);
    this.markDisposed();
  }
}
