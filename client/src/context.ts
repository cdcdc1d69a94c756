/**
 * The client's shared state, made once by `activate()` and handed to every part as an argument (no
 * module of the client keeps state of its own): the extension's context, the one `TSQ` log channel,
 * and the live deadlines of the `tsq.http.*` settings. `TsqClient` adds the parts built from it.
 */
import * as vscode from 'vscode';
import type { QueryHistory } from './history';
import type { HttpTimeouts } from '../../common/src/api';
import type { ConnectionManager } from './connections';
import { liveHttpTimeouts } from './httpSettings';
import { redactingLog } from './log';
import type { CatalogAccess, TsqLanguageClient } from './languageClient';

/** What every part of the client may use; made by `createClientContext`. */
export interface ClientContext {
  /** The extension's context: subscriptions, secret storage, global state, extension URI. */
  readonly extension: vscode.ExtensionContext;
  /**
   * The `TSQ` log channel (a LogOutputChannel): the language client's trace, connection events, one
   * line per service request (common/src/logFormat.ts). Never a password, a cookie or a token: the
   * secrets in use are redacted from every text written to it (`redactLogOf`).
   */
  readonly log: vscode.LogOutputChannel;
  /** Names the secrets that every text written to `log` has removed (log.ts `redactingLog`); read at each write. */
  readonly redactLogOf: (secrets: () => readonly string[]) => void;
  /** The `tsq.http.*` deadlines, one object updated in place when the settings change (httpSettings.ts). */
  readonly http: HttpTimeouts;
}

/** Makes the client's context; the log channel and the settings listener are disposed with the extension. */
export function createClientContext(extension: vscode.ExtensionContext): ClientContext {
  const channel = vscode.window.createOutputChannel('TSQ', { log: true });
  extension.subscriptions.push(channel);
  const { log, redactWith } = redactingLog(channel);
  return { extension, log, redactLogOf: redactWith, http: liveHttpTimeouts(extension.subscriptions) };
}

/**
 * The one object that owns the client's state: the context plus the parts `activate()` builds from it
 * (the connection manager, the language client, the active connection's catalog). Every command and
 * view is registered with it.
 */
export interface TsqClient extends ClientContext {
  readonly connections: ConnectionManager;
  readonly languageClient: TsqLanguageClient;
  /** The catalog of the active connection (data source names → GUIDs, column types), or undefined. */
  readonly catalog: CatalogAccess;
  /** The query history of the workspace (client/src/history.ts); every run is recorded in it. */
  readonly history?: QueryHistory;
}
