// The language server given a connection (`dist/server.js --stdio --url … --user …`) reads the catalog from
// the service itself when the editor does not answer TSQ's catalog requests — an error reply counts as
// not answering, MethodNotFound (Neovim's answer) or any other — and keeps to the editor's catalog when
// the editor answers. A real LSP client (test/protocol/lspClient.ts) against the real emulator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseError } from 'vscode-jsonrpc/node';
import { startLive, type Live } from '../emulator/client-support';
import { LspClient } from '../protocol/lspClient';
import type { CatalogProvider } from '../../common/src/languageService/types';

const URI = 'file:///tmp/takeover.tsq';
const TEXT = "@datasource 'flights'\n[origin] [delayz]\n";
let live: Live;

before(async () => {
  live = await startLive();
  // the server reads the password from its environment (inherited from this process), never from a flag
  process.env.TSQ_PASSWORD = 'admin';
});

after(async () => {
  await live?.stop();
});

async function diagnosticsWith(options: Parameters<typeof LspClient.start>[0]): Promise<{ codes: string[]; messages: string[]; client: LspClient }> {
  const { client } = await LspClient.start({ args: ['--validation-delay=0', '--url', live.emu.url, '--user', 'tsadmin'], ...options });
  await client.didOpen(URI, TEXT);
  const diagnostics = await client.waitFor('a semantic diagnostic', () => {
    const list = client.published.get(URI) ?? [];
    const last = list[list.length - 1];
    return last && last.diagnostics.length ? last.diagnostics : undefined;
  }, 30_000);
  return { codes: diagnostics.map((d) => String(d.code)), messages: diagnostics.map((d) => (typeof d.message === 'string' ? d.message : d.message.value)), client };
}

test('a client that answers MethodNotFound (as Neovim does): the service catalog takes over at once', async () => {
  const { codes, messages, client } = await diagnosticsWith({});
  try {
    assert.deepEqual(codes, ['tsq.unknownColumn']);
    assert.match(messages[0], /Unknown column \[delayz\] in "flights"\. Did you mean \[delay\]\?/);
    assert.ok(client.logs.some((l) => /the client gave no catalog; reading it from the service directly/.test(l)), client.logs.join('\n'));
    const list = await client.completion(URI, { line: 1, character: 1 });
    assert.ok(list?.items.some((i) => i.label === 'destination'));
  } finally {
    await client.stop();
  }
});

test('a client that answers the catalog requests with another error: the service takes over too', async () => {
  const fail = () => {
    throw new ResponseError(-32603, 'no catalog here');
  };
  const { codes, client } = await diagnosticsWith({ handlers: { 'tsq/dataSources': fail, 'tsq/columns': fail, 'tsq/columnValues': fail } });
  try {
    assert.deepEqual(codes, ['tsq.unknownColumn']);
  } finally {
    await client.stop();
  }
});

test('a client that answers keeps its catalog: the service is not asked', async () => {
  const catalog: CatalogProvider = {
    getDataSources: () => Promise.resolve([{ id: 'editor-flights', name: 'flights', type: 'WORKSHEET' }]),
    getColumns: () => Promise.resolve({ id: 'editor-flights', name: 'flights', columns: [{ name: 'delayz', dataType: 'INT64', kind: 'MEASURE' }] }),
    getColumnValues: () => Promise.resolve([]),
  };
  const { codes, messages, client } = await diagnosticsWith({ catalog });
  try {
    assert.deepEqual(codes, ['tsq.unknownColumn']);
    assert.match(messages[0], /Unknown column \[origin\]/);
  } finally {
    await client.stop();
  }
});
