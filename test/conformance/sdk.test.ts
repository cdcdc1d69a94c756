// ThoughtSpot's own TypeScript SDK (@thoughtspot/rest-api-sdk, a dev dependency of the tests only, never
// bundled: its licence is not open source) calls every REST API v2 operation of TSQ's operations table
// (common/src/api/operations.ts) and every operation the emulator adds for SDK users (EMULATOR_ONLY below)
// against the real emulator over HTTP. The SDK deserialises each answer through its models; on top of
// that, every member of every model it built is checked against the type its model declares (a number
// where the model says string, as `orgs[].id` of a group once was, fails), and an error status fails.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sdk from '@thoughtspot/rest-api-sdk';
import { createBearerAuthenticationConfig, ThoughtSpotRestApi } from '@thoughtspot/rest-api-sdk';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { OPERATION_NAMES, SERVICE_OPERATIONS, type ServiceOperation } from '../../common/src/api/operations';

const SECRET_KEY = '0c6d7a52-1f0e-4d1a-9d3e-5c1b2a3f4e5d';

/** The v2 operationIds the operations table names (`v2.operationId`, some rows name two). */
const TABLE_OPERATIONS = [...new Set(OPERATION_NAMES.flatMap((n) => {
  const v2: ServiceOperation['v2'] = SERVICE_OPERATIONS[n].v2;
  return 'operationId' in v2 ? v2.operationId.split(', ') : [];
}))];

/**
 * Operations the emulator answers that TSQ's client does not call (yet): the sign-ins and the
 * operations an SDK user calls first (issue "the v2 operations ThoughtSpot's SDK offers").
 */
const EMULATOR_ONLY = [
  'getFullAccessToken', 'getCurrentUserInfo', 'getCurrentUserToken', 'validateToken', 'getObjectAccessToken', 'getCustomAccessToken', 'revokeToken', 'login', 'logout',
  'getSystemInformation', 'getSystemConfig', 'searchConnection', 'searchRoles', 'searchTags', 'fetchAnswerData',
  'createTag', 'assignTag', 'unassignTag', 'deleteTag', 'shareMetadata', 'fetchPermissionsOnMetadata', 'fetchLiveboardSqlQuery', 'deleteMetadata',
  'createUser', 'updateUser', 'deleteUser', 'createUserGroup', 'deleteUserGroup',
  'exportAnswerReport', 'exportLiveboardReport', 'exportMetadataTMLBatched', 'importMetadataTMLAsync', 'fetchAsyncImportTaskStatus',
];

/**
 * Operations of the table the SDK of this test has no method for: input tables (26.11.0.cl) came after
 * SDK 2.24.0, the newest the registry serves; they are driven over HTTP in
 * test/emulator/v2-input-tables.test.ts. A newer SDK with an `InputTablesApi` fails the check below.
 */
const NOT_IN_SDK = ['createInputTable', 'updateInputTable', 'deleteInputTable'];

type Api = ThoughtSpotRestApi;
/** What earlier calls found, for the later ones (GUIDs, tokens, TML). */
interface Found {
  [key: string]: string;
}

/** A model instance the SDK built: its class lists its members and their declared types. */
interface Model {
  constructor: { getAttributeTypeMap?: () => { name: string; type: string }[] };
}

/**
 * Every place in `value` (the SDK's answer) whose type differs from the type its model declares for it:
 * `string`, `number`, `boolean`, `Date`, `Array<T>`, another model (an instance of it), an enum (a string)
 * or `any`/`object` (anything). Returns the paths at fault, empty when the answer is as typed.
 */
function typeFaults(value: unknown, type: string, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (type === 'any' || type === 'object' || type === '{ [key: string]: any; }') return [];
  if (type.startsWith('Array<')) {
    if (!Array.isArray(value)) return [`${path}: ${JSON.stringify(value)} is not an array (${type})`];
    return value.flatMap((v, i) => typeFaults(v, type.slice(6, -1), `${path}[${i}]`));
  }
  if (type === 'string' || type === 'number' || type === 'boolean') return typeof value === type ? [] : [`${path}: ${JSON.stringify(value)} is not a ${type}`];
  if (type === 'Date') return value instanceof Date && !Number.isNaN(value.getTime()) ? [] : [`${path}: not a date`];
  const members = (value as Model).constructor?.getAttributeTypeMap?.();
  if (members) return members.flatMap((m) => typeFaults((value as Record<string, unknown>)[m.name], m.type, `${path}.${m.name}`));
  // not a model class: an enum, whose values are strings
  return typeof value === 'string' ? [] : [`${path}: ${JSON.stringify(value)} is not a ${type} (an enum of strings, or a model)`];
}

