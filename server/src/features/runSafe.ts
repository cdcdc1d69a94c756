/**
 * How every request handler of the server runs (the json-language-features `runSafeAsync` pattern): on
 * the next turn of the event loop, answering LSP `RequestCancelled` as soon as a cancellation arrives, and
 * logging a failure and answering an empty value rather than failing the request.
 */
import { LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import type { CancellationToken, Disposable } from 'vscode-languageserver';

/** A response error's data is method-specific (e.g. `DiagnosticServerCancellationData`); ours carries none. */
export type AnyResponseError = ResponseError<any>;

/** The answer to a cancelled request (LSP `RequestCancelled`). */
export function cancelled(): AnyResponseError {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

/** A log line for a failure: the message, the error's message and its stack. */
export function formatError(message: string, error: unknown): string {
  if (error instanceof Error) return `${message}: ${error.message}\n${error.stack ?? ''}`;
  return `${message}: ${String(error)}`;
}

/** Runs `callback` on the next turn of the event loop (the runtime's timer). */
export type SetImmediate = (callback: () => void) => Disposable;

/**
 * Runs a handler on the next tick. A cancelled request answers `RequestCancelled` as soon as the
 * cancellation arrives; a failure is logged (`logError`) and answers `errorValue`.
 */
export function runSafeAsync<T>(
  setImmediate: SetImmediate,
  logError: (message: string) => void,
  func: () => Promise<T>,
  errorValue: T,
  what: string,
  token: CancellationToken,
): Promise<T | AnyResponseError> {
  return new Promise((resolve) => {
    let settled = false;
    let onCancel: Disposable | undefined; // eslint-disable-line prefer-const -- assigned after settle is declared, which it calls
    const settle = (value: T | AnyResponseError) => {
      if (settled) return;
      settled = true;
      onCancel?.dispose();
      resolve(value);
    };
    onCancel = token.onCancellationRequested?.(() => settle(cancelled()));
    setImmediate(() => {
      if (token.isCancellationRequested) return settle(cancelled());
      let pending: Promise<T>;
      try {
        pending = func();
      } catch (e) {
        logError(formatError(`${what} failed`, e));
        return settle(errorValue);
      }
      pending.then(
        (result) => settle(token.isCancellationRequested ? cancelled() : result),
        (e: unknown) => {
          logError(formatError(`${what} failed`, e));
          settle(errorValue);
        },
      );
    });
  });
}
