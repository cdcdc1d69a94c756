// An Answer TML the emulator exports writes its `search_query` as the service does (the token form of
// docs/service-notes.md §2.11: `[origin].SEA`, `[origin] = [origin].SEA [origin].PDX`, `[date].'last 180
// days'`, …), derived from the parsed query, and the rest of the file as exported files have it; an
// exported-shaped file imported and exported again comes back byte for byte, and export → import → export
// is a fixed point. Through the real emulator over HTTP with the service client of common/src/api, v1 and v2.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AnalyticsServiceClient } from '../../common/src/api';
import { exportedAnswers } from '../fixtures/exportedAnswers';
import { startLive, type Live } from './client-support';

let live: Live;
const clients: Record<'v1' | 'v2', AnalyticsServiceClient> = {} as never;

before(async () => {
  // the demo has no BOOL column: a seed table with one, beside a date
  live = await startLive({ tables: [{ name: 'delays', database: 'token', columns: [{ name: 'origin', dataType: 'VARCHAR' }, { name: 'is delayed', dataType: 'BOOL' }, { name: 'delay', dataType: 'INT32' }, { name: 'day', dataType: 'DATE' }] }] });
  clients.v1 = live.client(undefined, { apiVersion: 'v1' });
  clients.v2 = live.client(undefined, { apiVersion: 'v2' });
});
after(async () => live?.stop());

/** A minimal Answer TML of `query` on `table`, as a person writes one (no guid: a new answer). */
function answerOf(name: string, query: string, table: string): string {
  return `answer:\n  name: ${name}\n  tables:\n  - id: ${table}\n    name: ${table}\n  search_query: ${JSON.stringify(query)}\n`;
}

/** Imports `text` (PARTIAL) and gives the new answer's GUID. */
async function importOne(c: AnalyticsServiceClient, text: string): Promise<string> {
  const [r] = await c.importTml([text], 'PARTIAL');
  assert.equal(r!.status.status_code, 'OK', JSON.stringify(r));
  return r!.header!.id_guid!;
}

/** The exported text of an answer. */
async function exportOne(c: AnalyticsServiceClient, id: string, format: 'YAML' | 'JSON' = 'YAML', fqn = false): Promise<string> {
  const [e] = await c.exportTml([{ identifier: id }], { format, fqn });
  assert.equal(e!.info.status.status_code, 'OK', JSON.stringify(e));
  return e!.edoc;
}

// Each construct of the table as a person types it, and as ThoughtSpot writes it in an export.
const CONSTRUCTS: [string, string, string, string][] = [
  ['a text value', "[delay] [origin] = 'SEA'", '[delay] [origin].SEA', 'flights'],
  ['a text value with a space', "[delay] [destination] = 'los angeles'", "[delay] [destination].'los angeles'", 'flights'],
  ['a number', '[origin] [delay] = 10', '[origin] [delay].10', 'flights'],
  ['a boolean', '[origin] [is delayed] = true', '[origin] [is delayed].true', 'delays'],
  ['a value list with =', "[delay] [origin] = 'SEA', 'PDX'", '[delay] [origin] = [origin].SEA [origin].PDX', 'flights'],
  ['a value list with !=', "[delay] [origin] != 'SEA'", '[delay] [origin] != [origin].SEA', 'flights'],
  ['a relative date', '[delay] [date] last 180 days', "[delay] [date].'last 180 days'", 'flights'],
  ['this month', '[delay] [date] this month', "[delay] [date].'this month'", 'flights'],
  ['{null}', '[delay] [origin] = {null}', '[delay] [origin].{null}', 'flights'],
  ['between dates', "[delay] [date] between '01/15/2001' and '03/31/2001'", '[delay] [date] between [date].01/15/2001 and [date].03/31/2001', 'flights'],
  ['a bucketed sort', '[date].daily [delay] sort by [date].daily descending', '[date].daily [delay] sort by [date] [date].daily descending', 'flights'],
  ['a column by its name in the data source (case, synonym), one space between tokens', "[ORIGIN]   sum [Delay] [to] = 'SEA'", '[origin] sum [delay] [destination].SEA', 'flights'],
  ['what has no token form stays as written', "[origin] [delay] > 100 [origin] contains 'SE' top 5", "[origin] [delay] > 100 [origin] contains 'SE' top 5", 'flights'],
];

