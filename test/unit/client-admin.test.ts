/**
 * The Objects view's pinboard and answer lists and the administration operations, through the
 * extension's service adapter against the real emulator (demo seed): visualizations of a pinboard,
 * Users & Groups only for administrators, group privileges, password change, ownership transfer,
 * a dry-run principal sync, and a materialized view refresh.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { createServiceCatalog } from '../../client/src/catalog';
import { summarizeSync } from '../../client/src/principals';
import { createService, type Service } from '../../client/src/serviceAdapter';
import { childrenFetcher, rootNodes, type ListOptions, type ObjectNode } from '../../client/src/tree/nodes';

let emulator: RunningEmulator;
let dataDir: string;
let admin: Service;
const opened: Service[] = [];
const options: ListOptions = { sort: 'NAME', sortAscending: true, category: 'ALL', batchSize: 100 };

function serviceFor(username: string, password: string): Service {
  const s = createService({ url: emulator.url, username }, () => password);
  opened.push(s);
  return s;
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tsq-client-admin-'));
  emulator = await startEmulator({ port: 0, dataDir, demo: true, now: '2024-06-01T00:00:00Z' });
  admin = serviceFor('tsadmin', 'admin');
});

after(async () => {
  for (const s of opened) await s.logout();
  await emulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function children(node: ObjectNode, api: Service = admin): Promise<ObjectNode[]> {
  const { fetch, batchSize } = childrenFetcher(node, async () => api, async () => createServiceCatalog(api), options);
  return fetch(0, batchSize);
}

test('a pinboard expands to its visualizations (listvizheaders)', async () => {
  const pinboards = await children(rootNodes(true)[1]);
  assert.ok(pinboards.length >= 1);
  const vizzes = await children(pinboards[0]);
  assert.ok(vizzes.length >= 1, 'visualizations');
  for (const v of vizzes) {
    assert.equal(v.kind, 'viz');
    if (v.kind === 'viz' && pinboards[0].kind === 'object') assert.equal(v.parentId, pinboards[0].header.id);
  }
  const answers = await children(rootNodes(true)[2]);
  assert.ok(answers.length >= 1, 'answers');
});

test('user/list is for administrators: a non-administrator gets 403 (the tree hides Users & Groups)', async () => {
  const analyst = serviceFor('analyst', 'analyst');
  await assert.rejects(analyst.listPrincipals(), (e: { status?: number }) => e.status === 403);
  const users = await children({ kind: 'principalGroup', key: 'principals:USER', principalKind: 'USER', label: 'Users' });
  assert.ok(users.some((u) => u.kind === 'principal' && u.principal.name === 'analyst'));
});

test('a group privilege is added and removed', async () => {
  const privileges = async () => (await admin.listPrincipals()).find((p) => p.kind === 'GROUP' && p.name === 'Analysts')?.privileges ?? [];
  assert.ok(!(await privileges()).includes('DATAMANAGEMENT'));
  await admin.addGroupPrivilege({ groupNames: ['Analysts'], privilege: 'DATAMANAGEMENT' });
  assert.ok((await privileges()).includes('DATAMANAGEMENT'));
  await admin.removeGroupPrivilege({ groupNames: ['Analysts'], privilege: 'DATAMANAGEMENT' });
  assert.ok(!(await privileges()).includes('DATAMANAGEMENT'));
});

test('a password change takes effect: the old password is refused, the new one accepted', async () => {
  await admin.updatePassword({ name: 'analyst', currentPassword: 'analyst', newPassword: 'n3w-secret' });
  await assert.rejects(serviceFor('analyst', 'analyst').login(), (e: { status?: number }) => e.status === 401);
  await serviceFor('analyst', 'n3w-secret').login();
});

test('ownership transfer and a dry-run sync answer, and a materialized view refresh is accepted', async () => {
  await admin.transferOwnership({ fromUserName: 'analyst', toUserName: 'tsadmin' });
  const result = await admin.syncPrincipals({ principals: [{ name: 'newbie', principalTypeEnum: 'LOCAL_USER', groupNames: [] }], applyChanges: false, removeDeleted: false, password: 'welcome-1' });
  assert.match(summarizeSync(result), /usersAdded/);
  assert.ok(!(await admin.listPrincipals()).some((p) => p.name === 'newbie'), 'a dry run changes nothing');
  const flights = await createServiceCatalog(admin).resolve('flights');
  assert.ok(flights);
  await admin.refreshMaterializedView(flights.id);
});
