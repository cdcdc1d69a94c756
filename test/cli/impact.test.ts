/**
 * `tsq impact COLUMN --data-source NAME` (dist/cli.js) on a folder of `.tsq` and TML files: one line per
 * use (file:line:col), never a same-named column of another data source nor a commented one; exit 1 when
 * anything uses the column, 0 when nothing does; `--format json` and `--format github`; a symbolic link
 * out of the folder is not followed. With --url, the service's dependents of the column too, or of the data
 * source when the service lists no such column (the emulator's, read here through its own v2
 * metadata/search), exit 1; offline, no connection is made.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsq } from './cli-support';
import { startLive, type Live } from '../emulator/client-support';

const TSQ = "@datasource 'Sales'\n-- [revenue] in a comment\n[revenue] [region]\n\nsum [revenue] by [region]\n\n@datasource 'Other'\n[revenue]\n";
const ANSWER = 'answer:\n  name: A\n  tables:\n  - id: Sales\n    name: Sales\n  search_query: "[region] [Sales::revenue] top 3"\n';
const OUTSIDE = "@datasource 'Sales'\n[revenue]\n";

/** 1-based line and column of each `needle` at the given occurrences of `text`. */
function at(text: string, needle: string, skip = 0): string {
  let i = -1;
  for (let k = 0; k <= skip; k++) i = text.indexOf(needle, i + 1);
  const before = text.slice(0, i);
  return `${before.split('\n').length}:${i - before.lastIndexOf('\n')}`;
}

test('tsq impact: every use of the column of that data source, exit 1; nothing, exit 0; json and github', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tsq-impact-'));
  const outside = mkdtempSync(join(tmpdir(), 'tsq-impact-out-'));
  try {
    mkdirSync(join(root, 'q'));
    writeFileSync(join(root, 'q', 'a.tsq'), TSQ);
    writeFileSync(join(root, 'r.answer.tml'), ANSWER);
    writeFileSync(join(outside, 'x.tsq'), OUTSIDE);
    symlinkSync(outside, join(root, 'linked'));
    const run = await tsq(['impact', 'revenue', '--data-source', 'Sales'], { cwd: root });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), [
      `q/a.tsq:${at(TSQ, 'revenue]', 1)}: uses [revenue] of Sales (tsq)`,
      `q/a.tsq:${at(TSQ, 'revenue]', 2)}: uses [revenue] of Sales (tsq)`,
      `r.answer.tml:${at(ANSWER, 'revenue]')}: uses [revenue] of Sales (answer)`,
    ]);
    assert.match(run.stderr, /3 uses of \[revenue\] of Sales in 2 files/);
    const none = await tsq(['impact', 'cost', '--data-source', 'Sales', '--format', 'json'], { cwd: root });
    assert.equal(none.code, 0, none.stderr);
    assert.deepEqual(JSON.parse(none.stdout), { column: 'cost', dataSource: 'Sales', uses: [] });
    const json = await tsq(['impact', 'revenue', '--data-source', 'Other', '--format', 'json'], { cwd: root });
    assert.equal(json.code, 1);
    const [line, column] = at(TSQ, 'revenue]', 3).split(':').map(Number);
    assert.deepEqual(JSON.parse(json.stdout).uses, [{ file: join('q', 'a.tsq'), line, column, kind: 'tsq' }]);
    const github = await tsq(['impact', 'region', '--data-source', 'Sales', '--format', 'github', '--dir', 'q'], { cwd: root });
    assert.equal(github.code, 1);
    assert.deepEqual(github.stdout.trim().split('\n'), [0, 1].map((k) => {
      const [l, c] = at(TSQ, 'region]', k).split(':');
      return `::warning file=q/a.tsq,line=${l},col=${c},title=tsq impact::uses [region] of Sales`;
    }));
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => live?.stop());

