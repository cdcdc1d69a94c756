/**
 * The one output channel of the extension, `TSQ` (a LogOutputChannel): the language client's trace,
 * connection events, and one line per service request (method, path, status, ms — see `logFormat.ts`).
 * Never a password, a cookie or a session token.
 */
import * as vscode from 'vscode';
import { formatRequest, type RequestRecord } from '../../common/src/logFormat';

let channel: vscode.LogOutputChannel | undefined;

/** The `TSQ` log channel, created on first use. */
export function getLog(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('TSQ', { log: true });
  return channel;
}

/** Logs one finished service request; failures (status 0 or ≥ 400) at warning level. */
export function logRequest(r: RequestRecord): void {
  const line = formatRequest(r);
  if (!r.status || r.status >= 400) getLog().warn(line);
  else getLog().info(line);
}
