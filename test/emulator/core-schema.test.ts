// The seed folder's JSON schema (emulator/model.schema.json) agrees with the code that reads model.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLUMN_DATA_TYPES } from '../../common/src/model';
import { PRIVILEGES } from '../../emulator/src/metadataStore';
import { demoSeed } from '../../emulator/src/demo';
import { readSeedFolder } from '../../emulator/src/seed';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'emulator', 'model.schema.json'), 'utf8'));

test('the schema lists the data types and privileges the emulator accepts', () => {
  assert.deepEqual(schema.$defs.dataType.enum, [...COLUMN_DATA_TYPES]);
  assert.deepEqual(schema.$defs.privilege.enum, [...PRIVILEGES]);
});

test('the demo seed uses only members the schema declares (besides the internal select)', () => {
  const demo = demoSeed() as Record<string, unknown[]>;
  for (const key of Object.keys(demo)) assert.ok(key in schema.properties, key);
  const tableKeys = new Set([...Object.keys(schema.$defs.table.properties), ...Object.keys(schema.$defs.objectCommon.properties)]);
  for (const t of demo.tables as Record<string, unknown>[]) for (const k of Object.keys(t)) if (k !== 'select') assert.ok(tableKeys.has(k), `table member ${k}`);
  const colKeys = new Set(Object.keys(schema.$defs.column.properties));
  for (const t of demo.tables as { columns: Record<string, unknown>[] }[]) for (const c of t.columns) for (const k of Object.keys(c)) assert.ok(colKeys.has(k), `column member ${k}`);
});

test('model.json may not carry the internal select member', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-core-schema-'));
  try {
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ tables: [{ database: 'd', name: 't', select: 'SELECT 1' }] }));
    assert.throws(() => readSeedFolder(dir), /\/tables\/0: "select" is not a member the schema declares/);
    writeFileSync(join(dir, 'model.json'), '{ not json');
    assert.throws(() => readSeedFolder(dir), /model\.json/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('model.json is checked against the schema as it is read: each problem named by its place', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-core-schema-'));
  try {
    const bad = {
      tables: [{ database: 'd', name: 't', columns: [{ name: 'a', dataType: 'TEXT' }, { name: 'b[1]', dataType: 'INT64' }] }],
      groups: [{ name: 'g', privileges: ['EVERYTHING'] }],
      users: [{ name: 'u' }],
      views: [],
    };
    writeFileSync(join(dir, 'model.json'), JSON.stringify(bad));
    const message = (() => {
      try {
        readSeedFolder(dir);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    assert.match(message, /does not follow emulator\/model\.schema\.json/);
    assert.match(message, /the model: "views" is not a member the schema declares/);
    assert.match(message, /\/tables\/0\/columns\/0\/dataType is "TEXT", not one of VARCHAR, CHAR/);
    assert.match(message, /\/tables\/0\/columns\/1\/name must match pattern/);
    assert.match(message, /\/groups\/0\/privileges\/0 is "EVERYTHING", not one of ADMINISTRATION/);
    assert.match(message, /\/users\/0 must have required property 'password'/);
    // A well-formed model passes, and the demo seed (less its internal select) follows the schema.
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ tables: [{ database: 'd', name: 't', columns: [{ name: 'a', dataType: 'INT64' }] }], users: [{ name: 'u', password: 'p' }] }));
    assert.equal(readSeedFolder(dir).tables?.[0]?.name, 't');
    const demo = demoSeed();
    const withoutSelect = { ...demo, tables: demo.tables?.map(({ select: _select, ...t }) => t) };
    writeFileSync(join(dir, 'model.json'), JSON.stringify(withoutSelect));
    assert.doesNotThrow(() => readSeedFolder(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
