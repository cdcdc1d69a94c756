// Shared set-up of the load-*.test.ts files: a live emulator (main port and load port) over a seed with
// tables of every column type and three users (administrator, data manager, analyst without load
// privileges), and a small HTTP helper that speaks the data-load API with fetch, FormData and Blob.
// Not a test file itself.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';

export const DB = 'loadtest';

/** Tables of the seed: `pairs` and `other` for simple loads, `typed` with one column of every type. */
export const TABLES = [
  { name: 'pairs', database: DB, columns: [{ name: 'id', dataType: 'INT32' }, { name: 'name', dataType: 'VARCHAR' }] },
  { name: 'other', database: DB, columns: [{ name: 'id', dataType: 'INT32' }, { name: 'label', dataType: 'VARCHAR' }] },
  {
    name: 'typed',
    database: DB,
    columns: [
      { name: 'i64', dataType: 'INT64' },
      { name: 'i32', dataType: 'INT32' },
      { name: 'txt', dataType: 'VARCHAR' },
      { name: 'chr', dataType: 'CHAR' },
      { name: 'flag', dataType: 'BOOL' },
      { name: 'f', dataType: 'FLOAT' },
      { name: 'd', dataType: 'DOUBLE' },
      { name: 'day', dataType: 'DATE' },
      { name: 'ts', dataType: 'DATE_TIME' },
      { name: 't', dataType: 'TIME' },
    ],
  },
];

export const ADMIN = { username: 'boss', password: 'boss-secret' };
export const LOADER = { username: 'loader', password: 'loader-secret' };
export const VIEWER = { username: 'viewer', password: 'viewer-secret' };

const SEED = {
  tables: TABLES,
  groups: [
    { name: 'Administrators', privileges: ['ADMINISTRATION'] },
    { name: 'Data managers', privileges: ['DATAMANAGEMENT'] },
    { name: 'Readers', privileges: ['DATADOWNLOADING'] },
  ],
  users: [
    { ...{ name: ADMIN.username, password: ADMIN.password }, groups: ['Administrators'] },
    { ...{ name: LOADER.username, password: LOADER.password }, groups: ['Data managers'] },
    { ...{ name: VIEWER.username, password: VIEWER.password }, groups: ['Readers'] },
  ],
};

