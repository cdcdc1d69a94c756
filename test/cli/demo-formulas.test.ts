// The demo's answer and liveboard with formulas (emulator/src/demo.ts: `Late flights by origin state`, whose
// answer formulas count late flights and take each state's share of all delay with group_aggregate, and the
// liveboard `Flight Delays by Airport`, whose visualizations have formulas of their own): `tsq tml export`
// writes each with its `formulas`, `tsq check` finds nothing wrong in either, and the liveboard's
// visualizations answer `liveboard/data` with their formula columns.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

describe('the demo answer and liveboard with formulas', () => {
  const fx = liveFixture('tsq-demo-formulas-');

  for (const [type, name, member] of [['answer', 'Late flights by origin state', 'answer'], ['liveboard', 'Flight Delays by Airport', 'liveboard']] as const) {
    test(`tsq tml export of the ${type} ${name} writes its formulas, and tsq check finds it clean`, async () => {
      const r = await tsq(['tml', 'export', '--type', type, name, '-o', fx.dir, ...fx.conn], { env: ENV });
      assert.equal(r.code, 0, r.stderr);
      const file = r.stdout.trim();
      const doc = parse(readFileSync(file, 'utf8')) as Record<string, any>;
      const answers = member === 'answer' ? [doc.answer] : (doc.liveboard.visualizations as { answer: unknown }[]).map((v) => v.answer);
      const exprs = answers.flatMap((a: any) => (a.formulas ?? []).map((f: { expr: string }) => f.expr));
      assert.ok(exprs.some((e: string) => /group_(aggregate|sum)/.test(e)), exprs.join(' | '));
      const c = await tsq(['check', file, ...fx.conn], { env: ENV });
      assert.equal(c.code, 0, c.stdout + c.stderr);
    });
  }

  test('the liveboard\'s visualizations answer with their formula columns (v2 liveboard/data)', async () => {
    const auth = await fetch(`${fx.live.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
    const { token } = (await auth.json()) as { token: string };
    const r = await fetch(`${fx.live.emu.url}/api/rest/2.0/metadata/liveboard/data`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ metadata_identifier: 'Flight Delays by Airport', record_size: -1 }) });
    const body = (await r.json()) as { contents: { column_names: string[]; data_rows: unknown[][] }[] };
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.deepEqual(body.contents.map((c) => c.column_names), [['Destination State', 'Delayed Share', 'Average Delay'], ['Origin State', 'Origin', 'State Share'], ['Month(Departure)', 'Late Flights']]);
    // the shares of California's airports add up to all of California's delay
    const shares = body.contents[1]!.data_rows.map((row) => row[2] as number);
    assert.ok(shares.length > 3);
    assert.ok(Math.abs(shares.reduce((a, x) => a + x, 0) - 1) < 1e-9, String(shares));
  });
});
