/**
 * Cross-component property: random CSV files (quotes in odd places, CR/LF/CRLF mixes, multi-line values,
 * blank lines, header rows, both formats of the load definition with their options) × random chunk
 * sizes, loaded through the real pipeline (common/src/load/pipeline.ts) into the real emulator, must
 * equal a reference parser's records cell for cell — csv-parse configured the same way (record
 * delimiters LF, CRLF and CR; the enclosing character doubled inside; a quote inside an unquoted field
 * is data; an unenclosed empty field is null) — and records with the wrong number of fields must be
 * reported as bad records with that reason. For the delimited format with an escape character, which
 * csv-parse cannot read (it escapes only inside quotes), the reference is the generator's own records.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { AnalyticsServiceClient, type LoadDefinition } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';

const USER = { username: 'loader', password: 'loader-secret' };
const WIDTH = 4; // n, a, b, c
let emu: RunningEmulator;
let root: string;
let client: AnalyticsServiceClient;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'tsq-property-'));
  const seed = join(root, 'seed');
  mkdirSync(seed);
  writeFileSync(
    join(seed, 'model.json'),
    JSON.stringify({
      tables: [{ name: 'cells', database: 'prop', columns: [{ name: 'n', dataType: 'INT64' }, { name: 'a', dataType: 'VARCHAR' }, { name: 'b', dataType: 'VARCHAR' }, { name: 'c', dataType: 'VARCHAR' }] }],
      groups: [{ name: 'Data managers', privileges: ['DATAMANAGEMENT'] }],
      users: [{ name: USER.username, password: USER.password, groups: ['Data managers'] }],
    }),
  );
  emu = await startEmulator({ port: 0, loadPort: 0, dataDir: join(root, 'state'), seed });
  client = new AnalyticsServiceClient({ url: emu.url, username: USER.username, password: USER.password });
});
after(async () => {
  await client?.close();
  await emu?.close();
  rmSync(root, { recursive: true, force: true });
});

type Cell = string | null;

/** A generated file: its bytes, the load definition's format, and the records it must load as (the bad ones apart). */
interface Case {
  text: string;
  format: NonNullable<LoadDefinition['format']>;
  good: Cell[][];
  bad: number;
}

const eol = fc.constantFrom('\n', '\r\n', '\r');
/** Text of a value: quotes, separators, line breaks, escape characters and non-ASCII letters in odd places. */
const value = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', ';', '|', '\t', '"', "'", '\n', '\r', '\\', 'é', '€', 'x'), maxLength: 7 });

const csvCase = fc
  .record({
    sep: fc.constantFrom(',', ';', '\t', '|'),
    quote: fc.constantFrom('"', "'"),
    header: fc.boolean(),
    rows: fc.array(
      fc.record({
        cells: fc.array(fc.option(value, { nil: null, freq: 6 }), { minLength: WIDTH - 1, maxLength: WIDTH - 1 }),
        quoteAll: fc.boolean(),
        eol,
        blankAfter: fc.integer({ min: 0, max: 12 }),
        wrongWidth: fc.integer({ min: 0, max: 15 }),
      }),
      { minLength: 1, maxLength: 25 },
    ),
    lastEol: fc.boolean(),
  })
  .map(({ sep, quote, header, rows, lastEol }): Case => {
    const enclose = (v: string) => quote + v.split(quote).join(quote + quote) + quote;
    const field = (v: Cell, quoteAll: boolean): string => {
      if (v === null) return '';
      // must be enclosed: empty (else null), holds the separator or a line break, or starts with the enclosing character
      if (quoteAll || v === '' || v.includes(sep) || /[\r\n]/.test(v) || v.startsWith(quote)) return enclose(v);
      return v; // may hold the enclosing character inside: data
    };
    let text = header ? ['n', 'a', 'b', 'c'].join(sep) + '\n' : '';
    const good: Cell[][] = [];
    let bad = 0;
    rows.forEach((r, i) => {
      const n = String(i + 1);
      const cells = r.wrongWidth === 0 ? r.cells.slice(0, 1) : r.cells; // now and then a record with too few fields
      if (r.wrongWidth === 0) bad++;
      else good.push([n, ...cells]);
      const last = i === rows.length - 1;
      text += [n, ...cells.map((c) => field(c, r.quoteAll))].join(sep) + (last && !lastEol ? '' : r.eol);
      if (r.blankAfter === 0 && !last) text += r.eol;
    });
    return { text, format: { type: 'csv', field_separator: sep, enclosing_character: quote, has_header_row: header }, good, bad };
  });

