/**
 * One line per service request in the `TSQ` log channel (method, path, status, ms — see
 * common/src/logFormat.ts). The channel itself is `ClientContext.log` (context.ts). Never a password,
 * a cookie or a session token.
 */
import type * as vscode from 'vscode';
import { formatRequest, type RequestRecord } from '../../common/src/logFormat';

/** Logs one finished service request in `log`; failures (status 0 or ≥ 400) at warning level. */
export function logRequest(log: vscode.LogOutputChannel, r: RequestRecord): void {
  const line = formatRequest(r);
  if (!r.status || r.status >= 400) log.warn(line);
  else log.info(line);
}
