// The keyword catalogue's examples are tests (common/src/language/keywords.ts): every documented example
// goes through `tsq check` (the command line as a process, against the demo emulator) with no error and
// no warning (`example` and the further `examples` alike), and through the emulator's searchdata, which answers it, or, for a keyword the local
// emulator does not execute (`emulator: 'unsupported'`), refuses it with a 400 naming the keyword while
// `tsq check` says so as information (tsq.notInEmulator). A keyword added to the catalogue is tested here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stableGuid } from '../../emulator/src/guid';
import { KEYWORDS } from '../../common/src/language/keywords';
import { debugOf, startCore, type Core } from '../emulator/core-support';
import { tsq } from './cli-support';

/** The demo data source of an example: `flights` unless the catalogue names another (`dataSource`). */
const GUID_OF = (table: string): string => stableGuid('table', 'demo', 'engine_default_schema', table);
/** Every distinct example, with the keywords that document it and its data source. */
const EXAMPLES = new Map<string, { names: string[]; unsupported: boolean; dataSource: string }>();
for (const k of KEYWORDS) {
  for (const example of [k.example, ...(k.examples ?? []).map((x) => x.example)]) {
    const e = EXAMPLES.get(example) ?? { names: [], unsupported: false, dataSource: k.dataSource ?? 'flights' };
    e.names.push(k.name);
    e.unsupported ||= k.emulator === 'unsupported';
    assert.equal(e.dataSource, k.dataSource ?? 'flights', `${k.name}: one example, one data source`);
    EXAMPLES.set(example, e);
  }
}
const DATA_SOURCES = [...new Set([...EXAMPLES.values()].map((e) => e.dataSource))];

let core: Core;
let cookie: string;
let dir: string;
before(async () => {
  core = await startCore();
  cookie = await core.login('tsadmin', 'admin');
  dir = mkdtempSync(join(tmpdir(), 'tsq-examples-'));
});
after(async () => {
  await core?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('tsq check: every example of the catalogue is clean (the unsupported ones are information only)', async () => {
  const flagged = new Set<string>();
  for (const ds of DATA_SOURCES) {
    const file = join(dir, `examples-${ds}.tsq`);
    const examples = [...EXAMPLES].filter(([, e]) => e.dataSource === ds).map(([example]) => example);
    // One query per example, each on its own line after a blank one: line 3 + 2i.
    writeFileSync(file, `@datasource '${ds}'\n\n${examples.join('\n\n')}\n`);
    const r = await tsq(['check', file, '--url', core.emu.url, '--user', 'tsadmin'], { env: { TSQ_PASSWORD: 'admin' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.split('\n').filter(Boolean);
    for (const line of lines) assert.match(line, /: info: .*not supported by the local emulator.*\[tsq\.notInEmulator\]$/, line);
    for (const l of lines) flagged.add(examples[(Number(/:(\d+):\d+: /.exec(l)![1]) - 3) / 2]!);
    assert.match(r.stderr, /0 errors, 0 warnings/);
  }
  for (const [example, e] of EXAMPLES) assert.equal(flagged.has(example), e.unsupported, `${e.names.join(', ')}: ${example}`);
});

test('searchdata: the emulator answers every example, or refuses a keyword it does not execute by name', async () => {
  for (const [example, e] of EXAMPLES) {
    const r = await core.call('POST', '/searchdata', { query_string: example, data_source_guid: GUID_OF(e.dataSource), batchsize: 5 }, cookie);
    if (!e.unsupported) {
      assert.equal(r.status, 200, `${e.names.join(', ')}: ${example}: ${JSON.stringify(r.body)}`);
      assert.ok(Array.isArray(r.body.data) && r.body.columnNames.length > 0, example);
    } else {
      assert.equal(r.status, 400, example);
      assert.match(debugOf(r.body).join(' '), /not supported by the local emulator/, example);
    }
  }
});
