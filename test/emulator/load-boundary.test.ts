/**
 * Where a record ends, as the client's chunker and the emulator's splitter both see it (one definition,
 * common/src/load/recordBoundary.ts): files whose records a chunk cut could split, loaded through the
 * real pipeline (common/src/load/pipeline.ts) into the real emulator in chunks small enough to put a cut
 * after every record. Each must load exactly its records, with nothing lost, fabricated or ignored.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsServiceClient, type LoadDefinition } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';
import { DB, LOADER, startLoadLive, type LoadLive } from './load-support';

let live: LoadLive;
let dir: string;
let client: AnalyticsServiceClient;

before(async () => {
  live = await startLoadLive();
  dir = mkdtempSync(join(tmpdir(), 'tsq-boundary-'));
  client = new AnalyticsServiceClient({ url: live.emu.url, username: LOADER.username, password: LOADER.password });
});
after(async () => {
  await client.close();
  await live.stop();
  rmSync(dir, { recursive: true, force: true });
});

const def = (format: LoadDefinition['format']): LoadDefinition => ({
  target: { database: DB, table: 'pairs' },
  format,
  load_options: { empty_target: true, max_ignored_rows: 5 },
});

/** Loads `text` in chunks of every size from 1 to `maxChunk` bytes; each load must give exactly `rows`. */
async function loadsExactly(name: string, text: string | Buffer, format: LoadDefinition['format'], rows: { id: number; name: string | null }[], chunkSizes = [1, 5, 9, 13, 1 << 20]): Promise<void> {
  const path = join(dir, name);
  writeFileSync(path, text);
  for (const chunkBytes of chunkSizes) {
    const r = await runLoad(client, path, def(format), { chunkBytes, pollIntervalMs: 10 });
    assert.deepEqual(await live.rows('pairs'), rows, `chunks of ${chunkBytes} bytes`);
    assert.equal(r.ignoredRows, 0, `chunks of ${chunkBytes} bytes: nothing ignored`);
    assert.equal(r.rowsWritten, rows.length);
  }
}

test('a quote inside an unquoted field is data: no chunk is cut inside the quoted record after it, no row is lost or fabricated', async () => {
  // the old chunker flipped its quote state at the stray quote of `12" pizza`, cut after `2,"first`,
  // and the service stored a fabricated row [7, 'tail"'] in place of row 2, the count unchanged
  await loadsExactly('stray-quote.csv', 'id,name\n1,12" pizza\n2,"first\n7,tail"\n3,x\n', { type: 'csv', has_header_row: true }, [
    { id: 1, name: '12" pizza' },
    { id: 2, name: 'first\n7,tail' },
    { id: 3, name: 'x' },
  ]);
});

test('delimited with an escape character: an escaped CRLF is one escaped line break on both sides', async () => {
  // the old chunker escaped only the CR and cut after the LF: the value became `first\r\n` and `second` a bad row
  await loadsExactly('escaped-crlf.txt', 'id|name\r\n1|first\\\r\nsecond\r\n2|x\r\n', { type: 'delimited', field_separator: '|', escape_character: '\\', has_header_row: true }, [
    { id: 1, name: 'first\r\nsecond' },
    { id: 2, name: 'x' },
  ]);
});

test('CR-only line ends are record ends on both sides; a CR inside an enclosed field is data', async () => {
  await loadsExactly('cr-only.csv', 'id,name\r1,a\r2,"b\rc"\r3,\r', { type: 'csv', has_header_row: true }, [
    { id: 1, name: 'a' },
    { id: 2, name: 'b\rc' },
    { id: 3, name: null },
  ]);
});

test('mixed line ends: LF, CRLF and CR in one file, blank lines skipped', async () => {
  await loadsExactly('mixed.csv', '1,a\r\n2,b\n\r\n3,"c\r\nd"\r4,e', { type: 'csv' }, [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
    { id: 3, name: 'c\r\nd' },
    { id: 4, name: 'e' },
  ]);
});
