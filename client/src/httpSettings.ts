/**
 * The `tsq.http.*` settings (package.json `contributes.configuration`) as the service client's
 * `HttpTimeouts` (common/src/api/session.ts): one live object, updated in place when the settings
 * change, so that every client already made uses the new deadlines from its next call.
 */
import * as vscode from 'vscode';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../../common/src/api';

/** The settings' names, put in a timeout's message ("raise tsq.http.queryTimeout"). */
export const HTTP_SETTING_NAMES = {
  connect: 'tsq.http.connectTimeout',
  metadata: 'tsq.http.metadataTimeout',
  query: 'tsq.http.queryTimeout',
  upload: 'tsq.http.uploadTimeout',
} as const;

const live: HttpTimeouts = { ...DEFAULT_HTTP_TIMEOUTS, settingNames: { ...HTTP_SETTING_NAMES } };
let watching: vscode.Disposable | undefined;

function read(): void {
  const c = vscode.workspace.getConfiguration('tsq.http');
  const secs = (key: string, fallback: number): number => {
    const v = c.get<number>(key);
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
  };
  live.connect = secs('connectTimeout', DEFAULT_HTTP_TIMEOUTS.connect);
  live.metadata = secs('metadataTimeout', DEFAULT_HTTP_TIMEOUTS.metadata);
  live.query = secs('queryTimeout', DEFAULT_HTTP_TIMEOUTS.query);
  live.upload = secs('uploadTimeout', DEFAULT_HTTP_TIMEOUTS.upload);
}

/**
 * The deadlines from `tsq.http.*`, kept up to date (the connect deadline is fixed per client: it is
 * the connection pool's, so a changed one applies to the next connection made).
 */
export function httpTimeouts(): HttpTimeouts {
  if (!watching) {
    read();
    watching = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tsq.http')) read();
    });
  }
  return live;
}
