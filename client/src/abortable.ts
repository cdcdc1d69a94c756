/**
 * Waiting on shared work with a cancel of one's own: `abortable(promise, signal)` settles as `promise`
 * does, or rejects at once with an `AbortError` when `signal` aborts first. The work itself goes on (it
 * may be shared, e.g. a catalog answer cached for every caller) and ends by its own deadline
 * (common/src/api/session.ts); the caller stops waiting for it.
 */
import { memberOf } from '../../common/src/guards';

/** The error of a wait ended by its signal (`name` is `AbortError`, as `fetch` and undici use). */
export class AbortError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'AbortError';
  }
}

/** True for an error that an abort caused (`AbortError`, or a service call that was aborted). */
export function isAbort(e: unknown): boolean {
  return e instanceof AbortError || memberOf(e, 'name') === 'AbortError' || memberOf(e, 'aborted') === true;
}

/**
 * `promise`, or a rejection with `AbortError` as soon as `signal` aborts (at once when it already has).
 * A rejection of `promise` after the abort is ignored.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new AbortError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
