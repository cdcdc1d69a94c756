/**
 * What every feature of the server receives when it registers its handlers (the css-language-features
 * pattern: `startServer` builds one context, each feature file registers its own handlers on it).
 */
import type { CancellationToken, Connection, Diagnostic, Disposable, TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ClearableCatalog } from '../../../common/src/catalog';
import type { LanguageService, LanguageSettings } from '../../../common/src/languageService/types';
import type { AnyResponseError } from './runSafe';

/** What the client declared in `initialize` that changes how the server answers; filled in by `onInitialize`. */
export interface ClientFeatures {
  /** The client pulls diagnostics (`textDocument/diagnostic`); otherwise the server pushes them. */
  pullDiagnostics: boolean;
  /** The client takes `workspace/diagnostic/refresh`. */
  diagnosticRefreshSupport: boolean;
  /** The client answers `workspace/configuration`. */
  configurationSupport: boolean;
  /** The client takes a list-wide `itemDefaults.editRange` (LSP 3.17; VS Code does). */
  editRangeDefaultSupport: boolean;
  /** The client takes a list-wide `itemDefaults.data` (LSP 3.17; VS Code does). */
  dataDefaultSupport: boolean;
  /** The client registers `workspace/didChangeConfiguration` dynamically. */
  configurationChangeRegistration: boolean;
  /** The client registers `workspace/didChangeWatchedFiles` dynamically (the workspace index's file events). */
  watchedFilesRegistration?: boolean;
  /** The client sends `workspace/didChangeWorkspaceFolders` (`workspace.workspaceFolders`). */
  workspaceFolders?: boolean;
}

/** Timers of the host (json-language-features' `RuntimeEnvironment`), injected so tests control time. */
export interface ServerTimer {
  /** Runs `callback` on the next turn of the event loop. */
  setImmediate(callback: () => void): Disposable;
  /** Runs `callback` after `ms` milliseconds. */
  setTimeout(callback: () => void, ms: number): Disposable;
}

/** The settings of each document, resolved through the client (settings.ts). */
export interface SettingsSource {
  /** The `tsq` settings of a document; never rejects (defaults when the client does not answer). */
  get(uri: string): Promise<LanguageSettings>;
}

/** The shared parts a feature registers its handlers with. */
export interface FeatureContext {
  readonly connection: Connection;
  readonly documents: TextDocuments<TextDocument>;
  readonly service: LanguageService;
  readonly catalog: ClearableCatalog;
  readonly settings: SettingsSource;
  /** Filled in when the client initializes; read it in handlers, not at registration. */
  readonly client: ClientFeatures;
  readonly timer: ServerTimer;
  log(message: string): void;
  /** Runs `hook` on `initialized` (the connection takes one handler of it: every feature registers here). */
  onInitialized(hook: () => void): void;
  logError(message: string): void;
  /** Runs a request handler safely (runSafe.ts `runSafeAsync`): cancellation answers `RequestCancelled`, a failure `errorValue`. */
  runSafeAsync<T>(func: () => Promise<T>, errorValue: T, what: string, token: CancellationToken): Promise<T | AnyResponseError>;
  /** Synchronous variant of `runSafeAsync` for the service's synchronous verbs. */
  runSafe<T>(func: () => T, errorValue: T, what: string, token: CancellationToken): Promise<T | AnyResponseError>;
  /**
   * The notice of a document relying on stale columns (protocolCatalog.ts `staleDiagnostics`): one
   * Information diagnostic, or [] when its columns are fresh.
   */
  staleDiagnostics?(text: string, defaultDataSource?: string): Diagnostic[];
}
