// Shared set-up of the command-line tests: runs the built `tsq` (dist/cli.js, made by esbuild.mjs) as a
// child process, as a script or a person would, with a clean environment (no TSQ_PASSWORD unless given,
// HOME and XDG_CONFIG_HOME in a temporary folder so that no connection file of the machine is read).
// Not a test file itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startLive, type Live } from '../emulator/client-support';
import { readDataBlocks } from '../../common/src/agent/data';

/** The built command line. */
export const CLI_JS = join(__dirname, '..', '..', 'dist', 'cli.js');

/** The outcome of one run. */
export interface TsqRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A home folder with no connection files. */
export const EMPTY_HOME = mkdtempSync(join(tmpdir(), 'tsq-cli-home-'));

/** The environment of a run: PATH and the given variables only. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: EMPTY_HOME, XDG_CONFIG_HOME: join(EMPTY_HOME, '.config'), LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Starts `tsq ARGS` without waiting; `done` resolves when it exits. */
export function startTsq(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; input?: string; keepStdin?: boolean } = {}): { child: ChildProcess; done: Promise<TsqRun>; output: () => TsqRun } {
  const child = spawn(process.execPath, [CLI_JS, ...args], { cwd: opts.cwd ?? EMPTY_HOME, env: cleanEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  const run: TsqRun = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (run.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (run.stderr += d));
  if (opts.keepStdin) child.stdin!.write(opts.input ?? '');
  else child.stdin!.end(opts.input ?? '');
  const done = new Promise<TsqRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      run.code = code;
      run.signal = signal;
      resolve(run);
    });
  });
  return { child, done, output: () => run };
}

/** Runs `tsq ARGS` to its end. */
export function tsq(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {}): Promise<TsqRun> {
  return startTsq(args, opts).done;
}

/** Resolves when `test()` holds, checking on every stderr chunk of the child; rejects if it exits first. */
export function waitForOutput(child: ChildProcess, output: () => TsqRun, test: (run: TsqRun) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (test(output())) {
        cleanup();
        resolve();
      }
    };
    const exited = () => {
      cleanup();
      const o = output();
      reject(new Error(`tsq exited (${String(o.code)}) before the expected output; stderr:\n${o.stderr}`));
    };
    const cleanup = () => {
      child.stderr!.off('data', check);
      child.stdout!.off('data', check);
      child.off('close', exited);
    };
    child.stderr!.on('data', check);
    child.stdout!.on('data', check);
    child.once('close', exited);
    check();
  });
}

/** One request a recording server received. */
export interface Recorded {
  method: string;
  url: string;
  body: string;
  authorization?: string;
}

