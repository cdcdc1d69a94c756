/**
 * One line per service request in the `TSQ` log channel (method, path, status, ms — see
 * common/src/logFormat.ts). The channel itself is `ClientContext.log` (context.ts). Never a password,
 * a cookie or a session token.
 */
import type * as vscode from 'vscode';
import { formatRequest, type RequestRecord } from '../../common/src/logFormat';
import { redact } from '../../common/src/redaction';

/** The methods of a LogOutputChannel that write text, each of whose string arguments is redacted. */
const WRITERS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

/**
 * The `TSQ` channel as every part of the client writes to it: each text that goes in (the message and
 * every string argument of `trace` … `error`, an `Error`'s message and stack, the value of `append`,
 * `appendLine`, `replace`) has the secrets in use removed in each of their forms and credential shapes
 * (common/src/redaction.ts `redact`), whoever wrote it (a connection event, a service's error text, the
 * language client's trace). Everything else is the channel's own.
 * @param secrets the secrets in use, read at each write (the connected client's `heldSecrets`); none at first.
 * @returns a channel of the same interface, and `redactWith` to name the secrets once they are known.
 */
export function redactingLog(channel: vscode.LogOutputChannel): { log: vscode.LogOutputChannel; redactWith: (secrets: () => readonly string[]) => void } {
  let secrets: () => readonly string[] = () => [];
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets());
    if (v instanceof Error) {
      const e = new Error(redact(v.message, secrets()));
      e.name = v.name;
      e.stack = v.stack === undefined ? undefined : redact(v.stack, secrets());
      return e;
    }
    return v;
  };
  const log = new Proxy(channel, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return typeof key === 'string' && WRITERS.has(key) ? (...args: unknown[]) => method.apply(target, args.map(clean)) : method.bind(target);
    },
  });
  return { log, redactWith: (s) => (secrets = s) };
}

/** Logs one finished service request in `log`; failures (status 0 or ≥ 400) at warning level. */
export function logRequest(log: vscode.LogOutputChannel, r: RequestRecord): void {
  const line = formatRequest(r);
  if (!r.status || r.status >= 400) log.warn(line);
  else log.info(line);
}
