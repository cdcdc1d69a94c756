// Shared set-up of the conformance tier: a live emulator (demo data) on an ephemeral port, a way to send a
// request exactly as a documentation example writes it (its headers, its encoding, its parameters, and
// nothing the example leaves out), and checks of the documented answer shapes. Not a test file itself.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { AnalyticsServiceClient } from '../../common/src/api';

/** The path prefix every documentation example uses (`https://<instance>/callosum/v1/tspublic/v1/…`). */
export const PREFIX = '/callosum/v1/tspublic/v1';

/** A running emulator with the demo data, plus clients and example requests against it. */
export interface Conformance {
  emu: RunningEmulator;
  /** The administrator's session cookie (`JSESSIONID=…; clientId=…`), from a login sent as the documented example. */
  adminCookie: string;
  /** TSQ's client for a user (default the administrator); closed by `stop`. */
  client(username?: string, password?: string): AnalyticsServiceClient;
  stop(): Promise<void>;
}

/** An answer read once: status, content type and the body as text and, when it parses, as JSON. */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
  headers: Headers;
}

/**
 * Sends a request as a documentation example writes it: `method`, the path (with its query string) under
 * the public prefix, exactly the example's headers, and its body (a form string, a `FormData` for curl's
 * `-F`, or none). Adds only the session cookie, which the examples assume.
 */
export async function example(base: string, method: 'GET' | 'POST', pathAndQuery: string, headers: Record<string, string>, body?: string | FormData, cookie?: string): Promise<Answer> {
  const h: Record<string, string> = { ...headers };
  if (cookie) h.cookie = cookie;
  const r = await fetch(base + PREFIX + pathAndQuery, { method, headers: h, body });
  const text = await r.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, contentType: r.headers.get('content-type') ?? '', text, json, headers: r.headers };
}

/** The headers of the GET examples. */
export const GET_HEADERS = { Accept: 'application/json', 'X-Requested-By': 'ThoughtSpot' };
/** The headers of the POST examples whose parameters are in the query string. */
export const JSON_POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Requested-By': 'ThoughtSpot' };
/** The headers of the POST examples with a form body (`-d '…'`). */
export const FORM_POST_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', 'X-Requested-By': 'ThoughtSpot' };

/** Starts the emulator and logs the administrator in with the documented login example. */
export async function startConformance(): Promise<Conformance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-conformance-'));
  const emu = await startEmulator({ port: 0, dataDir, demo: true, now: '2002-01-15T12:00:00Z' });
  const login = await example(emu.url, 'POST', '/session/login', FORM_POST_HEADERS, 'username=tsadmin&password=admin&rememberme=false');
  assert.ok(login.status === 200 || login.status === 204, `login: ${login.status} ${login.text}`);
  const adminCookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const clients: AnalyticsServiceClient[] = [];
  return {
    emu,
    adminCookie,
    client(username = 'tsadmin', password = 'admin') {
      const c = new AnalyticsServiceClient({ url: emu.url, username, password });
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) await c.close();
      await emu.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asserts a JSON answer (status and `application/json`). */
export function assertJson(a: Answer, status = 200): void {
  assert.equal(a.status, status, a.text);
  assert.match(a.contentType, /^application\/json/);
}

/** Asserts a 204: no body. */
export function assertNoContent(a: Answer): void {
  assert.equal(a.status, 204, a.text);
  assert.equal(a.text, '');
}

/** Asserts the service's error body (docs/service-notes.md §1.6): `incident_id_guid` and `debug`, a JSON-encoded list of strings. */
export function assertErrorBody(a: Answer, status: number, mentions?: RegExp): void {
  assertJson(a, status);
  const body = a.json as Record<string, unknown>;
  assert.match(String(body.incident_id_guid), /^[0-9a-f-]{36}$/);
  assert.equal(typeof body.debug, 'string');
  const debug = JSON.parse(body.debug as string) as unknown;
  assert.ok(Array.isArray(debug) && debug.every((d) => typeof d === 'string'), 'debug is a JSON-encoded list of strings');
  if (mentions) assert.match((debug as string[]).join(' '), mentions);
}

/** Asserts a visualization header (docs/service-interface.md §2.4). */
export function assertVizHeader(h: Record<string, unknown>): void {
  for (const k of ['id', 'name', 'author', 'modifiedBy', 'owner']) assert.equal(typeof h[k], 'string', k);
  for (const k of ['created', 'modified']) assert.equal(typeof h[k], 'number', k);
}

/** Asserts an object header (docs/service-interface.md §2.4). */
export function assertObjectHeader(h: Record<string, unknown>): void {
  assertVizHeader(h);
  for (const k of ['isAutoCreated', 'isAutoDelete']) assert.equal(typeof h[k], 'boolean', k);
  if ('description' in h) assert.equal(typeof h.description, 'string');
}

/** Asserts a search data result (docs/service-interface.md §2.5). */
export function assertSearchResult(r: Record<string, unknown>): void {
  assert.ok(Array.isArray(r.columnNames) && r.columnNames.every((c) => typeof c === 'string'), 'columnNames');
  assert.ok(Array.isArray(r.data), 'data');
  for (const k of ['samplingRatio', 'totalRowCount', 'rowCount', 'pageSize', 'offset']) assert.equal(typeof r[k], 'number', k);
  for (const row of r.data as unknown[]) assert.ok(Array.isArray(row) && row.length === (r.columnNames as string[]).length, 'COMPACT rows in columnNames order');
}
