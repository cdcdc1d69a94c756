// Shared set-up of the core-*.test.ts files: an emulator started in-process on an ephemeral port, and
// plain `fetch` calls to its public API (no client library), so these tests see the wire as it is.
// Not a test file itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/src/app';

export const PREFIX = '/callosum/v1/tspublic/v1';

export interface Core {
  emu: RunningEmulator;
  dataDir: string;
  /** Logs in through `session/login` and returns the Cookie header value. */
  login(username: string, password: string): Promise<string>;
  /** A public API call; `params` go in the query string (or a form body with `form: true`). */
  call(method: 'GET' | 'POST', path: string, params?: Record<string, string | number | boolean>, cookie?: string, form?: boolean): Promise<{ status: number; body: any; headers: Headers }>;
  /** Runs SQL directly on the emulator's DuckDB database; bigints become numbers. */
  sql(query: string, params?: (string | number)[]): Promise<unknown[][]>;
  stop(keepData?: boolean): Promise<void>;
}

export async function startCore(options: EmulatorOptions = {}, dataDir = mkdtempSync(join(tmpdir(), 'tsq-core-'))): Promise<Core> {
  const emu = await startEmulator({ port: 0, dataDir, demo: true, now: '2001-06-15T12:00:00Z', ...options });
  const call: Core['call'] = async (method, path, params = {}, cookie, form) => {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const url = `${emu.url}${PREFIX}${path}${form ? '' : `?${qs}`}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const r = await fetch(url, { method, headers, body: form ? qs.toString() : undefined });
    const text = await r.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* text body */
    }
    return { status: r.status, body, headers: r.headers };
  };
  return {
    emu,
    dataDir,
    call,
    async login(username, password) {
      const r = await fetch(`${emu.url}${PREFIX}/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username, password, rememberme: 'false' }).toString() });
      if (r.status !== 200 && r.status !== 204) throw new Error(`login ${username}: ${r.status} ${await r.text()}`);
      return r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    },
    async sql(query, params = []) {
      const c = await emu.ctx.connect();
      try {
        const r = await c.runAndReadAll(query, params);
        return r.getRows().map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
      } finally {
        c.closeSync();
      }
    },
    async stop(keepData) {
      await emu.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Decodes the `debug` member of an error body (a JSON-encoded list of strings, docs/service-notes.md §1.6). */
export function debugOf(body: { debug?: string }): string[] {
  return JSON.parse(body.debug ?? '[]') as string[];
}
