// splitCsvChunks (common/src/api/chunks.ts): cutting a CSV stream into load chunks at record boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { splitCsvChunks } from '../../common/src/api';

async function collect(source: Buffer[], opts: Parameters<typeof splitCsvChunks>[1]): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of splitCsvChunks((async function* () { yield* source; })(), opts)) {
    const parts: Buffer[] = [];
    for await (const b of chunk) parts.push(b);
    out.push(Buffer.concat(parts));
  }
  return out;
}

/** Cuts a buffer into pieces at the given offsets (the read buffers of a stream). */
function pieces(buf: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...at, buf.length]) {
    out.push(buf.subarray(prev, c));
    prev = c;
  }
  return out;
}

const field = fc.oneof(fc.stringMatching(/^[a-z0-9 ]{0,6}$/), fc.stringMatching(/^[a-z,\n"]{0,6}$/).map((s) => `"${s.replace(/"/g, '""')}"`));
const csv = fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { minLength: 0, maxLength: 30 }).map((rows) => rows.map((r) => r.join(',') + '\n').join(''));

test('chunks concatenate back to the input, each ends at a record end, and each parses as whole records', async () => {
  await fc.assert(
    fc.asyncProperty(csv, fc.array(fc.nat(400), { maxLength: 8 }), fc.integer({ min: 1, max: 60 }), async (text, cuts, chunkBytes) => {
      const input = Buffer.from(text);
      const chunks = await collect(pieces(input, cuts), { chunkBytes, quote: '"' });
      assert.equal(Buffer.concat(chunks).toString(), text);
      const records = chunks.flatMap((c) => {
        assert.equal(c.at(-1), 0x0a, 'a chunk ends with a newline');
        assert.ok(c.length > 0);
        return parse(c, { relax_column_count: true }) as string[][];
      });
      assert.deepEqual(records, parse(input, { relax_column_count: true }));
    }),
    { numRuns: 300 },
  );
});

test('a header row is repeated at the head of every chunk; no chunk for a header alone or empty input', async () => {
  const text = 'a,b\n1,x\n2,y\n3,z\n4,w\n';
  const chunks = (await collect([Buffer.from(text)], { chunkBytes: 8, headerRow: true, quote: '"' })).map(String);
  assert.deepEqual(chunks, ['a,b\n1,x\n2,y\n', 'a,b\n3,z\n4,w\n']);
  assert.deepEqual(await collect([Buffer.from('a,b\n')], { chunkBytes: 8, headerRow: true }), []);
  assert.deepEqual(await collect([], { chunkBytes: 8 }), []);
  // a last record without a final newline is kept whole
  assert.deepEqual((await collect([Buffer.from('1\n2')], { chunkBytes: 1 })).map(String), ['1\n', '2']);
});

test('chunk sizes stay near chunkBytes: a chunk ends at the first record end after it', async () => {
  const line = 'x'.repeat(99) + '\n';
  const chunks = await collect(pieces(Buffer.from(line.repeat(1000)), [4096, 8192, 50_000]), { chunkBytes: 10_000 });
  assert.equal(chunks.length, 10);
  for (const c of chunks) assert.equal(c.length, 10_000);
});

test('chunkBytes must be positive', async () => {
  await assert.rejects(collect([Buffer.from('1\n')], { chunkBytes: 0 }), RangeError);
});
