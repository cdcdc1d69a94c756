/**
 * The workspace index kept by the server (common/src/languageService/workspaceIndex.ts): at `initialize`
 * every `.tsq` and TML file under the workspace folders is read from disk (bounded:
 * common/src/workspaceFiles.ts); an open document is indexed from its text on every change, a closed one from disk
 * again; `workspace/didChangeWatchedFiles` (registered when the client can) re-reads or drops one file;
 * `workspace/didChangeWorkspaceFolders` (when the client sends it) scans an added folder and drops the files
 * of a removed one that no other folder holds.
 */
import { sep } from 'node:path';
import { readWorkspaceFile, readWorkspaceFiles, workspaceFilesUnder } from '../../../common/src/workspaceFiles';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DidChangeWatchedFilesNotification, FileChangeType } from 'vscode-languageserver';
import type { Disposable, InitializeParams, WorkspaceFolder, WorkspaceFoldersChangeEvent } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { WorkspaceIndex } from '../../../common/src/languageService/workspaceIndex';
import { indexedKindOf, type IndexedKind } from '../../../common/src/languageService/indexedFile';
import { TML_KINDS, TML_KIND_NAMES } from '../../../common/src/tml/kinds';
import type { FeatureContext } from './context';
import { formatError } from './runSafe';

/** The folder on disk of a workspace folder's URI, without a trailing separator; undefined for a URI that is not `file:`. */
function folderPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri).replace(/[\\/]+$/, '') || sep : undefined;
  } catch {
    return undefined; // not a file URI: nothing to read from disk
  }
}

/** How long after an edit an open document is indexed when nothing asks sooner, in ms. */
const INDEX_DELAY = 500;

/** The same URI for a file however a client spells it (`file:///a%20b.tsq`, `file:///a b.tsq`). */
export function normalizeUri(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}

/** The kind of an open document for the index: by its URI's suffix, else by its language (an untitled document). */
export function kindOfDocument(document: TextDocument): IndexedKind | undefined {
  const byUri = indexedKindOf(document.uri);
  if (byUri) return byUri;
  if (document.languageId === 'tsq') return 'tsq';
  return TML_KIND_NAMES.find((k) => TML_KINDS[k].languageId === document.languageId);
}

/** The index, once the first scan is done (`ready`), kept current by the handlers this file registers. */
export interface WorkspaceIndexFeature {
  readonly index: WorkspaceIndex;
  /** Resolves when the first scan of the workspace folders has finished and every file event received so far is read. */
  settled(): Promise<void>;
  /** Reads the workspace folders of `initialize` (call it from `onInitialize`). */
  initialize(params: InitializeParams): void;
  /**
   * Follows `workspace/didChangeWorkspaceFolders`: an added folder is scanned (`settled` waits for it), the
   * files of a removed one go unless another folder holds them or they are open.
   */
  changeFolders(event: WorkspaceFoldersChangeEvent): void;
}

/** Registers the index's handlers: open documents, file events, the first scan. */
export function registerWorkspaceIndex(ctx: FeatureContext): WorkspaceIndexFeature {
  const index = new WorkspaceIndex();
  const folders: string[] = [];
  let done: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (done = resolve));
  const under = (path: string) => folders.some((f) => path === f || path.startsWith(f.endsWith(sep) ? f : `${f}${sep}`));
  const pending = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  const openUris = () => new Set(ctx.documents.all().map((d) => normalizeUri(d.uri)));

  const fromDisk = async (uri: string) => {
    const path = fileURLToPath(uri);
    const text = under(path) && indexedKindOf(uri) ? await readWorkspaceFile(path) : undefined;
    if (openUris().has(uri)) return; // an open document's text wins
    if (text === undefined) index.delete(uri);
    else index.set(uri, text);
  };

  const scan = async (of: readonly string[]) => {
    const paths: string[] = [];
    for (const f of of) await workspaceFilesUnder(f, paths);
    const uriOf = (path: string) => normalizeUri(pathToFileURL(path).href);
    // an open document indexed already (its text wins) is not read
    await readWorkspaceFiles(paths.filter((p) => !index.get(uriOf(p))), (path, text) => {
      const uri = uriOf(path);
      if (!index.get(uri)) index.set(uri, text);
    });
    ctx.log(`Workspace index: ${index.size} files of ${folders.length} folder(s).`);
  };

  // an open document is re-read when navigation asks (`settled`) or after INDEX_DELAY, never in the way of an edit
  const dirty = new Map<string, TextDocument>();
  let flushTimer: Disposable | undefined;
  const flush = () => {
    flushTimer?.dispose();
    flushTimer = undefined;
    for (const [uri, document] of dirty) if (ctx.documents.get(document.uri) === document) index.set(uri, document.getText(), kindOfDocument(document));
    dirty.clear();
  };
  ctx.documents.onDidChangeContent((e) => {
    if (!kindOfDocument(e.document)) return;
    dirty.set(normalizeUri(e.document.uri), e.document);
    flushTimer ??= ctx.timer.setTimeout(flush, INDEX_DELAY);
  });
  ctx.documents.onDidClose((e) => {
    const uri = normalizeUri(e.document.uri);
    dirty.delete(uri);
    if (uri.startsWith('file:')) track(fromDisk(uri));
    else index.delete(uri);
  });
  ctx.connection.onDidChangeWatchedFiles((params) => {
    for (const change of params.changes) {
      const uri = normalizeUri(change.uri);
      if (!uri.startsWith('file:')) continue;
      if (change.type === FileChangeType.Deleted) {
        // a file, or a folder: every file indexed under it goes
        const folder = uri.endsWith('/') ? uri : `${uri}/`;
        for (const f of [...index.all()]) if ((f.uri === uri || f.uri.startsWith(folder)) && !openUris().has(f.uri)) index.delete(f.uri);
      } else if (indexedKindOf(uri)) track(fromDisk(uri));
    }
  });
  ctx.onInitialized(() => {
    if (ctx.client.workspaceFolders) ctx.connection.workspace.onDidChangeWorkspaceFolders((event) => feature.changeFolders(event));
    if (ctx.client.watchedFilesRegistration) {
      const watchers = [{ globPattern: '**/*.tsq' }, { globPattern: '**/*.tml' }];
      ctx.connection.client.register(DidChangeWatchedFilesNotification.type, { watchers }).catch((e: unknown) => ctx.logError(formatError('Registering file watchers failed', e)));
    }
  });

  const feature: WorkspaceIndexFeature = {
    index,
    settled: async () => {
      await ready;
      while (pending.size) await Promise.all([...pending]);
      flush();
    },
    initialize(params) {
      const uris = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
      for (const path of uris.map(folderPath)) if (path !== undefined) folders.push(path);
      ctx.timer.setImmediate(() => void scan(folders).catch((e: unknown) => ctx.logError(formatError('Indexing the workspace failed', e))).finally(done));
    },
    changeFolders(event) {
      const paths = (list: readonly WorkspaceFolder[]) => list.map((f) => folderPath(f.uri)).filter((p): p is string => p !== undefined);
      for (const path of paths(event.removed)) if (folders.includes(path)) folders.splice(folders.indexOf(path), 1);
      const open = openUris();
      for (const f of [...index.all()]) if (f.uri.startsWith('file:') && !open.has(f.uri) && !under(fileURLToPath(f.uri))) index.delete(f.uri);
      const added = paths(event.added).filter((p) => !folders.includes(p));
      folders.push(...added);
      if (added.length) track(ready.then(() => scan(added)).catch((e: unknown) => ctx.logError(formatError('Indexing an added workspace folder failed', e))));
    },
  };
  return feature;
}
