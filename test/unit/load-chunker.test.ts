import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { planChunks, type ChunkRange, type PlanItem } from '../../common/src/load/chunker';
import { countLf, RecordBoundaryScanner, type BoundaryFormat } from '../../common/src/load/recordBoundary';

const CSV: BoundaryFormat = { type: 'csv', fieldSeparator: ',', enclosingCharacter: '"', escapeCharacter: '' };
const PLAIN: BoundaryFormat = { ...CSV, enclosingCharacter: '' };
const DELIMITED: BoundaryFormat = { type: 'delimited', fieldSeparator: '|', enclosingCharacter: '', escapeCharacter: '\\' };

/** Feeds `data` to planChunks in pieces of the given sizes (cycled). */
async function plan(data: Buffer, opts: Parameters<typeof planChunks>[1], pieces: number[] = [7]): Promise<{ layout: Extract<PlanItem, { kind: 'layout' }>; chunks: ChunkRange[] }> {
  async function* source() {
    let i = 0;
    for (let pos = 0; pos < data.length; i++) {
      const n = Math.max(1, pieces[i % pieces.length]);
      yield data.subarray(pos, pos + n);
      pos += n;
    }
  }
  const items: PlanItem[] = [];
  for await (const it of planChunks(source(), opts)) items.push(it);
  const layouts = items.filter((i) => i.kind === 'layout');
  assert.equal(layouts.length, 1, 'one layout item');
  assert.equal(items[0].kind, 'layout', 'the layout comes first');
  return { layout: layouts[0] as Extract<PlanItem, { kind: 'layout' }>, chunks: items.filter((i): i is Extract<PlanItem, { kind: 'chunk' }> => i.kind === 'chunk') };
}

/** Checks that the chunks tile the data after BOM and header, in order, numbered from 1. */
function assertTiles(data: Buffer, layout: { bomBytes: number; header?: { start: number; end: number } }, chunks: ChunkRange[]): void {
  let pos = layout.header ? layout.header.end : layout.bomBytes;
  chunks.forEach((c, i) => {
    assert.equal(c.index, i + 1);
    assert.equal(c.start, pos, `chunk ${c.index} starts where the previous ended`);
    assert.ok(c.end > c.start);
    pos = c.end;
  });
  assert.equal(pos, data.length, 'the chunks cover the file to its end');
}

const rec = (rows: string[][]) => Buffer.from(stringify(rows));

test('records are never split: every chunk but the last ends with a record end, and parses to whole records', async () => {
  const rows = Array.from({ length: 500 }, (_, i) => [String(i), `name ${i}`, i % 7 === 0 ? 'multi\nline, "quoted"' : 'x']);
  const data = rec(rows);
  for (const chunkBytes of [1, 50, 333, 4096, 1 << 20]) {
    const { layout, chunks } = await plan(data, { chunkBytes, format: CSV }, [3, 64, 1000]);
    assertTiles(data, layout, chunks);
    const back = chunks.flatMap((c) => parse(data.subarray(c.start, c.end)) as string[][]);
    assert.deepEqual(back, rows, `chunkBytes ${chunkBytes}`);
    assert.equal(chunks.reduce((n, c) => n + c.records, 0), rows.length);
    if (chunkBytes === 1) assert.equal(chunks.length, rows.length, 'one record per chunk when chunkBytes is 1');
  }
});

test('quoted newlines are not record ends; doubled quotes keep the state; without a quote character every newline is one', async () => {
  const data = Buffer.from('1,"a\nb"\n2,"say ""hi""\n there"\n3,c\n');
  const { chunks } = await plan(data, { chunkBytes: 1, format: CSV }, [1]);
  assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1,"a\nb"\n', '2,"say ""hi""\n there"\n', '3,c\n']);
  const plain = await plan(data, { chunkBytes: 1, format: PLAIN });
  assert.equal(plain.chunks.length, 5);
});

