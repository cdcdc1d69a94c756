// The Org tools over the agent backend port (common/src/agent/tools.ts): list_data_sources names the Org
// when the front end knows it, and lists the data sources all the same when the service cannot say
// (a cluster without Orgs); switch_org refuses an empty Org before calling anything. A backend of plain
// functions stands for a front end (the port is the tools' only dependency; test/cli/mcp-orgs.test.ts
// runs them against the emulator).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listDataSources, switchOrg } from '../../common/src/agent/tools';
import type { AgentBackend } from '../../common/src/agent/backend';

function backend(listOrgs?: AgentBackend['listOrgs'], switchTo?: AgentBackend['switchOrg']): AgentBackend {
  return {
    getDataSources: async () => [{ id: 'g1', name: 'flights', type: 'LOGICAL_TABLE' }],
    getColumns: async () => null,
    getColumnValues: async () => [],
    validate: async () => [],
    search: async () => ({ columnNames: [], rows: [], totalRowCount: 0 }),
    secrets: () => [],
    ...(listOrgs ? { listOrgs } : {}),
    ...(switchTo ? { switchOrg: switchTo } : {}),
  };
}

test('list_data_sources names the Org, or lists without it when the Orgs cannot be read', async () => {
  const named = await listDataSources(backend(async () => ({ orgs: [{ id: 7, name: 'Finance' }], current: { id: 7, name: 'Finance' } })));
  assert.deepEqual(named.structured?.org, { id: 7, name: 'Finance' });
  assert.match(named.text, /in the current Org/);
  const without = await listDataSources(backend(async () => { throw new Error('404 session/orgs'); }));
  assert.equal(without.isError, undefined, without.text);
  assert.equal(without.structured?.org, undefined);
  assert.deepEqual(without.structured?.dataSources.map((d) => d.name), ['flights']);
});

test('switch_org needs an Org and a front end that can switch', async () => {
  let switched = '';
  const b = backend(async () => ({ orgs: [], current: { id: 0, name: 'Primary' } }), async (org) => { switched = org; return { id: 0, name: 'Primary' }; });
  assert.equal((await switchOrg(b, { org: '' })).isError, true);
  assert.equal(switched, '', 'nothing was switched');
  assert.equal((await switchOrg(backend(), { org: 'Primary' })).isError, true);
  const ok = await switchOrg(b, { org: 0 });
  assert.equal(ok.isError, undefined, ok.text);
  assert.equal(switched, '0');
});