/** Checks an SDK answer: a model instance (or a list of them), void, or a file. */
function assertAsTyped(name: string, answer: unknown): void {
  const list = Array.isArray(answer) ? answer : [answer];
  const faults = list.flatMap((a, i) => {
    const members = (a as Model | undefined)?.constructor?.getAttributeTypeMap?.();
    return members ? members.flatMap((m) => typeFaults((a as Record<string, unknown>)[m.name], m.type, `${name}[${i}].${m.name}`)) : [];
  });
  assert.deepEqual(faults, [], `${name}: members typed otherwise than the SDK's models declare`);
}

/** A file answer (reports): its text. */
async function fileText(f: unknown): Promise<string> {
  assert.ok(f instanceof Blob, 'a file');
  return (f as Blob).text();
}

/**
 * The SDK calls, in order (later ones use what earlier ones found); each checks what it got beyond the
 * types. `as never` where the SDK types a request member as a class that plain JSON satisfies.
 */
const CALLS: [string, (api: Api, found: Found, anon: Api) => Promise<unknown>][] = [
  ['getFullAccessToken', async (_api, found, anon) => {
    const t = await anon.getFullAccessToken({ username: 'analyst', password: 'analyst', validity_time_in_sec: 600 });
    found.analystToken = t.token;
    // Orgs through the SDK: a token asked for Finance (org_id) sees Finance's table and none of Primary's
    const asAnalyst = new ThoughtSpotRestApi(createBearerAuthenticationConfig(emu.url, async () => t.token));
    const finance = (await asAnalyst.getCurrentUserInfo()).orgs!.find((o) => o.name === 'Finance')!;
    const inFinance = await anon.getFullAccessToken({ username: 'analyst', password: 'analyst', org_id: Number(finance.id) });
    const financeApi = new ThoughtSpotRestApi(createBearerAuthenticationConfig(emu.url, async () => inFinance.token));
    const seen = (await financeApi.searchMetadata({ metadata: [{ type: 'LOGICAL_TABLE' }], record_size: -1 } as never)).map((m) => m.metadata_name);
    assert.ok(seen.includes('quotes') && !seen.includes('flights'), seen.join());
    return [t, inFinance];
  }],
  ['login', (_api, _f, anon) => anon.login({ username: 'analyst', password: 'analyst' })],
  ['getCurrentUserInfo', async (api) => {
    const u = await api.getCurrentUserInfo();
    assert.equal(u.name, 'tsadmin');
    return u;
  }],
  ['getCurrentUserToken', async (api, found) => {
    const t = await api.getCurrentUserToken();
    found.sessionToken = t.token;
    return t;
  }],
  ['validateToken', async (api, found) => {
    const v = await api.validateToken({ token: found.sessionToken! });
    assert.equal(v.token_type, 'BEARER');
    return v;
  }],
  ['revokeToken', (api, found) => api.revokeToken({ token: found.sessionToken })],
  ['getSystemInformation', (api) => api.getSystemInformation()],
  ['getSystemConfig', (api) => api.getSystemConfig()],
  ['searchMetadata', async (api, found) => {
    const all = await api.searchMetadata({ metadata: [{ type: 'ANSWER' }, { type: 'LIVEBOARD' }, { type: 'LOGICAL_TABLE' }], record_size: -1 } as never);
    const id = (name: string): string => all.find((m) => m.metadata_name === name)!.metadata_id!;
    found.answer = id('Top grossing genres');
    found.liveboard = id('Flight Operations');
    found.otherLiveboard = id('Markets and Weather');
    found.table = id('flights');
    return all;
  }],
  ['getObjectAccessToken', (_api, found, anon) => anon.getObjectAccessToken({ username: 'analyst', password: 'analyst', object_id: found.answer })],
  ['getCustomAccessToken', (_api, _f, anon) => anon.getCustomAccessToken({ username: 'analyst', secret_key: SECRET_KEY, persist_option: 'NONE' })],
  ['searchData', async (api, found) => {
    const r = await api.searchData({ query_string: '[origin] [delay]', logical_table_identifier: found.table!, record_size: 5 });
    assert.equal(r.contents[0]!.data_rows.length, 5);
    return r;
  }],
  ['fetchLiveboardData', (api, found) => api.fetchLiveboardData({ metadata_identifier: found.liveboard })],
  ['fetchLiveboardSqlQuery', (api, found) => api.fetchLiveboardSqlQuery({ metadata_identifier: found.liveboard! })],
  ['fetchAnswerData', (api, found) => api.fetchAnswerData({ metadata_identifier: found.answer! })],
  ['fetchAnswerSqlQuery', (api, found) => api.fetchAnswerSqlQuery({ metadata_identifier: found.answer! })],
  ['searchCalendars', (api) => api.searchCalendars({})],
  ['searchConnection', (api) => api.searchConnection({})],
  ['searchRoles', (api) => api.searchRoles({})],
  ['exportMetadataTML', async (api, found) => {
    const r = await api.exportMetadataTML({ metadata: [{ identifier: found.answer! }] });
    found.answerTml = (r[0] as { edoc: string }).edoc;
    return r;
  }],
  ['importMetadataTML', (api, found) => api.importMetadataTML({ metadata_tmls: [found.answerTml!], import_policy: 'VALIDATE_ONLY' })],
  ['importMetadataTMLAsync', async (api, found) => {
    const t = await api.importMetadataTMLAsync({ metadata_tmls: [found.answerTml!], import_policy: 'ALL_OR_NONE' });
    found.task = t.task_id!;
    return t;
  }],
  ['fetchAsyncImportTaskStatus', async (api, found) => {
    const s = await api.fetchAsyncImportTaskStatus({ task_ids: [found.task!], include_import_response: true });
    assert.equal(s.status_list![0]!.task_status, 'COMPLETED');
    return s;
  }],
  ['exportMetadataTMLBatched', (api) => api.exportMetadataTMLBatched({ metadata_type: 'USER_GROUP' })],
  ['exportAnswerReport', async (api, found) => {
    const f = await api.exportAnswerReport({ metadata_identifier: found.answer, file_format: 'CSV' });
    assert.match(await fileText(f), /Major Genre/);
    return undefined;
  }],
  ['exportLiveboardReport', async (api, found) => {
    const f = await api.exportLiveboardReport({ metadata_identifier: found.liveboard!, visualization_identifiers: ['Distance flown per month'], file_format: 'CSV' });
    assert.ok((await fileText(f)).split('\n').length > 2);
    return undefined;
  }],
  ['searchTags', (api) => api.searchTags({})],
  ['createTag', async (api, found) => {
    const t = await api.createTag({ name: 'sdk-tag' });
    found.tag = t.id;
    return t;
  }],
  ['assignTag', (api, found) => api.assignTag({ metadata: [{ identifier: found.answer!, type: 'ANSWER' }], tag_identifiers: [found.tag!] })],
  ['unassignTag', (api, found) => api.unassignTag({ metadata: [{ identifier: found.answer!, type: 'ANSWER' }], tag_identifiers: [found.tag!] })],
  ['deleteTag', (api, found) => api.deleteTag(found.tag!)],
  ['searchUsers', async (api) => {
    const admins = await api.searchUsers({ privileges: ['ADMINISTRATION'], record_size: -1 });
    assert.deepEqual(admins.map((u) => u.name), ['tsadmin']);
    return admins;
  }],
  ['searchUserGroups', async (api) => {
    const g = await api.searchUserGroups({ include_users: false, record_size: -1 });
    assert.ok(g.length > 0 && g.every((x) => x.users === undefined));
    return g;
  }],
  ['importUserGroups', (api) => api.importUserGroups({ groups: [{ group_identifier: 'SDK Group', display_name: 'SDK Group', privileges: ['AUTHORING'] }], dry_run: false } as never)],
  ['importUsers', (api) => api.importUsers({ users: [{ user_identifier: 'sdk-imported', display_name: 'Imported', password: 'Imported-1', group_identifiers: ['SDK Group'] }], dry_run: false } as never)],
  ['createUser', (api) => api.createUser({ name: 'sdk-user', display_name: 'SDK User', email: 'sdk@example.com', password: 'Sdk-user-1', group_identifiers: ['Analysts'] })],
  ['updateUser', (api) => api.updateUser('sdk-user', { display_name: 'SDK User, renamed', group_identifiers: ['SDK Group'], operation: 'ADD' })],
  ['changeUserPassword', (api) => api.changeUserPassword({ user_identifier: 'sdk-user', current_password: 'Sdk-user-1', new_password: 'Sdk-user-2' })],
  ['createUserGroup', (api) => api.createUserGroup({ name: 'SDK Made', display_name: 'SDK Made', privileges: ['DATADOWNLOADING'], user_identifiers: ['sdk-user'] })],
  ['updateUserGroup', (api) => api.updateUserGroup('SDK Made', { privileges: ['AUTHORING'], operation: 'ADD' })],
  ['shareMetadata', (api, found) => api.shareMetadata({ metadata_type: 'LIVEBOARD', metadata_identifiers: [found.otherLiveboard!], permissions: [{ principal: { identifier: 'SDK Made', type: 'USER_GROUP' }, share_mode: 'READ_ONLY' }] } as never)],
  ['fetchPermissionsOnMetadata', async (api, found) => {
    const p = await api.fetchPermissionsOnMetadata({ metadata: [{ identifier: found.otherLiveboard!, type: 'LIVEBOARD' }] });
    assert.match(JSON.stringify(p.metadata_permission_details), /SDK Made/);
    return p;
  }],
  ['assignChangeAuthor', (api, found) => api.assignChangeAuthor({ metadata: [{ identifier: found.otherLiveboard!, type: 'LIVEBOARD' }], user_identifier: 'sdk-user' } as never)],
  ['deleteMetadata', (api, found) => api.deleteMetadata({ metadata: [{ identifier: found.otherLiveboard!, type: 'LIVEBOARD' }] })],
  ['deleteUserGroup', (api) => api.deleteUserGroup('SDK Made')],
  ['deleteUser', (api) => api.deleteUser('sdk-user')],
  ['logout', (api) => api.logout()],
];

