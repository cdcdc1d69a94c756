// The TML import routes read TML within the one reader's limits (common/src/tml/boundedYaml.ts
// `TML_LIMITS`; SECURITY.md "Bounded parsing"): a VALIDATE_ONLY import of a 30,000-key TML (under the
// body limit) answers 400 in each API's error shape on v1 and v2, and a login sent beside it is not held
// up — its latency compared with the same login alone, as a ratio in the same run. Plain fetch against
// a real emulator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, PREFIX, type Core } from './core-support';
import { SIGNED_IN_BODY_LIMIT } from '../../emulator/src/app';

const V2 = '/api/rest/2.0';
let core: Core;
let token = '';

/** An Answer TML with `n` keys under `answer` (about 12 bytes each). */
const manyKeys = (n: number): string => `answer:\n  name: big\n  tables: [{id: t, name: t}]\n  search_query: '[a]'\n${Array.from({ length: n }, (_, i) => `  k${i}: v${i}\n`).join('')}`;
const BIG = manyKeys(30_000);

async function v2Import(tml: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${core.emu.url}${V2}/metadata/tml/import`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ metadata_tmls: [tml], import_policy: 'VALIDATE_ONLY' }) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function v1Import(tml: string): Promise<{ status: number; body: any }> {
  const form = new URLSearchParams({ import_objects: JSON.stringify([tml]), import_policy: 'VALIDATE_ONLY' });
  const r = await fetch(`${core.emu.url}${PREFIX}/metadata/tml/import`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-requested-by': 'ThoughtSpot', authorization: `Bearer ${token}` }, body: form.toString() });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** Milliseconds of one v2 login of another user (analyst). */
async function loginTime(): Promise<number> {
  const t = performance.now();
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'analyst', password: 'analyst' }) });
  assert.equal(r.status, 200);
  await r.arrayBuffer();
  return performance.now() - t;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

before(async () => {
  core = await startCore();
  const r = await fetch(`${core.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  token = ((await r.json()) as { token: string }).token;
});
after(async () => core?.stop());

test('a 30,000-key TML is under the body limit and refused with 400 on v2 and v1, in each one\'s error shape', async () => {
  assert.ok(Buffer.byteLength(JSON.stringify({ metadata_tmls: [BIG] })) < SIGNED_IN_BODY_LIMIT);
  const v2 = await v2Import(BIG);
  assert.equal(v2.status, 400, JSON.stringify(v2.body));
  assert.match(v2.body.error.message.debug, /more than 20,000 keys and list items/);
  const v1 = await v1Import(BIG);
  assert.equal(v1.status, 400, JSON.stringify(v1.body));
  assert.match(JSON.stringify(v1.body), /more than 20,000 keys and list items/);
  // a TML within the limits is still checked per object, with its duplicate key reported
  const dup = await v2Import("answer:\n  name: n\n  name: m\n  tables: [{id: t, name: t}]\n  search_query: '[a]'\n");
  assert.equal(dup.status, 200, JSON.stringify(dup.body));
  assert.equal(dup.body[0].response.status.status_code, 'ERROR');
});

test('a login beside the 30,000-key import is not held up (its latency against the same login alone)', async () => {
  const alone: number[] = [];
  for (let k = 0; k < 5; k++) alone.push(await loginTime());
  const beside: number[] = [];
  const statuses: number[] = [];
  for (let k = 0; k < 3; k++) {
    const imported = v2Import(BIG);
    beside.push(await loginTime());
    statuses.push((await imported).status);
  }
  // before the bounded reader the login waited for a quadratic key check: seconds, hundreds of times a login
  const ratio = median(beside) / Math.max(median(alone), 1);
  assert.ok(ratio < 25, `login beside the import: ${median(beside).toFixed(1)} ms, alone: ${median(alone).toFixed(1)} ms (ratio ${ratio.toFixed(1)})`);
  assert.deepEqual(statuses, [400, 400, 400]);
});