/** The emulator's dependents of the table `name`, or of its column `column` (v2 metadata/search, include_dependent_objects), as `[v1 type, name, id]`. */
async function serviceDependents(name: string, column?: string): Promise<[string, string, string][]> {
  const post = async (path: string, body: unknown, token?: string) => (await fetch(`${live.emu.url}/api/rest/2.0${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })).json() as Promise<any>;
  const { token } = await post('/auth/token/full', { username: 'tsadmin', password: 'admin' });
  const found = await post('/metadata/search', { metadata: [{ identifier: column ?? name, type: column ? 'LOGICAL_COLUMN' : 'LOGICAL_TABLE' }], include_dependent_objects: true, dependent_objects_record_size: -1, record_size: -1 }, token);
  const t = column ? found.find((e: any) => e.metadata_header.ownerName === name) : found[0];
  return Object.entries(t.dependent_objects[t.metadata_id] as Record<string, { id: string; name: string }[]>).flatMap(([type, hs]) => hs.map((h): [string, string, string] => [type, h.name, h.id]));
}

test('tsq impact --url: the workspace\'s uses, then the service\'s dependents of the column (of the data source when it lists no such column); exit 1; none, exit 0', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tsq-impact-svc-'));
  try {
    const text = "@datasource 'flights'\n[origin] [carrier]\n";
    writeFileSync(join(root, 'f.tsq'), text);
    const conn = ['--url', live.emu.url, '--user', 'tsadmin'];
    const env = { TSQ_PASSWORD: 'admin' };
    const expected = await serviceDependents('flights');
    const ofOrigin = await serviceDependents('flights', 'origin');
    // the column's: a liveboard through the model's [Origin] too, which the table's (on it directly) leave out
    assert.ok(ofOrigin.some(([, n]) => n === 'Flight Delays by Airport') && !expected.some(([, n]) => n === 'Flight Delays by Airport'), JSON.stringify({ expected, ofOrigin }));
    const kind: Record<string, string> = { LOGICAL_TABLE: 'worksheet or model', QUESTION_ANSWER_BOOK: 'answer', PINBOARD_ANSWER_BOOK: 'liveboard' };
    const run = await tsq(['impact', 'origin', '--data-source', 'flights', ...conn], { cwd: root, env });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), [
      `f.tsq:${at(text, 'origin]')}: uses [origin] of flights (tsq)`,
      ...ofOrigin.map(([type, name, id]) => `service: ${kind[type]} "${name}" (${id}) depends on [origin] of flights`),
    ]);
    assert.match(run.stderr, new RegExp(`${ofOrigin.length} objects on the service depend on \\[origin\\] of flights`));
    // a column the service does not list ([dest]: flights has [destination]): the data source's dependents, said so
    const json = await tsq(['impact', 'dest', '--data-source', 'flights', '--format', 'json', ...conn], { cwd: root, env });
    assert.equal(json.code, 1, 'no file uses [dest], the service\'s objects depend on flights');
    assert.match(json.stderr, /the service lists no column \[dest\] of flights: these are the dependents of the whole data source/);
    const doc = JSON.parse(json.stdout);
    assert.deepEqual(doc.uses, []);
    assert.equal(doc.complete, true);
    assert.equal(doc.dependentsOf, 'dataSource');
    assert.deepEqual(doc.dependents.map((d: { type: string; name: string; id: string }) => [d.type, d.name, d.id]), expected);
    const github = await tsq(['impact', 'dest', '--data-source', 'flights', '--format', 'github', ...conn], { cwd: root, env });
    assert.equal(github.stdout.trim().split('\n').length, expected.length);
    assert.match(github.stdout, /^::warning title=tsq impact::service: /);
    const none = (await Promise.all(['cars', 'retail_calendar'].map(async (n) => [n, (await serviceDependents(n)).length] as const))).find(([, k]) => k === 0);
    assert.ok(none, 'a demo table nothing depends on');
    const zero = await tsq(['impact', 'x', '--data-source', none[0], '--format', 'json', ...conn], { cwd: root, env });
    assert.equal(zero.code, 0, zero.stderr);
    assert.deepEqual(JSON.parse(zero.stdout), { column: 'x', dataSource: none[0], uses: [], dependents: [], dependentsOf: 'dataSource', complete: true });
    const unknown = await tsq(['impact', 'x', '--data-source', 'no such table', ...conn], { cwd: root, env });
    assert.equal(unknown.code, 4, unknown.stderr);
    assert.match(unknown.stderr, /no data source "no such table" on the service/);
    const offline = await tsq(['impact', 'origin', '--data-source', 'flights'], { cwd: root, env: { TSQ_PASSWORD: 'admin' } });
    assert.deepEqual(offline.stdout.trim().split('\n'), [`f.tsq:${at(text, 'origin]')}: uses [origin] of flights (tsq)`], 'offline: the files only');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
