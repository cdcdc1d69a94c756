// The service operations are declared once (common/src/api/operations.ts): every layer names each the
// same, the generation switch and the deadline classes come from the table, docs/service-interface.md
// §10.6 holds the table's rows, and no second list of operations or old names is left in the source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
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
      assert.ok(v1.has(name), `PublicApi.${name}`);
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
  // the v2 error of an operation goes to a table name too: the old hand-kept deadline list is gone
  assert.doesNotMatch(readFileSync(join(root, 'common/src/api/session.ts'), 'utf8'), /DEADLINE_CLASSES/);
});