const delimitedCase = fc
  .record({
    sep: fc.constantFrom('|', '\t', ','),
    escape: fc.constantFrom('\\', ''),
    header: fc.boolean(),
    rows: fc.array(
      fc.record({ cells: fc.array(fc.option(value, { nil: null, freq: 6 }), { minLength: WIDTH - 1, maxLength: WIDTH - 1 }), eol }),
      { minLength: 1, maxLength: 25 },
    ),
    lastEol: fc.boolean(),
  })
  .map(({ sep, escape, header, rows, lastEol }): Case => {
    const NULL = '(null)';
    const field = (v: Cell): { text: string; value: Cell } => {
      if (v === null) return { text: NULL, value: null };
      if (!escape) {
        // without an escape character a value cannot hold the separator or a line break
        const plain = v.replace(/[\r\n]/g, '').split(sep).join('');
        return { text: plain, value: plain === NULL ? null : plain };
      }
      let t = '';
      for (let k = 0; k < v.length; k++) {
        const ch = v[k]!;
        if (ch === '\r' && v[k + 1] === '\n') {
          t += `${escape}\r\n`; // an escaped CRLF, escaped as a whole
          k++;
        } else t += ch === sep || ch === escape || ch === '\r' || ch === '\n' ? escape + ch : ch;
      }
      return { text: t, value: v };
    };
    let text = header ? ['n', 'a', 'b', 'c'].join(sep) + '\n' : '';
    const good: Cell[][] = [];
    rows.forEach((r, i) => {
      const fields = r.cells.map(field);
      good.push([String(i + 1), ...fields.map((f) => f.value)]);
      const last = i === rows.length - 1;
      // a first value that is empty at the very start of a line could make a blank line: never, n comes first
      const line = [String(i + 1), ...fields.map((f) => f.text)].join(sep);
      // an escaped CR right before an LF would be an escaped CRLF (escaped as a whole): end such a line with CRLF
      const end = r.eol === '\n' && line.endsWith(`${escape}\r`) ? '\r\n' : r.eol;
      text += line + (last && !lastEol ? '' : end);
    });
    return { text, format: { type: 'delimited', field_separator: sep, escape_character: escape, null_value: NULL, has_header_row: header }, good, bad: 0 };
  });

/** The reference parser's records for a case (csv-parse configured as the load definition says), or undefined when it cannot read the format. */
function reference(c: Case): Cell[][] | undefined {
  const f = c.format;
  if (f.type === 'delimited' && f.escape_character) return undefined;
  const quote = f.type === 'csv' ? f.enclosing_character! : false;
  const rows = parse(c.text, {
    delimiter: f.field_separator,
    quote,
    escape: quote || null,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    cast: (v: string, ctx: { quoting: boolean }) => (f.type === 'csv' ? (!ctx.quoting && v === '' ? null : v) : v === f.null_value ? null : v),
  }) as Cell[][];
  return (f.has_header_row ? rows.slice(1) : rows).filter((r) => r.length === WIDTH);
}

async function tableRows(): Promise<Cell[][]> {
  const info = emu.ctx.findTable('prop', undefined, 'cells');
  assert.ok(info);
  const conn = await emu.ctx.connect();
  try {
    const r = await conn.runAndReadAll(`SELECT n, a, b, c FROM ${info.sqlName} ORDER BY n`);
    return r.getRowObjectsJS().map((row) => [String(row.n), row.a, row.b, row.c] as Cell[]);
  } finally {
    conn.closeSync();
  }
}

let runs = 0;
test('property: random files × random chunk sizes load through the pipeline into the emulator exactly as the reference parser reads them', async () => {
  const started = performance.now();
  const out = await fc.check(
    fc.asyncProperty(fc.oneof(csvCase, delimitedCase), fc.integer({ min: 1, max: 120 }), (c, chunkBytes) =>
      check(c, chunkBytes).catch((e: unknown) => {
        // the reporter shows fast-check's counterexample, not the assertion: say what differed
        throw new Error(`chunks of ${chunkBytes} bytes, ${JSON.stringify(c.text)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }),
    ),
    { numRuns: Number(process.env.TSQ_PROPERTY_RUNS ?? 200), endOnFailure: true },
  );
  // the reporter would show fast-check's summary without the assertion that failed
  if (out.failed) throw out.errorInstance ?? new Error(fc.defaultReportMessage(out));
  // a figure for the log, not an assertion (speed belongs to the benchmarks)
  console.log(`# ${runs} random loads in ${Math.round(performance.now() - started)} ms`);
});

/** Loads one case and compares the table with the reference. */
async function check(c: Case, chunkBytes: number): Promise<void> {
  runs++;
  const ref = reference(c);
  if (ref) assert.deepEqual(ref, c.good, 'the reference parser reads the generated file as generated');
  const def: LoadDefinition = { target: { database: 'prop', table: 'cells' }, format: c.format, load_options: { empty_target: true, max_ignored_rows: 1000 } };
  const r = await runLoad(client, { data: c.text, name: 'case.csv' }, def, { chunkBytes, pollIntervalMs: 5, maxPollIntervalMs: 20 });
  assert.deepEqual(await tableRows(), c.good, 'the table holds exactly the good records, cell for cell');
  assert.equal(r.rowsWritten, c.good.length);
  assert.equal(r.ignoredRows, c.bad, 'records with too few fields are the bad records');
  if (c.bad) assert.match(JSON.stringify(r.status.parsingErrors), new RegExp(`expected ${WIDTH} fields, found 2`));
}
