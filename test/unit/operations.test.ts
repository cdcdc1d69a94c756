// The service operations are declared once (common/src/api/operations.ts): every layer names each the
// same, the generation switch and the deadline classes come from the table, docs/service-interface.md
// §10.6 holds the table's rows, and no second list of operations or old names is left in the source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  AnalyticsServiceClient,
  deadlineClassOf,
  FACADE_OPERATIONS,
  OPERATION_NAMES,
  OperationUnavailableError,
  operationsTableRows,
  PublicApi,
  PublicApiV2,
  SERVICE_OPERATIONS,
  isRepeatable,
  v1Absence,
  v2Absence,
} from '../../common/src/api';
import { LoadApi } from '../../common/src/api/loadApi';
import { createService } from '../../client/src/serviceAdapter';

const root = join(__dirname, '..', '..');

function methodsOf(proto: object): Set<string> {
  return new Set(Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor'));
}

test('each operation has one name: a method of the facade, of the API class that implements it, and of the extension service', () => {
  const facade = methodsOf(AnalyticsServiceClient.prototype);
  const v1 = methodsOf(PublicApi.prototype);
  const v2 = methodsOf(PublicApiV2.prototype);
  const service = createService({ url: 'http://127.0.0.1:9', username: 'u' }, () => 'p') as unknown as Record<string, unknown>;
  for (const name of OPERATION_NAMES) {
    const op = SERVICE_OPERATIONS[name];
    assert.ok(facade.has(name), `AnalyticsServiceClient.${name}`);
    if (op.api === 'public') {
      assert.equal(v1.has(name), v1Absence(name) === undefined, `PublicApi.${name} exists exactly when the table gives a v1 call`);
      assert.equal(v2.has(name), v2Absence(name) === undefined, `PublicApiV2.${name} exists exactly when the table gives a v2 call`);
      assert.equal(typeof service[name], 'function', `the extension's service has ${name}`);
    } else assert.ok(v2Absence(name), `${name}: the data-load API has no v2`);
  }
  assert.deepEqual(FACADE_OPERATIONS, OPERATION_NAMES.filter((n) => SERVICE_OPERATIONS[n].api === 'public'));
  // the load API's own names are the table's (startLoad, uploadChunk, …) or its helpers
  const load = methodsOf(LoadApi.prototype);
  for (const name of OPERATION_NAMES.filter((n) => SERVICE_OPERATIONS[n].api === 'load')) assert.ok(facade.has(name), name);
  assert.ok(load.size > 0);
});

test('the deadline class of an operation is its row; any other call is a metadata call', () => {
  for (const name of OPERATION_NAMES) assert.equal(deadlineClassOf(name), SERVICE_OPERATIONS[name].deadline, name);
  assert.equal(deadlineClassOf('getToken'), 'metadata');
  assert.equal(deadlineClassOf('constructor'), 'metadata');
});

test('on a v2-only service an operation v2 does not have fails before anything is sent, naming the page', async () => {
  const sent: string[] = [];
  const client = new AnalyticsServiceClient({ url: 'http://127.0.0.1:9', username: 'u', password: 'p', apiVersion: 'v2', onRequest: (r) => sent.push(r.path) });
  try {
    for (const name of FACADE_OPERATIONS.filter((n) => v2Absence(n) !== undefined)) {
      await assert.rejects(client.generationFor(name), (e: unknown) => e instanceof OperationUnavailableError && e.message.includes('REST API v2 only') && e.message.includes(v2Absence(name)!));
    }
    await assert.rejects(client.refreshMaterializedView('e27f3c1c-a9cd-4996-9029-097449cd6f60'), (e: unknown) => e instanceof OperationUnavailableError && /developers\.thoughtspot\.com/.test(e.message));
    assert.deepEqual(sent, [], 'nothing was sent');
  } finally {
    await client.close();
  }
});

test('docs/service-interface.md §10.6 holds exactly the rows of the table', () => {
  const doc = readFileSync(join(root, 'docs', 'service-interface.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### 10.6'));
  const lines = section.split('\n').filter((l) => /^\| `[a-zA-Z]+` \|/.test(l));
  assert.deepEqual(lines, operationsTableRows());
});

/** Every .ts file under `dir` (node_modules and dist skipped). */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

test('no second list of operations or names: old names are gone, and every operation of a call is a row of the table', () => {
  const files = ['common/src', 'client/src', 'cli/src', 'server/src'].flatMap((d) => sources(join(root, d)));
  // the names the layers used to give the same operations
  const old = /\b(listUsers|syncUsers|addPrivilege|removePrivilege|refreshView|tableDetails)\b/;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    assert.doesNotMatch(text, old, f);
  }
  // calls that are not service operations of the table: sign-in, tokens and the probe (serviceToday.ts), the v2 search helper, a load's poll
  const notOperations = new Set(['login', 'logout', 'loadLogin', 'getToken', 'revokeToken', 'sessionUser', 'probeApiVersion', 'metadataSearch', 'pollLoadStatus']);
  const apiFiles = sources(join(root, 'common/src/api'));
  const named = new Set<string>();
  for (const f of apiFiles) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\boperation: '([a-z][a-zA-Z]+)'|this\.(?:get|post)(?:<[^>]*>)?\(\s*'([a-zA-Z]+)'/g)) named.add(m[1] ?? m[2]!);
  }
  for (const n of named) assert.ok(Object.hasOwn(SERVICE_OPERATIONS, n) || notOperations.has(n), `operation '${n}' is neither a row of SERVICE_OPERATIONS nor a known non-operation call`);
  // an operation passed through a helper (`call({ operation, … })`) has a parameter typed by the table's
  // names, so the compiler checks every name given to it (a helper taking any string is a second list)
  for (const f of apiFiles) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\.call\(\{\s*operation\b(\s*:\s*'([a-zA-Z]+)')?/g)) {
      if (m[2] !== undefined) {
        assert.ok(Object.hasOwn(SERVICE_OPERATIONS, m[2]) || notOperations.has(m[2]), `${f}: operation '${m[2]}' of a session call is not a row of SERVICE_OPERATIONS`);
        continue;
      }
      const before = text.slice(0, m.index);
      const params = [...before.matchAll(/\boperation\??: ([^,)='][^,)=]*?)\s*[,)]/g)];
      const type = params.at(-1)?.[1] ?? '(none)';
      const parts = type.split('|').map((t) => t.trim());
      const ok = parts.includes('OperationName') && parts.every((t) => t === 'OperationName' || notOperations.has(t.replace(/^'(.*)'$/, '$1')));
      assert.ok(ok, `${f}: a session call's operation comes from a parameter typed \`${type}\`, not \`OperationName\``);
    }
  }
  // the v2 error of an operation goes to a table name too: the old hand-kept deadline list is gone
  assert.doesNotMatch(readFileSync(join(root, 'common/src/api/session.ts'), 'utf8'), /DEADLINE_CLASSES/);
});