for (const gen of ['v1', 'v2'] as const) {
  describe(`${gen}: the search_query of an export is the token form`, () => {
    for (const [what, typed, written, table] of CONSTRUCTS) {
      test(`${what}: ${typed} → ${written}`, async () => {
        const c = clients[gen];
        const id = await importOne(c, answerOf(`Token ${gen} ${what}`, typed, table));
        const doc = parse(await exportOne(c, id, 'YAML', true));
        assert.equal(doc.answer.search_query, written);
        // the written query runs, with the columns and rows of the typed one
        const dataSourceGuid = doc.answer.tables[0].fqn as string;
        const [a, b] = [await c.searchData({ queryString: written, dataSourceGuid }), await c.searchData({ queryString: typed, dataSourceGuid })];
        assert.deepEqual([a.columnNames, a.data], [b.columnNames, b.data]);
      });
    }
  });
}

const EXPORTED = exportedAnswers();

describe('import → export → import keeps a file byte for byte where nothing changed', () => {
  for (const gen of ['v1', 'v2'] as const) {
    for (const [what, text] of Object.entries(EXPORTED)) {
      test(`${gen}: ${what}`, async () => {
        const c = clients[gen];
        const id = await importOne(c, text);
        assert.equal(id, parse(text).guid);
        const fqn = text.includes('fqn:');
        const out = await exportOne(c, id, 'YAML', fqn);
        assert.equal(out, text);
        // imported again, it exports the same text again
        await importOne(c, out);
        assert.equal(await exportOne(c, id, 'YAML', fqn), text);
        // as JSON: the same document, written as the service writes JSON (`": "`, `,` alone)
        const json = await exportOne(c, id, 'JSON', fqn);
        assert.deepEqual(JSON.parse(json), parse(text));
        assert.ok(json.startsWith(`{"guid": "${id}","answer": {"name": `), json.slice(0, 80));
      });
    }
  }
});

describe('export → import → export is a fixed point', () => {
  test('every typed construct: the export of the export is the export', async () => {
    for (const gen of ['v1', 'v2'] as const) {
      const c = clients[gen];
      for (const [what, typed, , table] of CONSTRUCTS) {
        const id = await importOne(c, answerOf(`Fixed ${gen} ${what}`, typed, table));
        const first = await exportOne(c, id);
        await importOne(c, first);
        assert.equal(await exportOne(c, id), first, typed);
      }
    }
  });
  test('a new answer (guid: null, obj_id) gets its GUID, keeps its obj_id, and exports the same after', async () => {
    const c = clients.v2;
    const text = `guid: null\nobj_id: Delay-by-origin-6f853b5f\nanswer:\n  name: Delay by origin\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[origin] [delay]"\n`;
    const id = await importOne(c, text);
    const first = await exportOne(c, id);
    assert.ok(first.startsWith(`guid: ${id}\nobj_id: Delay-by-origin-6f853b5f\nanswer:\n  name: Delay by origin\n`), first);
    await importOne(c, first);
    assert.equal(await exportOne(c, id), first);
  });
  test('an answer imported as JSON exports as YAML in the service style, and JSON back as it came', async () => {
    const c = clients.v2;
    const doc = parse(EXPORTED["an exported liveboard's answer shape, with fqn"]!);
    doc.guid = '7a1e2b3c-4d5e-4f60-8a9b-0c1d2e3f4a5b';
    const id = await importOne(c, JSON.stringify(doc));
    const yaml = await exportOne(c, id, 'YAML', true);
    assert.deepEqual(parse(yaml), doc);
    assert.match(yaml, /^ {6}"y":$/m);
    assert.match(yaml, /^ {2}search_query: "\[date\]\.monthly/m);
    assert.deepEqual(JSON.parse(await exportOne(c, id, 'JSON', true)), doc);
  });
  test('the demo answer: its export (v2, by name) imported again (v1) exports the same', async () => {
    const [e] = await clients.v2.exportTml([{ identifier: 'Top grossing genres', type: 'ANSWER' }], { format: 'YAML' });
    const id = parse(e!.edoc).guid as string;
    await importOne(clients.v1, e!.edoc);
    assert.equal(await exportOne(clients.v1, id), e!.edoc);
  });
});

describe('the imported text outlives a restart', () => {
  test('an exported-shaped file exports byte for byte from an emulator restarted on the same data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tsq-tml-restart-'));
    try {
      const text = EXPORTED['a DUMMY.answer.tml shape']!;
      const first = await startLive({ dataDir });
      const id = await importOne(first.client(undefined, { apiVersion: 'v2' }), text);
      await first.stop();
      const second = await startLive({ dataDir });
      try {
        assert.equal(await exportOne(second.client(undefined, { apiVersion: 'v2' }), id), text);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
