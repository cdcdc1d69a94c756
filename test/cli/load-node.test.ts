// `node_address` of a StartLoad answer (docs/service-notes.md §4.4) names the node a load cycle goes on
// to, and the client logs in there. A service that names a host the person never approved must not get
// the data-load login: `tsq load` against the real emulator, behind a proxy that rewrites StartLoad's
// answer to name a listener on 127.0.0.2 (another host to the client, a port that records every request).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countRows, startLive, type Live } from '../emulator/client-support';
import { tsq } from './cli-support';

const DEMO = join(__dirname, '..', 'fixtures', 'demo-workspace');
const STOCKS = 'demo.engine_default_schema.stocks';
const STOCKS_SQL = '"demo.engine_default_schema"."stocks"';
const SECRET = 'Node-unmistakable-Secret-3318';

let live: Live;
let dir: string;
let proxy: Server;
let proxyUrl: string;
let node: Server;
let nodePort: number;
/** What the unapproved node received: method, path and whether a credential came with it. */
const atNode: { method: string; url: string; credential: boolean }[] = [];

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

before(async () => {
  live = await startLive();
  await live.client().updatePassword({ name: 'tsadmin', currentPassword: 'admin', newPassword: SECRET });
  dir = mkdtempSync(join(tmpdir(), 'tsq-node-'));
  node = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      atNode.push({ method: req.method ?? '', url: req.url ?? '', credential: body.includes(SECRET) || !!req.headers.authorization || !!req.headers.cookie });
      // a login is taken; anything else is refused, so that a load that got here ends at once
      if (req.url === '/ts_dataservice/v1/public/session') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(400, { 'content-type': 'text/plain' }).end('not a node');
    });
  });
  nodePort = await listen(node, '127.0.0.2');
  const target = new URL(live.emu.url);
  // forwards every request to the emulator; StartLoad's answer names the node on 127.0.0.2
  proxy = createServer((req: IncomingMessage, res) => {
    const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      const startLoad = req.method === 'POST' && req.url === '/ts_dataservice/v1/public/loads';
      if (!startLoad) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      let text = '';
      answer.setEncoding('utf8').on('data', (d: string) => (text += d));
      answer.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        const rewritten = JSON.stringify({ ...body, node_address: { host: '127.0.0.2', port: nodePort } });
        const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(rewritten)) };
        res.writeHead(answer.statusCode ?? 200, headers).end(rewritten);
      });
    });
    req.pipe(out);
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy, '127.0.0.1')}`;
});

after(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await new Promise((resolve) => node?.close(resolve));
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('node_address on another host', () => {
  test('is refused: no login, password or cookie goes there, the cycle is aborted, the table keeps its rows', async () => {
    const csv = join(dir, 'prices.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const before = await countRows(live, STOCKS_SQL);
    atNode.length = 0;
    const r = await tsq(['load', csv, '--table', STOCKS, '--url', proxyUrl, '--user', 'tsadmin'], { env: { TSQ_PASSWORD: SECRET } });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /The service asked to continue the load on 127\.0\.0\.2:\d+ \(node_address\), a host this connection does not use \(127\.0\.0\.1\)/);
    assert.match(r.stderr, /nothing was sent there/);
    assert.match(r.stderr, /Cycle [0-9a-f-]{36} was aborted and demo\.engine_default_schema\.stocks was not changed/);
    assert.deepEqual(atNode, []);
    assert.equal(await countRows(live, STOCKS_SQL), before);
    assert.ok(!r.stderr.includes(SECRET));
  });

  test('goes ahead when the host is one of your own connection\'s "loadNodes" (and a project file cannot add one)', async () => {
    const csv = join(dir, 'approved.csv');
    copyFileSync(join(DEMO, 'new-stock-prices.csv'), csv);
    const config = join(dir, 'connections.json');
    writeFileSync(config, JSON.stringify({ connections: [{ name: 'mine', url: proxyUrl, username: 'tsadmin', loadNodes: ['127.0.0.2'] }] }));
    atNode.length = 0;
    await tsq(['load', csv, '--table', STOCKS, '--config', config, '--connection', 'mine'], { env: { TSQ_PASSWORD: SECRET } });
    // the approved node got the cycle's login (the recorder is no service: the load fails after it)
    assert.ok(atNode.some((q) => q.method === 'POST' && q.url === '/ts_dataservice/v1/public/session' && q.credential), JSON.stringify(atNode));

    // a repository's tsq.json, approved with tsq trust, still may not name another host for loads
    const repo = mkdtempSync(join(dir, 'repo-'));
    writeFileSync(join(repo, 'tsq.json'), JSON.stringify({ connections: [{ name: 'team', url: proxyUrl, username: 'tsadmin', loadNodes: ['127.0.0.2'] }], default: 'team' }));
    const home = mkdtempSync(join(dir, 'home-'));
    const env = { TSQ_PASSWORD: SECRET, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const trusted = await tsq(['trust'], { cwd: repo, env });
    assert.equal(trusted.code, 0, trusted.stderr);
    atNode.length = 0;
    const r = await tsq(['load', csv, '--table', STOCKS], { cwd: repo, env });
    assert.match(r.stderr, /"loadNodes" of connection "team" is ignored/);
    assert.match(r.stderr, /a host this connection does not use/);
    assert.deepEqual(atNode, []);
  });
});