test('CRLF records are cut after the LF, so no chunk starts with a stray LF', async () => {
  const data = Buffer.from('id,name\r\n1,"a\r\nb"\r\n2,c\r\n3,d\r\n');
  const { layout, chunks } = await plan(data, { chunkBytes: 1, format: CSV, headerRow: true }, [2]);
  assert.deepEqual(layout.header, { start: 0, end: 9 });
  assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1,"a\r\nb"\r\n', '2,c\r\n', '3,d\r\n']);
});

test('a UTF-8 byte-order mark is reported and left out, even when it arrives byte by byte', async () => {
  const data = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,b\n1,2\n')]);
  for (const pieces of [[1], [2, 5], [100]]) {
    const { layout, chunks } = await plan(data, { chunkBytes: 1 << 20, format: CSV, headerRow: true }, pieces);
    assert.equal(layout.bomBytes, 3);
    assert.deepEqual(layout.header, { start: 3, end: 7 });
    assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1,2\n']);
  }
  const noHeader = await plan(data, { chunkBytes: 1 << 20, format: CSV }, [1]);
  assert.equal(noHeader.chunks[0].start, 3);
});

test('a final line without a newline ends the last chunk and counts as a record', async () => {
  const data = Buffer.from('1,a\n2,b\n3,"c\nd"');
  const { chunks } = await plan(data, { chunkBytes: 5, format: CSV }, [4]);
  assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1,a\n2,b\n', '3,"c\nd"']);
  assert.deepEqual(chunks.map((c) => c.records), [2, 1]);
});

test('empty input, a lone header and a lone BOM give no chunk', async () => {
  assert.equal((await plan(Buffer.alloc(0), { chunkBytes: 10, format: CSV })).chunks.length, 0);
  const h = await plan(Buffer.from('a,b\n'), { chunkBytes: 10, format: CSV, headerRow: true });
  assert.equal(h.chunks.length, 0);
  assert.deepEqual(h.layout.header, { start: 0, end: 4 });
  const h2 = await plan(Buffer.from('a,b'), { chunkBytes: 10, format: CSV, headerRow: true });
  assert.deepEqual(h2.layout.header, { start: 0, end: 3 });
  assert.equal(h2.chunks.length, 0);
  const bom = await plan(Buffer.from([0xef, 0xbb, 0xbf]), { chunkBytes: 10, format: CSV }, [1]);
  assert.equal(bom.layout.bomBytes, 3);
  assert.equal(bom.chunks.length, 0);
});

test('an escape character (delimited) makes an escaped newline part of the field', async () => {
  const data = Buffer.from('1|a\\\nb\n2|c\n');
  const { chunks } = await plan(data, { chunkBytes: 1, format: DELIMITED }, [1]);
  assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1|a\\\nb\n', '2|c\n']);
});

test('a 50 MB quoted field full of newlines stays in one chunk, read from a stream of 64 KiB buffers', async () => {
  const fieldBytes = 50 * 1024 * 1024;
  const before = Buffer.from('1,small\n2,"');
  const after = Buffer.from('"\n3,after\n');
  const line = Buffer.from('0123456789abcdef0123456789abcde\n'); // 32 bytes with a newline
  async function* source() {
    yield before;
    const piece = Buffer.alloc(64 * 1024);
    for (let i = 0; i < piece.length; i += line.length) line.copy(piece, i);
    for (let sent = 0; sent < fieldBytes; sent += piece.length) yield piece;
    yield after;
  }
  const items: PlanItem[] = [];
  for await (const it of planChunks(source(), { chunkBytes: 1 << 20, format: CSV })) items.push(it);
  const chunks = items.filter((i): i is Extract<PlanItem, { kind: 'chunk' }> => i.kind === 'chunk');
  const total = before.length + fieldBytes + after.length;
  assert.deepEqual(
    chunks.map((c) => [c.start, c.end, c.records]),
    [
      [0, before.length + fieldBytes + 2, 2],
      [before.length + fieldBytes + 2, total, 1],
    ],
  );
});

