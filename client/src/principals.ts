/**
 * Users and groups: reading `user/sync` files and answers (the principals of `user/list` are read in common/src/api/principals.ts). Pure (no `vscode`).
 */
import { errorMessage } from './service';
import { memberOf } from '../../common/src/guards';

/** `parsePrincipals` is the service client's (common/src/api/principals.ts); re-exported for the extension. */
export { parsePrincipals } from '../../common/src/api/principals';

/**
 * The principals of a sync file: a JSON array of principals (or an object with a `principals`
 * array). @throws Error naming the file and what is wrong when it is not.
 */
export function parsePrincipalsFile(text: string, file: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${errorMessage(e)})`, { cause: e });
  }
  const inner = memberOf(value, 'principals');
  const list: unknown[] | undefined = Array.isArray(value) ? value : Array.isArray(inner) ? inner : undefined;
  if (!list) throw new Error(`${file} must hold a JSON array of principals (users and groups)`);
  const bad = list.findIndex((p) => !p || typeof p !== 'object' || typeof memberOf(p, 'name') !== 'string');
  if (bad >= 0) throw new Error(`${file}: principal #${bad + 1} has no "name"`);
  return list;
}

/** A one-line summary of a `user/sync` answer (counts of its arrays when it has them). */
export function summarizeSync(result: unknown): string {
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    const parts = Object.entries(result).flatMap(([k, v]: [string, unknown]) => (Array.isArray(v) ? [`${v.length} ${k}`] : []));
    if (parts.length) return parts.join(', ');
  }
  return typeof result === 'string' && result ? result.slice(0, 200) : 'see the log';
}
