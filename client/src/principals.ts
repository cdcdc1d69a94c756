/**
 * Users and groups: reading `user/list` answers and `user/sync` files and answers. Pure (no `vscode`).
 */
import { errorMessage, type Principal } from './service';

/**
 * Users and groups from a `user/list` answer (docs/service-interface.md §4.2: "all users, groups and their
 * inter-dependencies"; shape not shown). Accepts an array of principals or an object holding arrays
 * (`users`/`groups`/`principals`); a principal's kind comes from `principalTypeEnum` (LOCAL_USER,
 * LOCAL_GROUP, …), `type` or the list it came from.
 */
export function parsePrincipals(value: unknown): Principal[] {
  const out: Principal[] = [];
  const add = (entry: unknown, hint?: 'USER' | 'GROUP') => {
    if (!entry || typeof entry !== 'object') return;
    const e = entry as Record<string, unknown>;
    const header = (e.header && typeof e.header === 'object' ? e.header : {}) as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name : typeof header.name === 'string' ? header.name : undefined;
    if (!name) return;
    const typeText = String(e.principalTypeEnum ?? e.principalType ?? e.type ?? header.type ?? '').toUpperCase();
    const kind: 'USER' | 'GROUP' | undefined = typeText.includes('GROUP') ? 'GROUP' : typeText.includes('USER') ? 'USER' : hint;
    if (!kind) return;
    const p: Principal = { name, kind };
    const id = e.id ?? header.id;
    if (typeof id === 'string') p.id = id;
    const displayName = e.displayName ?? header.displayName;
    if (typeof displayName === 'string') p.displayName = displayName;
    const groups = e.groupNames ?? e.groups;
    if (Array.isArray(groups)) p.groupNames = groups.map((g) => (typeof g === 'string' ? g : String((g as { name?: unknown })?.name ?? ''))).filter(Boolean);
    if (Array.isArray(e.privileges)) p.privileges = e.privileges.map(String);
    out.push(p);
  };
  if (Array.isArray(value)) for (const e of value) add(e);
  else if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    for (const [key, hint] of [['users', 'USER'], ['groups', 'GROUP'], ['principals', undefined]] as const) {
      if (Array.isArray(v[key])) for (const e of v[key] as unknown[]) add(e, hint);
    }
  }
  return out;
}

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
  const list = Array.isArray(value) ? value : Array.isArray((value as { principals?: unknown })?.principals) ? (value as { principals: unknown[] }).principals : undefined;
  if (!list) throw new Error(`${file} must hold a JSON array of principals (users and groups)`);
  const bad = list.findIndex((p) => !p || typeof p !== 'object' || typeof (p as { name?: unknown }).name !== 'string');
  if (bad >= 0) throw new Error(`${file}: principal #${bad + 1} has no "name"`);
  return list;
}

/** A one-line summary of a `user/sync` answer (counts of its arrays when it has them). */
export function summarizeSync(result: unknown): string {
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    const parts = Object.entries(result as Record<string, unknown>)
      .filter(([, v]) => Array.isArray(v))
      .map(([k, v]) => `${(v as unknown[]).length} ${k}`);
    if (parts.length) return parts.join(', ');
  }
  return typeof result === 'string' && result ? result.slice(0, 200) : 'see the log';
}