test('property: for any records, separators, line ends and read sizes, the chunks rebuild the records exactly', async () => {
  const field = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '"', '""', '\n', '\r\n', ',', 'a"b\nc'));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(field, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 40 }),
      fc.constantFrom('\n', '\r\n'),
      fc.integer({ min: 1, max: 200 }),
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 5 }),
      fc.boolean(),
      async (rows, eol, chunkBytes, pieces, headerRow) => {
        const all = headerRow ? [['h1', 'h2'], ...rows] : rows;
        const data = Buffer.from(stringify(all, { record_delimiter: eol === '\n' ? 'unix' : 'windows', quoted_match: /[\r\n]/ }));
        const { layout, chunks } = await plan(data, { chunkBytes, format: CSV, headerRow }, pieces);
        assertTiles(data, layout, chunks);
        const back = chunks.flatMap((c) => parse(data.subarray(c.start, c.end), { relax_column_count: true }) as string[][]);
        const expected = parse(data, { relax_column_count: true }) as string[][];
        assert.deepEqual(back, headerRow ? expected.slice(1) : expected);
      },
    ),
    { numRuns: 300 },
  );
});

/** The plan as the scanner gives it one record at a time over the whole data (the reference for the counting at once). */
function referencePlan(data: Buffer, format: BoundaryFormat, chunkBytes: number, headerRow: boolean): { start: number; end: number; records: number }[] {
  const s = new RecordBoundaryScanner(format);
  const ends: number[] = [];
  for (let from = 0; ; ) {
    const e = s.scanBytes(data, from);
    if (e < 0) {
      if (from < data.length) ends.push(data.length); // a final record without a line break
      break;
    }
    ends.push(e);
    from = e;
  }
  let start = headerRow ? (ends.shift() ?? data.length) : 0;
  const chunks: { start: number; end: number; records: number }[] = [];
  let records = 0;
  for (const e of ends) {
    records++;
    if (e >= start + chunkBytes || e === data.length) {
      chunks.push({ start, end: e, records });
      start = e;
      records = 0;
    }
  }
  return chunks;
}

test('property: records counted at once over plain bytes give the same chunks and record counts as one record at a time, at any alignment', async () => {
  const unit = fc.oneof({ arbitrary: fc.constantFrom('a', 'bc', ',', '|', '\n', 'é'), weight: 20 }, { arbitrary: fc.constantFrom('"', '\r', '\\', '\r\n', '""'), weight: 1 });
  await fc.assert(
    fc.asyncProperty(
      fc.array(unit, { maxLength: 3000 }),
      fc.constantFrom(CSV, PLAIN, DELIMITED),
      fc.integer({ min: 1, max: 2000 }),
      fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      async (units, format, chunkBytes, pieces, headerRow) => {
        const data = Buffer.from(units.join(''));
        const { chunks } = await plan(data, { chunkBytes, format, headerRow }, pieces);
        assert.deepEqual(
          chunks.map((c) => ({ start: c.start, end: c.end, records: c.records })),
          referencePlan(data, format, chunkBytes, headerRow),
        );
      },
    ),
    { numRuns: 400 },
  );
});

test('countLf counts the LF bytes of any range at any alignment', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(), fc.nat(), fc.nat({ max: 7 }), (raw, a, b, shift) => {
      const backing = new Uint8Array(raw.length + shift);
      backing.set(raw, shift);
      const bytes = backing.subarray(shift).map((x) => (x % 4 === 0 ? 10 : x));
      const view = new Uint8Array(backing.buffer, shift, raw.length);
      view.set(bytes);
      const from = raw.length ? a % raw.length : 0;
      const to = from + (raw.length - from ? b % (raw.length - from + 1) : 0);
      let expected = 0;
      for (let i = from; i < to; i++) if (view[i] === 10) expected++;
      assert.equal(countLf(view, from, to), expected);
    }),
    { numRuns: 500 },
  );
  // nothing but LFs: every byte lane of every word counts, over many flushes of the lane sums
  const lfs = Buffer.alloc(20_003, 10);
  for (const from of [0, 1, 2, 3]) assert.equal(countLf(lfs, from, lfs.length - from), lfs.length - 2 * from);
});