test('the TML calls follow the table: an import is sent again after a 429 only with VALIDATE_ONLY, on v1 and v2; answerSql goes to v2; each call carries its row\'s name', async () => {
  assert.equal(isRepeatable('importTml'), false);
  assert.equal(isRepeatable('importTml', true), true);
  assert.equal(isRepeatable('exportTml'), true);
  // a real HTTP server: every TML call is refused once with 429 (Retry-After: 0), then answered
  const seen: string[] = [];
  const refused = new Set<string>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = req.url!.split('?')[0]!;
      const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (path.endsWith('/session/login')) return res.writeHead(204).end();
      if (path.endsWith('/auth/token/full')) return json(200, { token: 'a-token-of-the-test' });
      if (path.endsWith('/auth/token/revoke') || path.endsWith('/session/logout')) return res.writeHead(204).end();
      seen.push(path);
      const key = `${path} ${body}`;
      if (!refused.has(key)) {
        refused.add(key);
        return res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{}');
      }
      const result = { response: { status: { status_code: 'OK' }, header: { id_guid: 'g' } } };
      const exported = { info: { name: 'A', status: { status_code: 'OK' }, type: 'answer', id: 'g' }, edoc: 'guid: g' };
      if (path.endsWith('/answer/sql')) return json(200, { metadata_id: 'g', metadata_name: 'A', sql_queries: [{ sql_query: 'SELECT 1' }] });
      const v2 = path.startsWith('/api/rest/2.0');
      if (path.endsWith('/tml/import')) return json(200, v2 ? [result] : { object: [result] });
      if (path.endsWith('/tml/export')) return json(200, v2 ? [exported] : { object: [exported] });
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const apiVersion of ['v1', 'v2'] as const) {
      const ops: string[] = [];
      const client = new AnalyticsServiceClient({ url, username: 'u', password: 'p', apiVersion, rateLimit: { maxWaitMs: 10_000 }, onRequest: (r) => ops.push(r.operation) });
      try {
        seen.length = 0;
        await assert.rejects(client.importTml(['guid: g\nanswer: {}'], 'PARTIAL'), (e: unknown) => (e as { status?: number }).status === 429, `${apiVersion}: a PARTIAL import is not sent again`);
        assert.equal(seen.length, 1, `${apiVersion}: ${JSON.stringify(seen)}`);
        seen.length = 0;
        assert.equal((await client.importTml(['guid: g\nanswer: {}'], 'VALIDATE_ONLY'))[0]!.status.status_code, 'OK');
        assert.equal(seen.length, 2, `${apiVersion}: a VALIDATE_ONLY import is sent again`);
        assert.equal((await client.exportTml([{ identifier: 'g' }]))[0]!.edoc, 'guid: g');
        seen.length = 0;
        assert.match((await client.answerSql('g')).sql_queries[0]!.sql_query, /^SELECT/);
        assert.deepEqual([...new Set(seen)], ['/api/rest/2.0/metadata/answer/sql'], `${apiVersion}: answerSql is v2's (v1 has none)`);
        assert.ok(seen.every((p) => p.startsWith('/api/rest/2.0/')));
        const names = new Set(ops.filter((o) => !['login', 'getToken', 'logout', 'revokeToken'].includes(o)));
        assert.deepEqual([...names].sort(), ['answerSql', 'exportTml', 'importTml']);
      } finally {
        await client.close();
      }
    }
  } finally {
    server.close();
  }
});
