// Shared set-up of the core-*.test.ts files: an emulator started in-process on an ephemeral port, and
// plain `fetch` calls to its public API (no client library), so these tests see the wire as it is.
// `adminCore` is the set-up most emulator test files share: the demo core and the administrator's session.
// Not a test file itself.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
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

/** A core whose demo administrator (`tsadmin`) is signed in: `cookie` is that session's Cookie header value. */
export interface AdminCore extends Core {
  readonly cookie: string;
  /**
   * Settles when the `before` hook of `adminCore` has started the core and signed in (rejects when it
   * failed). Another `before` hook of the file awaits it first: Node 20 runs a file's top-level `before`
   * hooks at the same time, not one after the other.
   */
  readonly ready: Promise<void>;
  /**
   * POST /searchdata of `query` on `dataSource` (a GUID), every row (`batchsize: -1`), as the administrator:
   * the status, column names, rows and the whole body (its `debug` on a 400).
   */
  searchdata(query: string, dataSource: string): Promise<SearchDataAnswer>;
  /** `searchdata`, asserting a 200 (the message names the query and the body): the column names and rows. */
  answer(query: string, dataSource: string): Promise<{ columnNames: string[]; data: unknown[][] }>;
}

/** What `AdminCore.searchdata` gives. */
export interface SearchDataAnswer {
  status: number;
  columnNames: string[];
  data: unknown[][];
  body: { debug?: string };
}

/**
 * The set-up of most emulator test files, once: `before` starts a demo core (`startCore(options)`, a data
 * folder of its own) and signs the demo administrator in; `after` stops it and removes the folder. Call it
 * at the top level of a test file (or of a `describe`); the core it returns is usable in every test, and
 * in another `before` hook after `await core.ready`.
 * @throws Error (from any member) when used before its `before` hook ran.
 */
export function adminCore(options: EmulatorOptions = {}): AdminCore {
  let started: { core: Core; cookie: string } | undefined;
  let settle: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => undefined); // the hook's own failure is the one reported
  before(async () => {
    try {
      const core = await startCore(options);
      try {
        started = { core, cookie: await core.login('tsadmin', 'admin') };
      } catch (e) {
        await core.stop();
        throw e;
      }
      settle?.resolve();
    } catch (e) {
      settle?.reject(e);
      throw e;
    }
  });
  after(async () => started?.core.stop());
  const now = (): { core: Core; cookie: string } => {
    if (!started) throw new Error('adminCore: the emulator is started by its before() hook; use it in a test or a later hook');
    return started;
  };
  return {
    get emu() {
      return now().core.emu;
    },
    get dataDir() {
      return now().core.dataDir;
    },
    get cookie() {
      return now().cookie;
    },
    ready,
    login: (username, password) => now().core.login(username, password),
    call: (...args) => now().core.call(...args),
    sql: (query, params) => now().core.sql(query, params),
    stop: (keepData) => now().core.stop(keepData),
    async searchdata(query, dataSource) {
      const r = await now().core.call('POST', '/searchdata', { query_string: query, data_source_guid: dataSource, batchsize: -1 }, now().cookie);
      return { status: r.status, columnNames: r.body?.columnNames, data: r.body?.data, body: r.body };
    },
    async answer(query, dataSource) {
      const r = await this.searchdata(query, dataSource);
      assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
      return { columnNames: r.columnNames, data: r.data };
    },
  };
}

/** Decodes the `debug` member of an error body (a JSON-encoded list of strings, docs/service-notes.md §1.6). */
export function debugOf(body: { debug?: string }): string[] {
  return JSON.parse(body.debug ?? '[]') as string[];
}
