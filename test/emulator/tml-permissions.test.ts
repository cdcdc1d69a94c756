// The emulator's sharing model on TML import (emulator/src/tml/answers.ts, MetadataStore.canModify;
// SECURITY.md "The emulator"): importing a TML whose guid names an existing object needs MODIFY on it
// (its author, an administrator, or a user or group it is shared with MODIFY through
// security/metadata/share); READ_ONLY is not enough, on v1 and v2, VALIDATE_ONLY included. And a GUID names
// one object of one type: an Answer TML with the GUID of a table, a worksheet or a liveboard is refused,
// and an untyped export of that GUID still gives the original object.
// Plain fetch against a real emulator (the demo seed): `analyst` reads the demo answer through the group
// Analysts (READ_ONLY) and is made a member of Data Managers, so it holds DATAMANAGEMENT, which import needs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startCore, PREFIX, type Core } from './core-support';

const V2 = '/api/rest/2.0';
let core: Core;
let admin = '';
let analyst = '';
let demoId = '';

async function v2(path: string, body: unknown, token: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** A v1 call with a form body, as tml-api.adoc's curl examples send it. */
async function v1(path: string, form: Record<string, string>, token: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${PREFIX}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-requested-by': 'ThoughtSpot', authorization: `Bearer ${token}` }, body: new URLSearchParams(form).toString() });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function tokenOf(username: string, password: string): Promise<string> {
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return ((await r.json()) as { token: string }).token;
}

/** The untyped v2 export of a GUID, as the administrator: its info and parsed TML. */
async function exported(id: string): Promise<{ info: any; doc: any }> {
  const r = await v2('/metadata/tml/export', { metadata: [{ identifier: id }], edoc_format: 'YAML' }, admin);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { info: r.body[0].info, doc: parse(r.body[0].edoc as string) };
}

/** An Answer TML (JSON text) with this guid and query on the demo's movies. */
const answerTml = (guid: string | undefined, query: string, name = 'Top grossing genres'): string =>
  JSON.stringify({ ...(guid ? { guid } : {}), answer: { name, tables: [{ id: 'movies', name: 'movies' }], search_query: query } });

const ORIGINAL = '[Major Genre] [Worldwide Gross] top 5';
const REWRITTEN = '[Major Genre] [US Gross] top 2';

/** Imports over the demo answer as `token` on v1 and on v2 (PARTIAL) and gives both per-object statuses. */
async function importOverDemo(token: string, query = REWRITTEN, policy = 'PARTIAL'): Promise<{ v1: any; v2: any }> {
  const r1 = await v1('/metadata/tml/import', { import_objects: JSON.stringify([answerTml(demoId, query)]), import_policy: policy }, token);
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  const r2 = await v2('/metadata/tml/import', { metadata_tmls: [answerTml(demoId, query)], import_policy: policy }, token);
  assert.equal(r2.status, 200, JSON.stringify(r2.body));
  return { v1: r1.body.object[0].response.status, v2: r2.body[0].response.status };
}

async function share(token: string, identifier: string, principal: string, type: 'USER' | 'USER_GROUP', mode: 'READ_ONLY' | 'MODIFY' | 'NO_ACCESS'): Promise<number> {
  return (await v2('/security/metadata/share', { metadata_identifiers: [identifier], permissions: [{ principal: { identifier: principal, type }, share_mode: mode }] }, token)).status;
}

async function restoreDemo(): Promise<void> {
  const r = await v2('/metadata/tml/import', { metadata_tmls: [answerTml(demoId, ORIGINAL)] }, admin);
  assert.equal(r.body[0].response.status.status_code, 'OK', JSON.stringify(r.body));
}

before(async () => {
  core = await startCore();
  admin = await tokenOf('tsadmin', 'admin');
  const add = await v2('/groups/Data Managers/update', { user_identifiers: ['analyst'], operation: 'ADD' }, admin);
  assert.equal(add.status, 204, JSON.stringify(add.body));
  analyst = await tokenOf('analyst', 'analyst');
  const found = await v2('/metadata/search', { metadata: [{ identifier: 'Top grossing genres', type: 'ANSWER' }] }, admin);
  demoId = found.body[0].metadata_id as string;
});
after(async () => core?.stop());

describe('import over an existing answer needs MODIFY on it', () => {
  test('shared READ_ONLY (through a group): refused per object on v1 and v2, and the answer is unchanged', async () => {
    const before = await exported(demoId);
    const r = await importOverDemo(analyst);
    for (const s of [r.v1, r.v2]) {
      assert.equal(s.status_code, 'ERROR', JSON.stringify(s));
      assert.match(s.error_message, /You may not change the answer Top grossing genres .*: it is shared with you READ_ONLY; importing over it needs MODIFY/);
    }
    const after = await exported(demoId);
    assert.equal(after.doc.answer.search_query, ORIGINAL);
    assert.deepEqual(after, before);
  });

  test('VALIDATE_ONLY reports the same refusal (what the import would do), and ALL_OR_NONE writes nothing', async () => {
    const v = await importOverDemo(analyst, REWRITTEN, 'VALIDATE_ONLY');
    assert.equal(v.v1.status_code, 'ERROR');
    assert.equal(v.v2.status_code, 'ERROR');
    assert.match(v.v2.error_message, /needs MODIFY/);
    const created = answerTml(undefined, '[Director] [US Gross] top 3', 'Mine, all or none');
    const r = await v2('/metadata/tml/import', { metadata_tmls: [created, answerTml(demoId, REWRITTEN)], import_policy: 'ALL_OR_NONE' }, analyst);
    assert.match(r.body[0].response.status.error_message, /ALL_OR_NONE/);
    assert.match(r.body[1].response.status.error_message, /needs MODIFY/);
    assert.equal((await exported(demoId)).doc.answer.search_query, ORIGINAL);
    const mine = await v2('/metadata/search', { metadata: [{ identifier: 'Mine, all or none', type: 'ANSWER' }] }, admin);
    assert.deepEqual(mine.body, []);
  });

  test('a READ_ONLY reader cannot grant itself MODIFY through security/metadata/share (403), and the share changes nothing', async () => {
    assert.equal(await share(analyst, demoId, 'analyst', 'USER', 'MODIFY'), 403);
    const r = await importOverDemo(analyst);
    assert.equal(r.v2.status_code, 'ERROR');
  });

  test('shared MODIFY with the user: allowed on v1 and v2; NO_ACCESS takes it back to the group\'s READ_ONLY', async () => {
    assert.equal(await share(admin, demoId, 'analyst', 'USER', 'MODIFY'), 204);
    try {
      const r = await importOverDemo(analyst);
      assert.deepEqual([r.v1.status_code, r.v2.status_code], ['OK', 'OK'], JSON.stringify(r));
      assert.equal((await exported(demoId)).doc.answer.search_query, REWRITTEN);
    } finally {
      assert.equal(await share(admin, demoId, 'analyst', 'USER', 'NO_ACCESS'), 204);
      await restoreDemo();
    }
    const again = await importOverDemo(analyst);
    assert.equal(again.v2.status_code, 'ERROR');
    assert.equal((await exported(demoId)).doc.answer.search_query, ORIGINAL);
  });

  test('shared MODIFY with a group of the user (Data Managers): allowed; a group share set back to READ_ONLY refuses again', async () => {
    assert.equal(await share(admin, demoId, 'Data Managers', 'USER_GROUP', 'MODIFY'), 204);
    try {
      const r = await importOverDemo(analyst);
      assert.deepEqual([r.v1.status_code, r.v2.status_code], ['OK', 'OK'], JSON.stringify(r));
    } finally {
      assert.equal(await share(admin, demoId, 'Data Managers', 'USER_GROUP', 'READ_ONLY'), 204);
      await restoreDemo();
    }
    assert.equal((await importOverDemo(analyst)).v2.status_code, 'ERROR');
  });

  test('the author (owner) and an administrator may import over it', async () => {
    const created = await v2('/metadata/tml/import', { metadata_tmls: [answerTml(undefined, '[Director] [US Gross] top 3', 'Analyst own answer')] }, analyst);
    const id = created.body[0].response.header.id_guid as string;
    assert.equal(created.body[0].response.header.author_guid, (await v2('/users/search', { user_identifier: 'analyst' }, admin)).body[0].id);
    const own = await v1('/metadata/tml/import', { import_objects: JSON.stringify([answerTml(id, '[Director] [US Gross] top 4', 'Analyst own answer')]) }, analyst);
    assert.equal(own.body.object[0].response.status.status_code, 'OK', JSON.stringify(own.body));
    const byAdmin = await importOverDemo(admin);
    assert.deepEqual([byAdmin.v1.status_code, byAdmin.v2.status_code], ['OK', 'OK']);
    await restoreDemo();
  });
});

describe('a GUID names one object of one type', () => {
  const tableId = async (name: string): Promise<string> => (await v2('/metadata/search', { metadata: [{ identifier: name, type: 'LOGICAL_TABLE' }] }, admin)).body[0].metadata_id as string;

  test('an Answer TML with the GUID of a table or a worksheet is refused on v1 and v2; an untyped export of that GUID still gives the table', async () => {
    for (const name of ['movies', 'Flights Worksheet']) {
      const id = await tableId(name);
      const before = await exported(id);
      const kind = before.info.type as string;
      const r1 = await v1('/metadata/tml/import', { import_objects: JSON.stringify([answerTml(id, REWRITTEN, 'Not a table')]) }, admin);
      const r2 = await v2('/metadata/tml/import', { metadata_tmls: [answerTml(id, REWRITTEN, 'Not a table')] }, admin);
      for (const s of [r1.body.object[0].response.status, r2.body[0].response.status]) {
        assert.equal(s.status_code, 'ERROR', JSON.stringify(s));
        assert.match(s.error_message, new RegExp(`guid ${id} is the ${kind} ${name}, not an answer`));
      }
      const after = await exported(id);
      assert.equal(after.info.type, kind);
      assert.deepEqual(after, before);
    }
    const answers = await v2('/metadata/search', { metadata: [{ identifier: 'Not a table', type: 'ANSWER' }] }, admin);
    assert.deepEqual(answers.body, []);
  });

  test('an Answer TML with the GUID of a liveboard, and a Liveboard TML with the GUID of an answer, are refused', async () => {
    const board = (await v2('/metadata/search', { metadata: [{ identifier: 'Flight Operations', type: 'LIVEBOARD' }] }, admin)).body[0].metadata_id as string;
    const r = await v2('/metadata/tml/import', { metadata_tmls: [answerTml(board, REWRITTEN)] }, admin);
    assert.match(r.body[0].response.status.error_message, new RegExp(`guid ${board} is the liveboard Flight Operations, not an answer`));
    const liveboard = JSON.stringify({ guid: demoId, liveboard: { name: 'x', visualizations: [] } });
    const v = await v2('/metadata/tml/import', { metadata_tmls: [liveboard], import_policy: 'VALIDATE_ONLY' }, admin);
    assert.match(v.body[0].response.status.error_message, new RegExp(`guid ${demoId} is the answer Top grossing genres, not a liveboard`));
    assert.equal((await exported(board)).info.type, 'liveboard');
    assert.equal((await exported(demoId)).info.type, 'answer');
  });

  test('an Answer TML with the GUID of a user, a group or a tag is refused too', async () => {
    const user = (await v2('/users/search', { user_identifier: 'analyst' }, admin)).body[0].id as string;
    const group = (await v2('/groups/search', { group_identifier: 'Analysts' }, admin)).body[0].id as string;
    const tag = (await v2('/tags/search', {}, admin)).body[0].id as string;
    const r = await v2('/metadata/tml/import', { metadata_tmls: [user, group, tag].map((g) => answerTml(g, REWRITTEN, 'Not an answer')) }, admin);
    assert.deepEqual(r.body.map((o: any) => o.response.status.status_code), ['ERROR', 'ERROR', 'ERROR']);
    assert.match(r.body[0].response.status.error_message, /is the user analyst, not an answer/);
    assert.match(r.body[1].response.status.error_message, /is the group Analysts, not an answer/);
    assert.match(r.body[2].response.status.error_message, /is the tag .*, not an answer/);
  });
});

describe('security/metadata/share', () => {
  test('checks its members: an unknown object or principal, a bad share_mode (400); signed out 401', async () => {
    assert.equal((await v2('/security/metadata/share', { metadata_identifiers: ['00000000-0000-4000-8000-000000000000'], permissions: [{ principal: { identifier: 'analyst', type: 'USER' }, share_mode: 'READ_ONLY' }] }, admin)).status, 400);
    assert.equal((await v2('/security/metadata/share', { metadata_identifiers: [demoId], permissions: [{ principal: { identifier: 'nobody', type: 'USER' }, share_mode: 'READ_ONLY' }] }, admin)).status, 400);
    assert.equal((await v2('/security/metadata/share', { metadata_identifiers: [demoId], permissions: [{ principal: { identifier: 'analyst', type: 'USER' }, share_mode: 'EVERYTHING' }] }, admin)).status, 400);
    assert.equal((await v2('/security/metadata/share', { metadata_identifiers: [demoId], permissions: [] }, 'not-a-token')).status, 401);
  });
  test('an object the caller may not read is unknown to it (400); a MODIFY share alone lets the user read it', async () => {
    const created = await v2('/metadata/tml/import', { metadata_tmls: [answerTml(undefined, '[Director] [US Gross] top 3', 'Administrator only')] }, admin);
    const id = created.body[0].response.header.id_guid as string;
    assert.equal(await share(analyst, id, 'analyst', 'USER', 'READ_ONLY'), 400);
    const exportAs = async (token: string): Promise<number> => (await v2('/metadata/tml/export', { metadata: [{ identifier: id }] }, token)).status;
    assert.equal(await exportAs(analyst), 403);
    assert.equal(await share(admin, id, 'analyst', 'USER', 'MODIFY'), 204);
    assert.equal(await exportAs(analyst), 200);
  });
});

describe('a seed shares MODIFY with sharedWithModify', () => {
  const seedDir = (answer: Record<string, unknown>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'tsq-perms-seed-'));
    writeFileSync(join(dir, 'model.json'), JSON.stringify({
      groups: [{ name: 'Editors', privileges: ['DATAMANAGEMENT'] }],
      users: [{ name: 'editor', password: 'editor', groups: ['Analysts', 'Editors'] }, { name: 'viewer', password: 'viewer', groups: ['Analysts', 'Editors'] }],
      answers: [{ name: 'Seeded', visualizations: [{ name: 'Seeded', dataSource: 'movies', query: '[Director] [US Gross] top 3' }], ...answer }],
    }));
    return dir;
  };

  test('the user named in sharedWithModify may import over the answer; one in sharedWith may not', async () => {
    const dir = seedDir({ sharedWith: ['viewer'], sharedWithModify: ['editor'] });
    const seeded = await startCore({ seed: dir }, join(dir, 'state'));
    try {
      const tokenAt = async (u: string): Promise<string> => ((await (await fetch(`${seeded.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: u, password: u }) })).json()) as { token: string }).token;
      const post = async (token: string, body: unknown): Promise<any> => (await fetch(`${seeded.emu.url}${V2}/metadata/tml/import`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })).json();
      const search = await fetch(`${seeded.emu.url}${V2}/metadata/search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenAt('editor')}` }, body: JSON.stringify({ metadata: [{ identifier: 'Seeded', type: 'ANSWER' }] }) });
      const id = ((await search.json()) as { metadata_id: string }[])[0]!.metadata_id;
      const tml = answerTml(id, '[Director] [US Gross] top 1', 'Seeded');
      assert.equal((await post(await tokenAt('viewer'), { metadata_tmls: [tml] }))[0].response.status.status_code, 'ERROR');
      assert.equal((await post(await tokenAt('editor'), { metadata_tmls: [tml] }))[0].response.status.status_code, 'OK');
    } finally {
      await seeded.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a name in both sharedWith and sharedWithModify stops the seed, naming it', async () => {
    const dir = seedDir({ sharedWith: ['editor'], sharedWithModify: ['editor'] });
    try {
      await assert.rejects(startCore({ seed: dir }, join(dir, 'state')), /Seeded: editor is in both sharedWith and sharedWithModify/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
