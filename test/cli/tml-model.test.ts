// Models as code with the built `tsq` against a real emulator: `tsq tml export` of the demo model writes
// `<name>.worksheet.tml`; `tsq check` and `tsq tml validate` take it (no diagnostic), and name a broken join
// or column, or a wrong formula, at its line; `tsq tml import` sends a valid one (the model then answers
// `tsq query`, its formula column too) and none with a local error. `--offline` checks the definition
// without the tables' columns.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

describe('tsq and model TML', () => {
  let file = '';
  const fx = liveFixture('tsq-model-', {}, async () => {
    const r = await tsq(['tml', 'export', '--type', 'worksheet', 'Flights Model', '-o', fx.dir, ...fx.conn], { env: ENV });
    assert.equal(r.code, 0, r.stderr);
    file = r.stdout.trim();
  });

  test('the exported model is a .worksheet.tml that tsq check and tsq tml validate take', async () => {
    assert.equal(file, join(fx.dir, 'Flights Model.worksheet.tml'));
    const c = await tsq(['check', file, ...fx.conn], { env: ENV });
    assert.equal(c.code, 0, c.stdout + c.stderr);
    const v = await tsq(['tml', 'validate', file, ...fx.conn], { env: ENV });
    assert.equal(v.code, 0, v.stdout + v.stderr);
  });

  test('a join of incompatible types and an unknown column are named at their lines; import sends nothing', async () => {
    const bad = join(fx.dir, 'Broken.worksheet.tml');
    const text = readFileSync(file, 'utf8').replace('name: Flights Model', 'name: Broken Model').replace('[airports::iata]', '[airports::latitude]').replace('flights_1::distance', 'flights_1::miles');
    writeFileSync(bad, text);
    const lines = text.split('\n');
    const lineOf = (s: string): number => lines.findIndex((l) => l.includes(s)) + 1;
    for (const args of [['check', bad], ['tml', 'validate', bad]]) {
      const r = await tsq([...args, ...fx.conn], { env: ENV });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`:${lineOf('[airports::latitude]')}:\\d+: error: join flights_origin: \\[flights::origin\\] is VARCHAR and \\[airports::latitude\\] is DOUBLE`));
      assert.match(r.stdout, new RegExp(`:${lineOf('flights_1::miles')}:\\d+: error: column Distance: table flights has no column miles`));
    }
    const i = await tsq(['tml', 'import', bad, ...fx.conn], { env: ENV });
    assert.notEqual(i.code, 0);
    const q = join(fx.dir, 'broken.tsq');
    writeFileSync(q, "@datasource 'Broken Model'\n[Origin]\n");
    assert.notEqual((await tsq(['query', q, ...fx.conn], { env: ENV })).code, 0, 'no model was created');
  });

  test("a wrong formula is named at its line and column by tsq check and tsq tml validate; the model's formula column answers tsq query", async () => {
    const bad = join(fx.dir, 'Wrong Formula.worksheet.tml');
    const text = readFileSync(file, 'utf8').replace('name: Flights Model', 'name: Wrong Formula Model').replace('sum ( if (', 'summ ( if (');
    writeFileSync(bad, text);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('summ ( if (')) + 1;
    const column = lines[line - 1]!.indexOf('summ') + 1;
    for (const args of [['check', bad], ['tml', 'validate', bad]]) {
      const r = await tsq([...args, ...fx.conn], { env: ENV });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`:${line}:${column}: error: formula Delayed Share .*summ`));
    }
    const q = join(fx.dir, 'share.tsq');
    writeFileSync(q, "@datasource 'Flights Model'\n[Origin State] [Delayed Share] [Origin State] = 'WA'\n");
    const r = await tsq(['query', q, '--format', 'csv', ...fx.conn], { env: ENV });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rows = r.stdout.trim().split(/\r?\n/);
    assert.equal(rows[0], 'Origin State,Delayed Share');
    assert.match(rows[1]!, /^WA,0\.\d+$/);
  });

  test('import creates a valid model, which then answers a query', async () => {
    const copy = join(fx.dir, 'Copy.worksheet.tml');
    writeFileSync(copy, readFileSync(file, 'utf8').replace(/^guid: .*\n/m, '').replace('name: Flights Model', 'name: Flights Model Copy'));
    const i = await tsq(['tml', 'import', copy, ...fx.conn], { env: ENV });
    assert.equal(i.code, 0, i.stdout + i.stderr);
    const query = join(fx.dir, 'copy.tsq');
    writeFileSync(query, "@datasource 'Flights Model Copy'\n[Origin City] [Destination State] [Distance] [Origin City] = 'Seattle' top 3\n");
    const q = await tsq(['query', query, '--format', 'csv', ...fx.conn], { env: ENV });
    assert.equal(q.code, 0, q.stdout + q.stderr);
    const rows = q.stdout.trim().split(/\r?\n/);
    assert.equal(rows[0], 'Origin City,Destination State,Total Distance');
    assert.equal(rows.length, 4);
    assert.ok(rows.slice(1).every((r) => r.startsWith('Seattle,')), q.stdout);
  });

  test('--offline checks the definition, not the columns of its tables', async () => {
    const bad = join(fx.dir, 'Offline.worksheet.tml');
    writeFileSync(bad, readFileSync(file, 'utf8').replace('flights_1::distance', 'flights_1::miles').replace('name: Origin City', 'name: Departure'));
    const r = await tsq(['check', '--offline', bad], { env: ENV });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /column Departure is not unique/);
    assert.doesNotMatch(r.stdout, /miles/);
  });
});
