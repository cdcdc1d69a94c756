/**
 * The load definition is declared once, as a zod schema (`LOAD_DEFINITION_SCHEMA` of
 * common/src/api/loadApi.ts; `<file>.load.json` adds `encoding` in common/src/load/definition.ts), and its
 * TypeScript types are `z.infer` of the schemas: the scan fails on an interface or a hand-written type
 * beside them. A bad `.load.json` is refused naming the member, as before the schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { guardLoad, LoadDefinitionError, parseSavedDefinition } from '../../common/src/load/definition';

const root = resolve(__dirname, '../..');
/** The types the schemas give, and the schema each is `z.infer` of. */
const DERIVED: Record<string, string> = { LoadDefinition: 'LOAD_DEFINITION_SCHEMA', SavedLoadDefinition: 'SAVED_DEFINITION_SCHEMA' };

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The declarations of the derived types in a source that are not `z.infer<typeof THE_SCHEMA>` (`name: kind`). */
export function handWritten(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const st of sf.statements) {
    if (ts.isInterfaceDeclaration(st) && st.name.text in DERIVED) out.push(`${st.name.text}: interface`);
    if (ts.isTypeAliasDeclaration(st) && st.name.text in DERIVED && st.type.getText().replace(/\s/g, '') !== `z.infer<typeof${DERIVED[st.name.text]}>`) out.push(`${st.name.text}: type`);
  }
  return out;
}

test('the scan finds a hand-written load definition beside the schema', () => {
  assert.deepEqual(handWritten('a.ts', 'export interface LoadDefinition { target: { database: string; table: string } }\nexport type SavedLoadDefinition = LoadDefinition & { encoding?: string };'), ['LoadDefinition: interface', 'SavedLoadDefinition: type']);
  assert.deepEqual(handWritten('b.ts', 'export type LoadDefinition = z.infer<typeof LOAD_DEFINITION_SCHEMA>;'), []);
});

test('the load definition types are z.infer of their schemas, nowhere written by hand', () => {
  const found: string[] = [];
  // the emulator's LoadDefinition (emulator/src/load/definition.ts) is another type: the service's reading, with the defaults applied
  for (const part of ['common/src', 'cli/src', 'client/src', 'server/src']) {
    for (const file of files(join(root, part))) for (const d of handWritten(file, readFileSync(file, 'utf8'))) found.push(`${relative(root, file)}: ${d}`);
  }
  assert.deepEqual(found, []);
  for (const [file, name] of [['common/src/api/loadApi.ts', 'LoadDefinition'], ['common/src/load/definition.ts', 'SavedLoadDefinition']] as const) {
    assert.match(readFileSync(join(root, file), 'utf8'), new RegExp(`export type ${name} = z\\.infer<typeof ${DERIVED[name]}>`), `${file} derives ${name}`);
  }
});

test('a bad .load.json is refused naming the member, whatever is wrong with it', () => {
  const target = { database: 'd', table: 't' };
  const bad: [unknown, RegExp][] = [
    [{ target: { database: 'd' } }, /needs target\.database and target\.table/],
    [{ target, format: { has_header_row: 'yes' } }, /format\.has_header_row must be a boolean/],
    [{ target, format: { type: 'xml' } }, /format\.type must be csv or delimited/],
    [{ target, format: { date_time: 'x' } }, /format\.date_time must be an object/],
    [{ target, format: { date_time: { date_fmt: '%Y' } } }, /"format\.date_time\.date_fmt" is not a member/],
    [{ target, format: { boolean: { true_format: 1 } } }, /format\.boolean\.true_format must be a string/],
    [{ target, load_options: { max_ignored_rows: 1.5 } }, /load_options\.max_ignored_rows must be a whole number ≥ 0/],
    [{ target, advanced_options: { max_reported_parsing_errors: 'many' } }, /advanced_options\.max_reported_parsing_errors must be a number/],
  ];
  for (const [v, message] of bad) {
    assert.throws(() => parseSavedDefinition(JSON.stringify(v)), (e: unknown) => e instanceof LoadDefinitionError && message.test(e.message), JSON.stringify(v));
  }
  assert.deepEqual(parseSavedDefinition(JSON.stringify({ target, format: { type: 'CSV', date_time: { date_format: '%Y' } }, encoding: 'windows-1252' })), { target, format: { type: 'CSV', date_time: { date_format: '%Y' } }, encoding: 'windows-1252' });
});

test("an input table's target has no database: guardLoad takes it, a saved definition must name one", () => {
  const target = { database: '', table: 'Weather Log' };
  const guarded = guardLoad({ target, format: { type: 'csv', has_header_row: true } }, { target, source: 'the sniffed format', confirm: 'confirm' });
  assert.deepEqual(guarded.definition.target, target);
  assert.throws(() => parseSavedDefinition(JSON.stringify({ target })), /needs target\.database and target\.table/);
});
