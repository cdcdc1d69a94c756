// `tsq mcp` in Orgs: the tools say which Org they run in (list_data_sources), list_orgs names the user's
// Orgs and the current one, switch_org makes every later call run in another (an Org the user is not in
// is refused and nothing changes), as ThoughtSpot's own MCP server offers. The MCP SDK's Client over stdio
// on the built command line, against a real emulator (demo seed: Orgs Primary and Finance).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startLive, type Live } from '../emulator/client-support';
import { CLI_JS, cleanEnv, EMPTY_HOME } from './cli-support';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => live?.stop());

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ structured: any; isError: boolean; text: string }> {
  const r = await client.callTool({ name, arguments: args });
  return { structured: r.structuredContent, isError: r.isError === true, text: (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n') };
}

test('list_data_sources names its Org; list_orgs and switch_org move the tools between Orgs', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--url', live.emu.url, '--user', 'analyst', '--org', 'Finance'], env: cleanEnv({ TSQ_PASSWORD: 'analyst' }) as Record<string, string>, cwd: EMPTY_HOME, stderr: 'pipe' });
  const client = new Client({ name: 'tsq-org-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    const first = await call(client, 'list_data_sources');
    assert.equal(first.isError, false, first.text);
    assert.equal(first.structured.org.name, 'Finance');
    assert.deepEqual(first.structured.dataSources.map((d: { name: string }) => d.name), ['quotes']);
    const orgs = await call(client, 'list_orgs');
    assert.deepEqual(orgs.structured.orgs.map((o: { name: string }) => o.name).sort(), ['Finance', 'Primary']);
    assert.equal(orgs.structured.current.name, 'Finance');
    const switched = await call(client, 'switch_org', { org: 'Primary' });
    assert.equal(switched.isError, false, switched.text);
    assert.equal(switched.structured.current.name, 'Primary');
    const primary = await call(client, 'list_data_sources');
    const names = primary.structured.dataSources.map((d: { name: string }) => d.name);
    assert.ok(names.includes('flights') && !names.includes('quotes'), names.join());
    const refused = await call(client, 'switch_org', { org: 'Nowhere' });
    assert.equal(refused.isError, true);
    assert.equal((await call(client, 'list_orgs')).structured.current.name, 'Primary', 'a refused switch changes nothing');
    const run = await call(client, 'run_query', { data_source: 'quotes', query: '[symbol]' });
    assert.equal(run.isError, true, 'a data source of the other Org is unknown here');
  } finally {
    await client.close();
  }
});