export interface LoadLive {
  emu: RunningEmulator;
  /** Folder holding the seed and the data directory (`state`). */
  root: string;
  dataDir: string;
  /** Rows of a seed table, ordered by its first column. */
  rows(table: string): Promise<Record<string, unknown>[]>;
  /** Rows of `typed` with dates and times as DuckDB's text, ordered by i64. */
  typedRows(): Promise<Record<string, unknown>[]>;
  /** Starts the emulator again on the same data directory (a restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts an emulator with the load seed, a main port and a load port. */
export async function startLoadLive(): Promise<LoadLive> {
  const root = mkdtempSync(join(tmpdir(), 'tsq-load-'));
  const seed = join(root, 'seed');
  mkdirSync(seed);
  writeFileSync(join(seed, 'model.json'), JSON.stringify(SEED));
  const dataDir = join(root, 'state');
  const start = () => startEmulator({ port: 0, loadPort: 0, dataDir, seed });
  const live: LoadLive = {
    emu: await start(),
    root,
    dataDir,
    async rows(table) {
      const info = live.emu.ctx.findTable(DB, undefined, table);
      assert.ok(info, `table ${table}`);
      const c = await live.emu.ctx.connect();
      try {
        const r = await c.runAndReadAll(`SELECT * FROM ${info.sqlName} ORDER BY 1, 2`);
        return r.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
      } finally {
        c.closeSync();
      }
    },
    async typedRows() {
      const info = live.emu.ctx.findTable(DB, undefined, 'typed');
      assert.ok(info);
      const c = await live.emu.ctx.connect();
      try {
        const r = await c.runAndReadAll(`SELECT i64, i32, txt, chr, flag, f, d, day::VARCHAR AS day, ts::VARCHAR AS ts, t::VARCHAR AS t FROM ${info.sqlName} ORDER BY i64`);
        return r.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
      } finally {
        c.closeSync();
      }
    },
    async restart() {
      await live.emu.close();
      live.emu = await start();
    },
    async stop() {
      await live.emu.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return live;
}

/** A response of the load API: status, text body, headers. */
export interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

/** One client session on one node (base URL), holding its JSESSIONID cookie. */
export class LoadSession {
  cookie: string | undefined;
  constructor(readonly base: string) {}

  async call(method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}): Promise<Answer> {
    const r = await fetch(this.base + path, { method, body, headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers } });
    return { status: r.status, text: await r.text(), headers: r.headers };
  }

  /** Logs in with a JSON body (or a form body with `form`). */
  async login(user: { username: string; password: string }, form = false): Promise<Answer> {
    const a = form
      ? await this.call('POST', '/ts_dataservice/v1/public/session', new URLSearchParams(user))
      : await this.call('POST', '/ts_dataservice/v1/public/session', JSON.stringify(user), { 'content-type': 'application/json', accept: 'application/json' });
    const set = a.headers.get('set-cookie');
    if (a.status === 200 && set) this.cookie = set.split(';')[0];
    return a;
  }

  /** StartLoad with a JSON body; returns the answer and, on 200, the cycle id. */
  async start(def: unknown): Promise<Answer & { cycleId?: string; nodeAddress?: unknown }> {
    const a = await this.call('POST', '/ts_dataservice/v1/public/loads', JSON.stringify(def), { 'content-type': 'application/json' });
    if (a.status !== 200) return a;
    const j = JSON.parse(a.text) as { cycle_id: string; node_address: unknown };
    return { ...a, cycleId: j.cycle_id, nodeAddress: j.node_address };
  }

  /** Load: one multipart chunk under any field name. */
  upload(cycleId: string, data: string | Uint8Array<ArrayBuffer>, field = 'file'): Promise<Answer> {
    const form = new FormData();
    form.append(field, new Blob([data]), 'chunk.csv');
    return this.call('POST', `/ts_dataservice/v1/public/loads/${cycleId}`, form);
  }

  commit(cycleId: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.call('POST', `/ts_dataservice/v1/public/loads/${cycleId}/commit`, undefined, headers);
  }

  cancel(cycleId: string): Promise<Answer> {
    return this.call('POST', `/ts_dataservice/v1/public/loads/${cycleId}/cancel`);
  }

  /** The status JSON (public path). */
  async status(cycleId: string): Promise<Record<string, unknown>> {
    const a = await this.call('GET', `/ts_dataservice/v1/public/loads/${cycleId}`);
    assert.equal(a.status, 200, a.text);
    return JSON.parse(a.text) as Record<string, unknown>;
  }

  /** Polls the status until `internal_stage` is DONE or the status code is not OK (docs/service-interface.md §3). */
  async waitDone(cycleId: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 2000; i++) {
      const s = await this.status(cycleId);
      const st = s.status as { code?: string };
      if (s.internal_stage === 'DONE' || (st.code !== undefined && st.code !== 'OK')) return s;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`cycle ${cycleId} never finished`);
  }

  badRecords(cycleId: string): Promise<Answer> {
    return this.call('GET', `/ts_dataservice/v1/public/loads/${cycleId}/bad_records_file`);
  }

  /** Start, upload every chunk, commit, wait: the whole cycle. */
  async load(def: unknown, ...chunks: string[]): Promise<{ cycleId: string; status: Record<string, unknown> }> {
    const s = await this.start(def);
    assert.equal(s.status, 200, s.text);
    const cycleId = s.cycleId as string;
    for (const c of chunks) {
      const u = await this.upload(cycleId, c);
      assert.equal(u.status, 200, u.text);
    }
    const c = await this.commit(cycleId);
    assert.equal(c.status, 200, c.text);
    return { cycleId, status: await this.waitDone(cycleId) };
  }
}

/** A logged-in session of `user` on `base`. */
export async function session(base: string, user: { username: string; password: string }): Promise<LoadSession> {
  const s = new LoadSession(base);
  const a = await s.login(user);
  assert.equal(a.status, 200, a.text);
  return s;
}

/** A nested load definition for a seed table, with `extra` merged into its sections. */
export function def(table: string, extra: { format?: Record<string, unknown>; load_options?: Record<string, unknown>; advanced_options?: Record<string, unknown> } = {}): unknown {
  return { target: { database: DB, table }, format: { type: 'CSV', ...extra.format }, load_options: { ...extra.load_options }, advanced_options: { ...extra.advanced_options } };
}

/** `session` with the user first (the form other load tests use). */
export function loggedIn(user: { username: string; password: string }, base: string): Promise<LoadSession> {
  return session(base, user);
}
