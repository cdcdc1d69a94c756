/**
 * Type guards for values whose type the compiler cannot know (parsed JSON and YAML, request bodies, caught
 * errors): each checks at run time what a cast would only assert, so the code after it is checked again.
 * Every part may import them (common/ imports nothing of the others).
 */

/** Whether `v` is a plain object (not null, not an array): a JSON object's members can be read. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` when it is a plain object (see isRecord), else a new empty object: the members of what is not one are all absent. */
export function recordOr(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}

/** The member `name` of `v` when `v` is an object (an Error, a class instance, an array too), else undefined. */
export function memberOf(v: unknown, name: string): unknown {
  return typeof v === 'object' && v !== null ? Reflect.get(v, name) : undefined;
}

/** The own keys of `o`, typed as its keys (Object.keys types them as any string). */
export function keysOf<T extends object>(o: T): Extract<keyof T, string>[] {
  return Object.keys(o).filter((k): k is Extract<keyof T, string> => Object.hasOwn(o, k));
}

/** Whether `v` is one of `list` (a `const` list of strings or numbers): narrows `v` to the list's members. */
export function isOneOf<T extends string | number>(list: readonly T[], v: unknown): v is T {
  return list.some((x) => x === v);
}

/** Whether `v` is an array of strings only. */
export function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Whether `v` is absent: undefined, null or an empty array (a list member sent empty asks for nothing). */
export function isEmptyList(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
}

/** The message of a caught value: an Error's `message`, else the value as text (a `throw 'text'` loses nothing). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The Node.js error code of a caught value (`ENOENT`, `EEXIST`, `EPIPE`, …), or undefined when it has none. */
export function errnoCode(e: unknown): string | undefined {
  const code = memberOf(e, 'code');
  return typeof code === 'string' ? code : undefined;
}

/**
 * `v` narrowed to one of `list` (a `const` list); throws when it is none. For a value the code has already
 * classified (a token the lexer flagged as an aggregation keyword), where a miss is a bug of that
 * classification, not bad input: the check costs a scan of `list` and keeps the type honest.
 * @throws Error naming `what` and the value, when `v` is not in `list`
 */
export function expectOneOf<T extends string | number>(list: readonly T[], v: unknown, what: string): T {
  if (isOneOf(list, v)) return v;
  throw new Error(`Internal error: ${JSON.stringify(v)} is no ${what} (one of ${list.join(', ')}).`);
}
