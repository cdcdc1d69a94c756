import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRequest, redactPath } from '../../common/src/logFormat';
import { columnsFromDetails, columnsFromHeaders, toDataType, toKind } from '../../common/src/catalog';
import { parsePrincipals, parsePrincipalsFile, summarizeSync } from '../../client/src/principals';
import { splitPasswords } from '../../client/src/settingsMigration';
import { contextFlags, formatTime, objectNode, rootNodes, toPattern, tooltipLines, columnIcon } from '../../client/src/tree/nodes';
import type { ObjectHeader } from '../../common/src/api/publicApi';

/** An object header as `listobjectheaders` sends it (docs/service-interface.md §2.4), with `h`'s members. */
function header(h: Partial<ObjectHeader> & { id: string; name: string }): ObjectHeader {
  return { author: '', created: 0, modified: 0, modifiedBy: '', owner: '', isAutoCreated: false, isAutoDelete: false, ...h };
}

test('a request log line has method, path, status and ms, and masks credential-like query values', () => {
  assert.equal(formatRequest({ method: 'post', path: '/callosum/v1/tspublic/v1/session/login', status: 204, ms: 12.4 }), 'POST /callosum/v1/tspublic/v1/session/login 204 12ms');
  assert.equal(formatRequest({ method: 'GET', path: '/x', status: 0, ms: 3 }), 'GET /x ERR 3ms');
  assert.equal(redactPath('/a?password=hunter2&pattern=%25fl%25&token=abc'), '/a?password=***&pattern=%25fl%25&token=***');
  assert.ok(!formatRequest({ method: 'GET', path: '/a?secret_key=s3cr3t', status: 200, ms: 1 }).includes('s3cr3t'));
});

test('service data types map onto the protocol vocabulary', () => {
  assert.equal(toDataType('INT64'), 'INT64');
  assert.equal(toDataType('timestamp'), 'DATE_TIME');
  assert.equal(toDataType(undefined), 'VARCHAR');
  assert.equal(toDataType('GEOGRAPHY'), 'VARCHAR');
  assert.equal(toKind('MEASURE', 'VARCHAR'), 'MEASURE');
  assert.equal(toKind('UNKNOWN', 'DOUBLE', 'SUM'), 'MEASURE');
  assert.equal(toKind('UNKNOWN', 'DOUBLE', 'NONE'), 'ATTRIBUTE');
  assert.equal(toKind(undefined, 'VARCHAR'), 'ATTRIBUTE');
});

test('columns from metadata/details keep position order, drop hidden ones, keep description and synonyms', () => {
  const cols = columnsFromDetails([
    { header: { id: 'c2', name: 'Delay', owner: 't' }, dataType: 'INT32', type: 'MEASURE', position: 2, synonyms: ['late'] },
    { header: { id: 'c1', name: 'Origin', owner: 't', description: 'airport' }, dataType: 'VARCHAR', type: 'ATTRIBUTE', position: 1 },
    { header: { id: 'c3', name: 'Secret', owner: 't', isHidden: true }, dataType: 'VARCHAR', type: 'ATTRIBUTE', position: 3 },
  ]);
  assert.deepEqual(cols, [
    { id: 'c1', name: 'Origin', dataType: 'VARCHAR', kind: 'ATTRIBUTE', description: 'airport' },
    { id: 'c2', name: 'Delay', dataType: 'INT32', kind: 'MEASURE', synonyms: ['late'] },
  ]);
});

