// The definition guard of every front end (common/src/load/definition.ts): a saved definition is read in
// the nested form of docs/service-interface.md §2.2 with the flat members of the StartLoad example moved
// into it, and the table a load writes and whether it empties it are decided from that one form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLAT_DEFINITION_MEMBERS, guardLoad, LoadDefinitionError, normaliseDefinition, parseSavedDefinition, type LoadChoice } from '../../common/src/load/definition';

const CARS = { database: 'demo', schema: 'engine_default_schema', table: 'cars' };
const cli = (extra: Partial<LoadChoice> = {}): LoadChoice => ({ source: 'the saved definition x.csv.load.json', confirm: 'run again with --replace to confirm', ...extra });
const kindOf = (kind: string) => (e: unknown) => e instanceof LoadDefinitionError && e.kind === kind;

test('every flat member of the StartLoad example moves to its nested place', () => {
  const flat = { target_database: 'demo', target_schema: 'engine_default_schema', target_table: 'cars', field_separator: ';', empty_target: true };
  assert.deepEqual(Object.keys(FLAT_DEFINITION_MEMBERS).sort(), Object.keys(flat).sort());
  assert.deepEqual(normaliseDefinition(flat), { target: CARS, format: { field_separator: ';' }, load_options: { empty_target: true } });
  // the same value in both forms is one value; names of the target compare without case
  assert.deepEqual(normaliseDefinition({ target: { ...CARS, table: 'Cars' }, target_table: 'cars' }).target, { ...CARS, table: 'cars' });
  // both forms that disagree: refused, naming both
  assert.throws(() => normaliseDefinition({ target: CARS, target_table: 'stocks' }), /names two tables: demo\.engine_default_schema\.cars \(target\) and demo\.engine_default_schema\.stocks \(target_table "stocks" in place of target\.table "cars"\)/);
  assert.throws(() => normaliseDefinition({ target: CARS, load_options: { empty_target: false }, empty_target: true }), /load_options\.empty_target false and empty_target true, which disagree/);
  // members TSQ does not know are never passed on
  assert.throws(() => normaliseDefinition({ target: CARS, truncate: true }), /"truncate" is not a member/);
  assert.throws(() => normaliseDefinition({ target: CARS, load_options: { EMPTY_TARGET: true } }), /"load_options\.EMPTY_TARGET" is not a member/);
  assert.throws(() => parseSavedDefinition(JSON.stringify({ target: CARS, empty_target: 'yes' })), /load_options\.empty_target must be a boolean/);
});

test('the target is the chosen table: another one is refused, naming both', () => {
  const def = { target: CARS, load_options: { empty_target: false } };
  assert.throws(() => guardLoad(def, cli({ target: { database: 'demo', table: 'stocks' } })), (e: unknown) => kindOf('otherTable')(e) && /loads into demo\.engine_default_schema\.cars, not into demo\.stocks/.test((e as Error).message));
  // a flat target_table that never went through parseSavedDefinition is caught as well
  assert.throws(() => guardLoad({ ...def, target_table: 'stocks' } as never, cli({ target: CARS })), kindOf('invalid'));
  const g = guardLoad(def, cli({ target: { database: 'DEMO', table: 'CARS' } }));
  assert.deepEqual(g.definition.target, { database: 'DEMO', table: 'CARS' });
  assert.equal(g.empties, false);
});

test('emptying the table needs the replace of the person', () => {
  const def = { target: CARS, empty_target: true } as never;
  assert.throws(() => guardLoad(def, cli()), (e: unknown) => kindOf('replace')(e) && /empties demo\.engine_default_schema\.cars before loading \(load_options\.empty_target\); run again with --replace to confirm/.test((e as Error).message));
  assert.throws(() => guardLoad(def, cli({ replace: false })), kindOf('replace'));
  assert.deepEqual(guardLoad(def, cli({ replace: true })), { definition: { target: CARS, load_options: { empty_target: true } }, empties: true });
  // VS Code asks: the answer says so, and the definition sent names empty_target once, nested
  assert.deepEqual(guardLoad(def, cli({ replace: 'ask' })), { definition: { target: CARS, load_options: { empty_target: true } }, empties: true });
  // a replace asked for by the person empties a definition that appends
  assert.equal(guardLoad({ target: CARS }, cli({ replace: true })).definition.load_options?.empty_target, true);
  assert.deepEqual(guardLoad({ target: CARS }, cli({ replace: 'ask' })), { definition: { target: CARS, load_options: { empty_target: false } }, empties: false });
});

test("the .load.json schema names the flat members (deprecated, each pointing at its nested place) and nothing the guard refuses", () => {
  const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'resources', 'load-definition.schema.json'), 'utf8')) as { properties: Record<string, { deprecationMessage?: string; properties?: Record<string, unknown> }> };
  for (const [flat, [part, member]] of Object.entries(FLAT_DEFINITION_MEMBERS)) {
    assert.match(schema.properties[flat]?.deprecationMessage ?? '', new RegExp(`reads it as ${part}\\.${member}`), flat);
  }
  // every member the schema offers passes the guard's check of members
  const every: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema.properties)) every[k] = v.properties && k !== 'format' ? Object.fromEntries(Object.keys(v.properties).map((m) => [m, undefined])) : undefined;
  assert.doesNotThrow(() => normaliseDefinition(every));
});
