/**
 * Stale while revalidating (server/src/protocolCatalog.ts): once the client has answered the columns of a
 * data source, a later request that gets no answer (the service is unreachable) uses the last known
 * columns, and a document that names that data source gets one Information diagnostic saying how old
 * they are and why. Only a catalog that never answered is unknown. A fresh answer ends the notice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolCatalog, type RequestSender } from '../../server/src/protocolCatalog';

const flights = { id: 'f-1', name: 'Flights', columns: [{ name: 'origin', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }] };

/** The client side of the catalog protocol: answers while `up`, never answers while down. */
function client() {
  const state = { up: true, asked: 0 };
  const sender: RequestSender = {
    sendRequest<R>(method: string): Promise<R> {
      state.asked++;
      if (!state.up) return new Promise<R>(() => undefined);
      if (method === 'tsq/dataSources') return Promise.resolve([{ id: 'f-1', name: 'Flights', type: 'WORKSHEET' }] as R);
      return Promise.resolve(flights as R);
    },
  };
  return { state, sender };
}

const timer = { setTimeout: (cb: () => void, ms: number) => { const t = setTimeout(cb, ms); return { dispose: () => clearTimeout(t) }; } };

test('a catalog that never answered stays unknown', async () => {
  const { state, sender } = client();
  state.up = false;
  const catalog = new ProtocolCatalog(sender, { requestTimeout: 30, timer });
  assert.equal(await catalog.getColumns('Flights'), undefined);
  assert.equal(await catalog.getDataSources(), undefined);
  assert.deepEqual(catalog.staleDiagnostics("@datasource 'Flights'\n[origin]"), []);
});

test('after an answer, an unreachable service gives the last known columns and one notice per document', async () => {
  const { state, sender } = client();
  let now = 1_000_000;
  const catalog = new ProtocolCatalog(sender, { requestTimeout: 30, timer, now: () => now });
  assert.deepEqual(await catalog.getColumns('Flights'), flights);
  assert.ok(await catalog.getDataSources());

  // the service goes away; Refresh Catalog (tsq/catalogChanged) drops the cache
  state.up = false;
  catalog.clear();
  now += 120_000;
  assert.deepEqual(await catalog.getColumns('Flights'), flights, 'the last known columns');
  assert.equal((await catalog.getDataSources())?.length, 1, 'the last known list');
  const diags = catalog.staleDiagnostics("@datasource 'Flights'\n[origin] [nope]\n[origin]");
  assert.equal(diags.length, 1);
  assert.equal(diags[0].severity, 3 /* Information */);
  assert.match(String(diags[0].message), /^Columns of 'Flights' from 2 min ago; the service is unreachable \(no answer within 0\.03 s\)/);
  assert.deepEqual(catalog.staleDiagnostics("@datasource 'Sales'\n[x]"), [], 'a document about another data source');
  assert.equal(catalog.staleDiagnostics('[origin]', 'flights').length, 1, 'the default data source counts');

  // back: the next request answers and the notice goes
  state.up = true;
  assert.deepEqual(await catalog.getColumns('Flights'), flights);
  assert.deepEqual(catalog.staleDiagnostics("@datasource 'Flights'\n[origin]"), []);
});