test('the scanner keeps its quote state across buffers', () => {
  const s = new RecordBoundaryScanner(CSV);
  assert.equal(s.scanBytes(Buffer.from('1,"a\n'), 0), -1);
  assert.equal(s.insideField, true);
  assert.equal(s.scanBytes(Buffer.from('b"\n2'), 0), 3);
  assert.equal(s.insideField, false);
});

test('planChunks refuses a chunk size that is not positive', async () => {
  await assert.rejects(plan(Buffer.from('a\n'), { chunkBytes: 0, format: CSV }), RangeError);
});

test('a source that reads into one reused buffer (each view overwritten by the next read) gives the same plan as fresh buffers', async () => {
  const rows = Array.from({ length: 400 }, (_, i) => [`r${i}`, i % 3 ? 'plain' : 'a "quoted" field\nwith a newline', String(i)]);
  const data = Buffer.concat([Buffer.from('\ufeff'), rec([['name', 'text', 'n'], ...rows])]);
  const opts = { chunkBytes: 500, format: CSV, headerRow: true };
  for (const size of [1, 7, 64, 4096]) {
    async function* reused() {
      const buf = Buffer.alloc(size);
      for (let pos = 0; pos < data.length; pos += size) {
        const n = data.copy(buf, 0, pos, Math.min(pos + size, data.length));
        yield buf.subarray(0, n);
        buf.fill(0x22); // what a later read leaves in the buffer: quotes everywhere
      }
    }
    const items: PlanItem[] = [];
    for await (const it of planChunks(reused(), opts)) items.push(it);
    const fresh = await plan(data, opts, [size]);
    assert.deepEqual(items, [fresh.layout, ...fresh.chunks.map((c) => ({ kind: 'chunk', ...c }))], `reads of ${size} bytes`);
    assertTiles(data, fresh.layout, fresh.chunks);
  }
});

test('a quote encloses only at the start of a field: `12" pizza` is data, and the quoted record after it is never cut', async () => {
  const data = Buffer.from('1,12" pizza\n2,"first\n7,tail"\n3,x"y"\n4,"a"b\n5,z\n');
  const { chunks } = await plan(data, { chunkBytes: 1, format: CSV }, [1]);
  assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1,12" pizza\n', '2,"first\n7,tail"\n', '3,x"y"\n', '4,"a"b\n', '5,z\n']);
});

test('an escaped CRLF is escaped as a whole; an escaped lone CR too', async () => {
  const data = Buffer.from('1|first\\\r\nsecond\r\n2|a\\\rb\r3|c\n');
  for (const pieces of [[1], [2], [3], [100]]) {
    const { chunks } = await plan(data, { chunkBytes: 1, format: DELIMITED }, pieces);
    assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1|first\\\r\nsecond\r\n', '2|a\\\rb\r', '3|c\n'], `pieces ${pieces}`);
  }
});

test('CR-only and mixed line ends: a lone CR ends a record, CRLF is one line break even across reads', async () => {
  const data = Buffer.from('h1,h2\r1,a\r2,"b\rc"\r\n3,d\n\r4,e\r');
  for (const pieces of [[1], [2], [5], [100]]) {
    const { layout, chunks } = await plan(data, { chunkBytes: 1, format: CSV, headerRow: true }, pieces);
    assert.deepEqual(layout.header, { start: 0, end: 6 });
    assert.deepEqual(chunks.map((c) => data.subarray(c.start, c.end).toString()), ['1,a\r', '2,"b\rc"\r\n', '3,d\n', '\r', '4,e\r'], `pieces ${pieces}`);
    assert.deepEqual(chunks.map((c) => c.records), [1, 1, 1, 1, 1]);
  }
});

test('a header row ended by a lone CR, and a file that is only a header ending in CR', async () => {
  const h = await plan(Buffer.from('a,b\r'), { chunkBytes: 10, format: CSV, headerRow: true }, [1]);
  assert.deepEqual(h.layout.header, { start: 0, end: 4 });
  assert.equal(h.chunks.length, 0);
});
