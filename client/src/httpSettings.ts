/**
 * The `tsq.http.*` settings (package.json `contributes.configuration`) as the service client's
 * `HttpTimeouts` (common/src/api/session.ts): one live object, updated in place when the settings
 * change, so that every client already made uses the new deadlines from its next call.
 */
import * as vscode from 'vscode';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../../common/src/api';
import { httpDeadlines } from './settings';

/** The settings' names, put in a timeout's message ("raise tsq.http.queryTimeout"). */
export const HTTP_SETTING_NAMES = {
  connect: 'tsq.http.connectTimeout',
  metadata: 'tsq.http.metadataTimeout',
  query: 'tsq.http.queryTimeout',
  upload: 'tsq.http.uploadTimeout',
} as const;

/**
 * The deadlines from `tsq.http.*`, kept up to date by a listener pushed on `subscriptions` (the connect
 * deadline is fixed per client: it is the connection pool's, so a changed one applies to the next
 * connection made). Called once, by `createClientContext`.
 */
export function liveHttpTimeouts(subscriptions: vscode.Disposable[]): HttpTimeouts {
  const live: HttpTimeouts = { ...DEFAULT_HTTP_TIMEOUTS, settingNames: { ...HTTP_SETTING_NAMES }, ...httpDeadlines() };
  subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tsq.http')) Object.assign(live, httpDeadlines());
    }),
  );
  return live;
}
