/**
 * The server's Run lens in editors other than VS Code: the language server started as `tsq lsp` is
 * (dist/server.js --stdio with a connection to the emulator) answers `workspace/executeCommand`
 * `tsq.server.runQuery` of a Run lens with the answer as a text table, the same rows the emulator's
 * searchdata gives the service client, and writes it to its log.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CodeLens } from 'vscode-languageserver-types';
import { startLive, type Live } from '../emulator/client-support';
import { LspClient } from '../protocol/lspClient';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => {
  await live?.stop();
});

test('tsq.server.runQuery of a Run lens answers the first rows as a table, and logs them', async () => {
  process.env.TSQ_PASSWORD = 'admin';
  const { client } = await LspClient.start({ args: ['--url', live.emu.url, '--user', 'tsadmin'] });
  try {
    const uri = 'file:///w/run.tsq';
    const query = '[origin] sum [delay] sort by [origin] top 3';
    await client.didOpen(uri, `@datasource 'flights'\n${query}\n`);
    const lenses = await client.connection.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    assert.equal(lenses.length, 1);
    const answer = await client.connection.sendRequest<string>('workspace/executeCommand', lenses[0]!.command!);
    const ds = (await live.client().listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'flights' })).find((h) => h.name === 'flights')!;
    const expected = await live.client().searchData({ queryString: query, dataSourceGuid: ds.id });
    const lines = answer.split('\n');
    assert.equal(lines[0], `flights: ${query}`);
    assert.deepEqual(lines[1]!.split(/\s{2,}/), expected.columnNames);
    const rows = lines.slice(3, 3 + expected.data.length).map((l) => l.trim().split(/\s{2,}/)[0]);
    assert.deepEqual(rows, (expected.data as unknown[][]).map((r) => String(r[0])));
    assert.equal(lines.at(-1), `${expected.data.length} of ${expected.totalRowCount} rows`);
    await client.waitFor('the answer in the log', () => client.logs.some((l) => l.includes(lines[1]!)));
  } finally {
    await client.stop();
  }
});