let emu: RunningEmulator;
let dataDir: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tsq-sdk-'));
  emu = await startEmulator({ port: 0, dataDir, demo: true, publicApi: 'v2', trustedAuthSecret: SECRET_KEY });
});
after(async () => {
  await emu?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("ThoughtSpot's TypeScript SDK against the emulator", () => {
  test('the calls cover every v2 operation of the operations table, and each of the emulator-only list once', () => {
    const called = CALLS.map(([name]) => name);
    const table = TABLE_OPERATIONS.filter((o) => !NOT_IN_SDK.includes(o));
    assert.deepEqual(table.filter((o) => !called.includes(o)), [], 'operations of the table the SDK test does not call');
    assert.deepEqual([...called].sort(), [...new Set([...table, ...EMULATOR_ONLY])].sort());
    assert.ok(NOT_IN_SDK.every((o) => TABLE_OPERATIONS.includes(o)), 'an operation listed as missing from the SDK is not in the table');
    assert.ok(!('InputTablesApi' in sdk) && !NOT_IN_SDK.some((o) => o in ThoughtSpotRestApi.prototype), 'this SDK has input tables: call them through it');
  });

  test('every call answers a shape the SDK accepts, typed as its models declare', async (t) => {
    // the logout ends the administrator's own token: a token of its own for this test
    const api = new ThoughtSpotRestApi(createBearerAuthenticationConfig(emu.url, { username: 'tsadmin', password: 'admin' }));
    const anon = new ThoughtSpotRestApi(createBearerAuthenticationConfig(emu.url, async () => ''));
    const found: Found = {};
    for (const [name, call] of CALLS) {
      await t.test(name, async () => {
        assert.equal(typeof (api as unknown as Record<string, unknown>)[name], 'function', `the SDK has ${name}`);
        assertAsTyped(name, await call(api, found, anon));
      });
    }
  });
});
