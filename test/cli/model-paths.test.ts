// Table paths of a model in `tsq check` (the built CLI) against a real emulator: on the demo's `Flights
// Model`, which reads the airports table twice (`airports_1` origin, `airports_2` destination), a column
// written with its table path (`[airports_2::city]`) is the model's column of that path, as the emulator
// answers it; an unknown path or a path's unknown column is an unknown column naming it, with a
// did-you-mean. On a table (no paths), `[x::column]` stays the column of that name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

describe('tsq check and a model\'s table paths', () => {
  const file = (name: string, text: string): string => {
    const f = join(fx.dir, name);
    writeFileSync(f, text);
    return f;
  };
  const fx = liveFixture('tsq-paths-');

  test('[airports_2::city] on the model is known to the check, and the emulator answers it', async () => {
    const f = file('paths.tsq', "@datasource 'Flights Model'\n[airports_2::city] [airports_1::state] count [Departure] top 3\n");
    const c = await tsq(['check', f, ...fx.conn], { env: ENV });
    assert.equal(c.code, 0, c.stdout + c.stderr);
    assert.equal(c.stdout.trim(), '');
    const q = await tsq(['query', f, '--format', 'json', ...fx.conn], { env: ENV });
    assert.equal(q.code, 0, q.stdout + q.stderr);
  });

  test('an unknown path, or a path\'s unknown column, is an unknown column naming it, with a did-you-mean', async () => {
    const f = file('bad.tsq', "@datasource 'Flights Model'\n[airports_9::city] [airports_2::nope] [airports_2::ctiy]\n");
    const r = await tsq(['check', f, ...fx.conn], { env: ENV });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /:2:2: error: Unknown column \[airports_9::city\] in "Flights Model"\. Did you mean \[airports_\d::city\]/);
    assert.match(r.stdout, /:2:21: error: Unknown column \[airports_2::nope\] in "Flights Model"\./);
    assert.match(r.stdout, /:2:40: error: Unknown column \[airports_2::ctiy\] in "Flights Model"\. Did you mean \[airports_2::city\]/);
    // the emulator refuses them too
    for (const q of ['[airports_9::city]', '[airports_2::nope]']) {
      const run = await tsq(['query', file('q.tsq', `@datasource 'Flights Model'\n${q}\n`), ...fx.conn], { env: ENV });
      assert.notEqual(run.code, 0, `${q}: ${run.stdout}`);
    }
  });

  test('on a table without paths, [x::column] is the column of that name', async () => {
    const f = file('table.tsq', "@datasource 'flights'\n[anything::origin] count [flights_1::delay]\n");
    const c = await tsq(['check', f, ...fx.conn], { env: ENV });
    assert.equal(c.code, 0, c.stdout + c.stderr);
  });
});