test('columns from LOGICAL_COLUMN headers keep only those owned by the data source', () => {
  const cols = columnsFromHeaders(
    [
      header({ id: 'a', name: 'origin', owner: 'T1' }),
      header({ id: 'b', name: 'other', owner: 'T2' }),
      header({ id: 'c', name: 'delay', owner: 'T1', dataType: 'DOUBLE', type: 'MEASURE' }),
    ],
    'T1',
  );
  assert.deepEqual(cols, [
    { id: 'a', name: 'origin', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
    { id: 'c', name: 'delay', dataType: 'DOUBLE', kind: 'MEASURE' },
  ]);
});

test('user/list answers become users and groups whatever their wrapping', () => {
  const flat = parsePrincipals([
    { name: 'tsadmin', displayName: 'Administrator', principalTypeEnum: 'LOCAL_USER', groupNames: ['Administrator'] },
    { name: 'Administrator', principalTypeEnum: 'LOCAL_GROUP', privileges: ['ADMINISTRATION'] },
    { nothing: true },
  ]);
  assert.deepEqual(flat, [
    { name: 'tsadmin', kind: 'USER', displayName: 'Administrator', groupNames: ['Administrator'] },
    { name: 'Administrator', kind: 'GROUP', privileges: ['ADMINISTRATION'] },
  ]);
  const wrapped = parsePrincipals({ users: [{ header: { id: 'u1', name: 'ann' } }], groups: [{ name: 'analysts', id: 'g1' }] });
  assert.deepEqual(wrapped, [
    { name: 'ann', kind: 'USER', id: 'u1' },
    { name: 'analysts', kind: 'GROUP', id: 'g1' },
  ]);
});

test('a sync file must be a JSON array of named principals, and says what is wrong otherwise', () => {
  assert.deepEqual(parsePrincipalsFile('[{"name":"a","principalTypeEnum":"LOCAL_USER"}]', 'p.json'), [{ name: 'a', principalTypeEnum: 'LOCAL_USER' }]);
  assert.deepEqual(parsePrincipalsFile('{"principals":[{"name":"g"}]}', 'p.json'), [{ name: 'g' }]);
  assert.throws(() => parsePrincipalsFile('{oops', 'p.json'), /p\.json is not valid JSON/);
  assert.throws(() => parsePrincipalsFile('{"a":1}', 'p.json'), /must hold a JSON array/);
  assert.throws(() => parsePrincipalsFile('[{"name":"a"},{"x":1}]', 'p.json'), /principal #2 has no "name"/);
  assert.equal(summarizeSync({ usersAdded: ['a', 'b'], groupsDeleted: [] }), '2 usersAdded, 0 groupsDeleted');
});

test('filter text becomes a % pattern', () => {
  assert.equal(toPattern('fli'), '%fli%');
  assert.equal(toPattern('fl%'), 'fl%');
  assert.equal(toPattern('  '), undefined);
  assert.equal(toPattern(undefined), undefined);
});

test('context flags drive the menus: data sources, tables, views, pinboards', () => {
  const h = header({ id: 'g', name: 'n' });
  assert.deepEqual(contextFlags(objectNode('LOGICAL_TABLE', h, 'ONE_TO_ONE_LOGICAL')).filter((f) => ['tsq:dataSource', 'tsq:table', 'tsq:view'].includes(f)), ['tsq:dataSource', 'tsq:table']);
  assert.ok(contextFlags(objectNode('LOGICAL_TABLE', h, 'AGGR_WORKSHEET')).includes('tsq:view'));
  assert.ok(!contextFlags(objectNode('LOGICAL_TABLE', h, 'WORKSHEET')).includes('tsq:table'));
  assert.ok(contextFlags(objectNode('PINBOARD_ANSWER_BOOK', h)).includes('tsq:pinboard'));
  assert.ok(!contextFlags(objectNode('TAG', h)).includes('tsq:refreshable'));
  assert.deepEqual(rootNodes(false).map((r) => r.kind === 'root' && r.label), ['Data Sources', 'Liveboards', 'Answers', 'Tags']);
  assert.equal(rootNodes(true).length, 5);
  assert.equal(columnIcon({ name: 'd', dataType: 'DATE', kind: 'ATTRIBUTE' }), 'calendar');
});

test('tooltips give author, times (epoch ms, UTC), description and GUID', () => {
  const lines = tooltipLines(objectNode('PINBOARD_ANSWER_BOOK', header({ id: 'g-1', name: 'Ops', author: 'u-1', authorName: 'ann', created: Date.UTC(2024, 0, 2, 3, 4), modified: 0, description: 'daily' })));
  assert.deepEqual(lines, [
    ['Author', 'ann'],
    ['Created', '2024-01-02 03:04 UTC'],
    ['Description', 'daily'],
    ['GUID', 'g-1'],
  ]);
  assert.equal(formatTime('x'), undefined);
});

test('an author GUID shows as a name when user/list gave one, else as the GUID', () => {
  const node = objectNode('QUESTION_ANSWER_BOOK', header({ id: 'a-1', name: 'Delays', author: 'u-9' }));
  assert.deepEqual(tooltipLines(node, (id) => (id === 'u-9' ? 'Ann (ann)' : undefined))[0], ['Author', 'Ann (ann)']);
  assert.deepEqual(tooltipLines(node)[0], ['Author', 'u-9']);
});

test('passwords are taken out of tsq.connections, keeping order and the other members', () => {
  const split = splitPasswords([
    { name: 'prod', url: 'https://a', username: 'u', password: 'p1' },
    { name: 'dev', url: 'https://b', username: 'v' },
    { name: 'empty', url: 'https://c', username: 'w', password: '' },
    'junk',
  ]);
  assert.deepEqual(split.cleaned, [
    { name: 'prod', url: 'https://a', username: 'u' },
    { name: 'dev', url: 'https://b', username: 'v' },
    { name: 'empty', url: 'https://c', username: 'w' },
    'junk',
  ]);
  assert.deepEqual(split.moved, [['prod', 'p1']]);
  assert.equal(split.changed, true);
  assert.equal(JSON.stringify(split.cleaned).includes('p1'), false);
  assert.equal(splitPasswords([{ name: 'dev', url: 'x', username: 'y' }]).changed, false);
  assert.equal(splitPasswords(undefined).changed, false);
});

test('only a GROUP principal carries the tsq:group flag that the privilege commands use', () => {
  const folder = { kind: 'group' as const, key: 'group:tables', group: { id: 'tables', label: 'Tables', subtypes: ['ONE_TO_ONE_LOGICAL'] } };
  const users = { kind: 'principalGroup' as const, key: 'principals:GROUP', principalKind: 'GROUP' as const, label: 'Groups' };
  const group = { kind: 'principal' as const, key: 'principal:GROUP:g', principal: { name: 'Analysts', kind: 'GROUP' as const } };
  assert.ok(!contextFlags(folder).includes('tsq:group'));
  assert.ok(!contextFlags(users).includes('tsq:group'));
  assert.ok(contextFlags(group).includes('tsq:group'));
  assert.ok(!contextFlags(group).includes('tsq:user'));
});
