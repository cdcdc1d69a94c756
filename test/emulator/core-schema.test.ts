// The seed folder's JSON schema (emulator/model.schema.json) agrees with the code that reads model.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLUMN_DATA_TYPES } from '../../common/src/model';
import { PRIVILEGES } from '../../emulator/src/catalog';
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
    assert.throws(() => readSeedFolder(dir), /select/);
    writeFileSync(join(dir, 'model.json'), '{ not json');
    assert.throws(() => readSeedFolder(dir), /model\.json/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
