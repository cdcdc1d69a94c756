// `tsq check` (the built command line as a process, against the demo emulator) on the token form of the
// search language, as ThoughtSpot writes it (docs/service-notes.md §2.11): every construct of it, in the
// shapes of an exported Answer's `search_query` on the demo flights, is clean; a word after the dot that is
// neither a bucket of a date column nor a value its column can hold is an error naming both readings, and
// `= true` on a column that is no BOOL a warning to quote it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore, type Core } from '../emulator/core-support';
import { tsq } from './cli-support';

let core: Core;
let dir: string;
let seed: string;
before(async () => {
  // beside the demo, a table with a BOOL column (the demo has none)
  seed = mkdtempSync(join(tmpdir(), 'tsq-token-form-seed-'));
  writeFileSync(join(seed, 'delays.csv'), 'origin,is delayed,delay\nSEA,true,12\nPDX,false,0\n');
  writeFileSync(join(seed, 'model.json'), JSON.stringify({ tables: [{ database: 'token', name: 'delays', csv: 'delays.csv', columns: [
    { name: 'origin', dataType: 'VARCHAR' }, { name: 'is delayed', dataType: 'BOOL' }, { name: 'delay', dataType: 'INT32' },
  ] }] }));
  core = await startCore({ seed });
  dir = mkdtempSync(join(tmpdir(), 'tsq-token-form-'));
});
after(async () => {
  await core?.stop();
  for (const d of [dir, seed]) if (d) rmSync(d, { recursive: true, force: true });
});

/** `tsq check` of `text` as a file: its exit code, the findings' lines and the summary. */
async function check(text: string): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  const file = join(dir, `q${Math.random().toString(36).slice(2)}.tsq`);
  writeFileSync(file, text);
  const r = await tsq(['check', file, '--url', core.emu.url, '--user', 'tsadmin'], { env: { TSQ_PASSWORD: 'admin' } });
  return { code: r.code, lines: r.stdout.split('\n').filter(Boolean), stderr: r.stderr };
}

test('tsq check: every construct of the token form is clean on the demo flights, its worksheet and a BOOL column', async () => {
  const queries = [
    '[origin].SEA [delay]',
    "[destination].'LAX' [delay]",
    '[delay].10 [origin]',
    '[origin] = [origin].SEA [origin].PDX [delay]',
    '[origin] != [origin].SEA [delay]',
    "[delay] [date].'last 180 days'",
    "[delay] [date].monthly [date].'this month'",
    '[flights_1::origin] [flights_1::delay]',
    '[origin].{null} [delay]',
    '[delay] [date] between [date].01/15/2001 and [date].03/31/2001',
    '[delay] by [origin], [destination]',
    'top 20 [origin] ranked by count [destination]',
    '[date].daily [delay] sort by [date] [date].daily descending',
  ];
  const r = await check(`@datasource 'flights'\n\n${queries.join('\n\n')}\n\n@datasource 'Flights Worksheet'\n[flights_1::Origin].SEA [flights_1::Delay]\n\n@datasource 'delays'\n[is delayed].true [delay]\n\n[is delayed] = false [origin]\n`);
  assert.deepEqual(r.lines, []);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /0 errors, 0 warnings/);
});

test('tsq check: a word after the dot that fits neither reading is an error naming both; = true on a text column a warning', async () => {
  const r = await check("@datasource 'flights'\n[date].SEA [delay]\n\n[delay].monthly [origin]\n\n[origin] = true [delay]\n");
  assert.equal(r.code, 1, r.stderr);
  const [date, delay, bool] = r.lines;
  assert.match(date!, /:2:8: error: \[date\]\.SEA is neither a date bucket \(.*monthly.*\) nor a value of \[date\], which would be a date .*\[tsq\.unknownBucket\]$/);
  assert.match(delay!, /:4:9: error: \[delay\] is INT32: the date bucket "monthly" does not apply to it.*, nor is "monthly" a value of \[delay\], which would be a number\. \[tsq\.bucketOnNonDate\]$/);
  assert.match(bool!, /:6:12: warning: \[origin\] is VARCHAR, not BOOL: true is a text here; write it in single quotes \('true'\)\. \[tsq\.unknownWord\]$/);
});