/** An HTTP(S) server that records every request and answers each with `answer` (default: 200 with an empty JSON object). */
export async function recordingServer(tls?: { key: string; cert: string }, answer: { status: number; contentType: string; body: string } = { status: 200, contentType: 'application/json', body: '{}' }): Promise<{ url: string; requests: Recorded[]; tlsErrors: number; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', body, authorization: req.headers.authorization });
      res.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createServer(handler);
  const state = { tlsErrors: 0 };
  server.on('tlsClientError', () => state.tlsErrors++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    get tlsErrors() {
      return state.tlsErrors;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A proxy in front of the emulator that holds the `hold`-th request to `path` (1-based; by default the
 * TML export) until `release()`; `held` resolves when it arrives. Plain HTTP relaying, bodies buffered.
 */
export async function holdingProxy(target: string, hold: number, path = '/metadata/tml/export'): Promise<{ url: string; held: Promise<void>; release: () => void; close: () => Promise<void> }> {
  let exports = 0;
  let arrived!: () => void;
  const held = new Promise<void>((r) => (arrived = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      void (async () => {
        if (req.url?.includes(path) && ++exports === hold) {
          arrived();
          await released;
        }
        const body = Buffer.concat(chunks);
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length' && k !== 'connection')) as Record<string, string>;
        const r = await fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, body: body.length ? body : undefined });
        const out: Record<string, string | string[]> = {};
        r.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
        });
        const cookies = r.headers.getSetCookie();
        if (cookies.length) out['set-cookie'] = cookies;
        res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    release,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A password for the echo attack: a space, `!`, `<>` (HTML), `&`, a quote and a backslash (JSON), a non-ASCII letter (UTF-8 bytes). */
export const ECHOED = `Winter 2026! <ok> & "q" \\ 'é'`;

/** Each form of `pw` that `echoingLoginService` echoes, by label: raw, percent, URI, form, JSON, HTML, base64 and base64url at each offset modulo 3, a Basic header's. */
export function echoedForms(pw: string): [string, string][] {
  const html = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
  return [
    ['raw', pw],
    ['percent', encodeURIComponent(pw)],
    ['uri', encodeURI(pw)],
    ['form', new URLSearchParams({ p: pw }).toString().slice(2)],
    ['json', JSON.stringify(pw)],
    ['html', html(pw)],
    ['html-decimal', [...pw].map((c) => `&#${c.codePointAt(0)};`).join('')],
    ...['', ':', 'u:'].flatMap((prefix, k): [string, string][] => [
      [`base64-${k}`, Buffer.from(`${prefix}${pw}`).toString('base64')],
      [`base64url-${k}`, Buffer.from(`${prefix}${pw}`).toString('base64url')],
    ]),
    ['basic', Buffer.from(`tsadmin:${pw}`).toString('base64')],
  ];
}

/**
 * A service that answers a login (a form or JSON body with a `password`) with HTTP 500 and an error whose
 * message echoes that password in each form of `echoedForms` (`login refused: raw (…), percent (…), …`),
 * and every other call with 401, so that the client logs in.
 */
export async function echoingLoginService(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const pw = new URLSearchParams(body).get('password') ?? (body.startsWith('{') ? (JSON.parse(body) as { password?: string }).password : undefined);
      if (!pw) return res.writeHead(401, { 'content-type': 'application/json' }).end('{}');
      const echo = echoedForms(pw).map(([label, form]) => `${label} (${form})`).join(', ');
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `login refused: ${echo}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Asserts that no form of `pw` (`echoedForms`) is in `text`, nor in what its data blocks hold, nor in any base64 run of it decoded. */
export function assertNoForm(text: string, pw: string, where: string): void {
  const blocks = readDataBlocks(text).map(String).join('\n');
  for (const [label, form] of echoedForms(pw)) {
    assert.ok(!text.includes(form), `the ${label} form is in ${where}: ${text}`);
    assert.ok(!blocks.includes(form), `the ${label} form is in a data block of ${where}`);
  }
  for (const run of `${text}\n${blocks}`.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
    for (const encoding of ['base64', 'base64url'] as const) for (const shift of [0, 1, 2, 3]) assert.ok(!Buffer.from(run.slice(shift), encoding).toString('utf8').includes(pw.slice(0, 8)), `a base64 run of ${where} holds the password: ${run}`);
  }
}

/**
 * Runs the built `tsq` with `args(proxyUrl)` through a `holdingProxy` of `target` that holds the second
 * request to `path`; sends SIGINT while it is held, waits until tsq says it stops after the batch in
 * flight, then lets that batch be answered: the run's outcome.
 */
export async function interruptSecondBatch(target: string, path: string, args: (proxyUrl: string) => string[], env: Record<string, string>): Promise<TsqRun> {
  const proxy = await holdingProxy(target, 2, path);
  try {
    const run = startTsq(args(proxy.url), { env });
    await proxy.held;
    run.child.kill('SIGINT');
    // the batch in flight is answered only once tsq has taken the interrupt
    await waitForOutput(run.child, run.output, (o) => /^Ctrl-C: stopping after the batch in flight/m.test(o.stderr));
    proxy.release();
    return await run.done;
  } finally {
    proxy.release();
    await proxy.close();
  }
}

/**
 * The Ctrl-C case of `tsq tml export --all` of `total` objects in batches of 50 (`args`, then `-o out`
 * and tsadmin on `target`), interrupted during the second batch (a request to `path`): exit
 * 130 saying 100 of `total` files were written, a line of stdout for each, and the 100 whole files in
 * `out`, each named `*suffix`.
 */
export async function assertExportInterrupted(c: { target: string; path: string; args: string[]; env: Record<string, string>; out: string; total: number; suffix: string }): Promise<void> {
  const r = await interruptSecondBatch(c.target, c.path, (url) => [...c.args, '-o', c.out, '--url', url, '--user', 'tsadmin'], c.env);
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, new RegExp(`interrupted \\(Ctrl-C\\): 100 of ${c.total} files written to .*interrupted \\(batch 2 of 3\\); the rest were not exported`));
  // stdout names each file (a name holding the password redacted: tsadmin's)
  assert.equal(r.stdout.split('\n').filter(Boolean).length, 100);
  const written = readdirSync(c.out);
  assert.equal(written.length, 100, 'whole files only, no part file');
  assert.ok(written.every((f) => f.endsWith(c.suffix)), written.join(' '));
}

/** What `liveFixture` gives the tests of its block once its `before` has run. */
export interface LiveFixture {
  /** The running emulator (the demo data). */
  readonly live: Live;
  /** A temporary folder of the block's own. */
  readonly dir: string;
  /** The connection options of a `tsq` run as the administrator: `--url <emulator> --user tsadmin`. */
  readonly conn: string[];
}

/**
 * The emulator set-up of a block of command-line tests: before its tests an emulator is started
 * (`startLive(start)`), a temporary folder made (named `prefix…`) and `setup` run with both; after them
 * the emulator stopped and the folder removed. Call it inside `describe`; read the fields in the tests
 * (reading one before the block's `before` has run throws).
 */
export function liveFixture(prefix: string, start: Parameters<typeof startLive>[0] = {}, setup?: (f: LiveFixture) => Promise<void> | void): LiveFixture {
  let state: { live: Live; dir: string } | undefined;
  let dir: string | undefined;
  const ready = (): { live: Live; dir: string } => {
    if (!state) throw new Error('liveFixture read before its before hook ran');
    return state;
  };
  const fixture: LiveFixture = {
    get live() { return ready().live; },
    get dir() { return ready().dir; },
    get conn() { return ['--url', ready().live.emu.url, '--user', 'tsadmin']; },
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    state = { live: await startLive(start), dir };
    await setup?.(fixture);
  });
  after(async () => {
    await state?.live.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return fixture;
}
