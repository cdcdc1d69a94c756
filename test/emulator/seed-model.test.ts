// A model in a seed folder (model.json `models`, emulator/model.schema.json, emulator/src/seed.ts): the
// schema takes the demo's model; a seed with a model over its CSV tables starts and answers through the
// join; a model whose join names a missing column stops the start with a message naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoSeed } from '../../emulator/src/demo';
import { startEmulator } from '../../emulator/src/app';
import { readSeedFolder } from '../../emulator/src/seed';
import { stableGuid } from '../../emulator/src/guid';

function seedFolder(model: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-seed-model-'));
  writeFileSync(join(dir, 'orders.csv'), 'id,customer,amount\n1,c1,10\n2,c2,5\n3,c1,7\n4,c9,1\n');
  writeFileSync(join(dir, 'customers.csv'), 'code,city\nc1,Oslo\nc2,Bergen\n');
  writeFileSync(join(dir, 'model.json'), JSON.stringify(model));
  return dir;
}

const shop = (on: string): unknown => ({
  tables: [{ database: 'shop', name: 'orders', csv: 'orders.csv' }, { database: 'shop', name: 'customers', csv: 'customers.csv' }],
  models: [{ name: 'Sales', tables: [{ name: 'orders' }, { name: 'customers' }], joins: [{ name: 'buyer', source: 'orders', destination: 'customers', type: 'LEFT_OUTER', on }], columns: [{ name: 'City', column_id: 'customers::city' }, { name: 'Amount', column_id: 'orders::amount' }] }],
});

test('the schema takes the demo model, and refuses a model column with neither column_id nor formula_id', () => {
  const dir = seedFolder({ models: demoSeed().models });
  try {
    assert.doesNotThrow(() => readSeedFolder(dir));
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ models: [{ name: 'M', tables: [{ name: 't' }], columns: [{ name: 'x' }] }] }));
    assert.throws(() => readSeedFolder(dir), /\/models\/0\/columns\/0/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a seed model over CSV tables answers through its LEFT_OUTER join (an order of an unknown customer has no city)', async () => {
  const dir = seedFolder(shop('[orders::customer] = [customers::code]'));
  const emu = await startEmulator({ port: 0, dataDir: join(dir, 'data'), seed: dir });
  try {
    const login = await fetch(`${emu.url}/callosum/v1/tspublic/v1/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=tsadmin&password=admin' });
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const qs = new URLSearchParams({ query_string: '[City] [Amount]', data_source_guid: stableGuid('worksheet', 'Sales') });
    const r = await fetch(`${emu.url}/callosum/v1/tspublic/v1/searchdata?${qs}`, { method: 'POST', headers: { cookie } });
    const body = (await r.json()) as { columnNames: string[]; data: unknown[][] };
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.deepEqual([body.columnNames, body.data], [['City', 'Total Amount'], [['Bergen', 5], ['Oslo', 17], [null, 1]]]);
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a seed model whose join names a missing column stops the start, naming the join and the column', async () => {
  const dir = seedFolder(shop('[orders::customer] = [customers::id]'));
  try {
    await assert.rejects(startEmulator({ port: 0, dataDir: join(dir, 'data'), seed: dir }), /worksheet Sales: worksheet\.joins\[0\]\.on: join buyer: table customers has no column id/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
