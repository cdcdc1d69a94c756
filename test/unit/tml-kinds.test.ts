// The TML kinds declared once (common/src/tml/kinds.ts): package.json contributes a language (with the
// file pattern of its suffix) and a grammar for each, nothing more; a URI's kind is read from its suffix
// in any case; every kind has a checker (common/src/tml/tmlService.ts), `tsq tml validate` routes a
// file as `tsq check` does, and Validate TML / Import TML / Show Uses are in the menus of every kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TML_KIND_NAMES, TML_KINDS, TML_LANGUAGE_IDS, tmlKindOfUri } from '../../common/src/tml/kinds';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { TML_CHECKERS, tmlCheckerOf, validateTml, withTml } from '../../common/src/tml/tmlService';

const ROOT = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  contributes: {
    languages: { id: string; aliases?: string[]; filenamePatterns?: string[]; extensions?: string[] }[];
    grammars: { language: string; scopeName: string; path: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
  };
};

/**
 * The languages a menu entry's `when` clause offers it on: a disjunction of `<key> == <language id>`
 * terms, each with the same context key; fails on any other shape, so that a clause the test cannot
 * read is not taken for one that offers every kind.
 */
function languagesOf(when: string | undefined, key: string): string[] {
  const terms = (when ?? '').split('||').map((t) => t.trim());
  return terms.map((t) => {
    const m = /^(\w+) == ([\w-]+)$/.exec(t);
    assert.ok(m && m[1] === key, `"${when}": each term is ${key} == <language id>`);
    return m[2]!;
  });
}

test('package.json contributes one language and one grammar per TML kind, as TML_KINDS declares them', () => {
  const tmlLanguages = manifest.contributes.languages.filter((l) => l.id !== 'tsq');
  assert.deepEqual(
    tmlLanguages.map((l) => ({ id: l.id, aliases: l.aliases, filenamePatterns: l.filenamePatterns })),
    TML_KIND_NAMES.map((k) => ({ id: TML_KINDS[k].languageId, aliases: [TML_KINDS[k].title], filenamePatterns: [`*${TML_KINDS[k].suffix}`] })),
  );
  for (const id of TML_LANGUAGE_IDS) {
    const grammar = manifest.contributes.grammars.find((g) => g.language === id);
    assert.ok(grammar, `a grammar for ${id}`);
    const file = JSON.parse(readFileSync(join(ROOT, grammar.path), 'utf8')) as { scopeName: string };
    assert.equal(file.scopeName, grammar.scopeName, `${grammar.path} names the scope package.json gives it`);
  }
  assert.ok(manifest.contributes.grammars.every((g) => existsSync(join(ROOT, g.path))));
});

test("the client's document selector is derived from TML_LANGUAGE_IDS, not written out", () => {
  const source = readFileSync(join(ROOT, 'client', 'src', 'languageClient.ts'), 'utf8');
  assert.match(source, /documentSelector: \[\{ language: 'tsq' \}, \.\.\.TML_LANGUAGE_IDS\.map/);
  for (const id of TML_LANGUAGE_IDS) assert.ok(!source.includes(`'${id}'`), `${id} is not spelled in the client`);
});

test('the kind of a URI or path by its suffix, in any case; a query or fragment is ignored', () => {
  assert.equal(tmlKindOfUri('file:///w/a.answer.tml'), 'answer');
  assert.equal(tmlKindOfUri('file:///w/Board.Liveboard.TML'), 'liveboard');
  assert.equal(tmlKindOfUri('/w/x y.liveboard.tml?v=1#frag'), 'liveboard');
  assert.equal(tmlKindOfUri('file:///w/a.tsq'), undefined);
  assert.equal(tmlKindOfUri('file:///w/liveboard.tml'), undefined, 'the suffix is .liveboard.tml, not liveboard.tml');
  assert.equal(tmlKindOfUri('file:///w/a.liveboard.tml.tsq'), undefined);
  assert.equal(tmlKindOfUri('file:///w/a.tsq#x.answer.tml'), undefined);
  for (const k of TML_KIND_NAMES) assert.equal(tmlCheckerOf(`file:///w/a${TML_KINDS[k].suffix}`), TML_CHECKERS[k]);
  assert.equal(tmlCheckerOf('file:///w/a.tsq'), undefined);
});

test('tsq tml validate routes a file as tsq check does: by its suffix, else by the object its text holds', async () => {
  const ls = getLanguageService({});
  const answer = 'answer:\n  name: A\n  tables:\n  - name: Flights\n  search_query: "[origin]"\n';
  const board = 'liveboard:\n  name: B\n  visualizations:\n  - id: Viz_1\n    answer:\n      name: A\n      tables:\n      - name: Flights\n      search_query: "[origin]"\n';
  assert.deepEqual(await validateTml(ls, '/w/a.answer.tml', answer), []);
  assert.deepEqual(await validateTml(ls, '/w/b.liveboard.tml', board), []);
  assert.deepEqual(await validateTml(ls, '/w/b.tml', board), [], 'a file named otherwise: by its content');
  const wrong = await validateTml(ls, '/w/a.liveboard.tml', answer);
  assert.deepEqual(wrong, await withTml(ls).doValidation(TextDocument.create('file:///w/a.liveboard.tml', 'tsq-liveboard-tml', 1, answer)), 'the same diagnostics as tsq check and the editor');
  assert.match(String(wrong[0]?.message), /Liveboard TML is a mapping with guid and liveboard/);
});

test('Validate TML and Import TML are in the palette, the editor title and the Explorer menu of every TML kind; Show Uses of tsq and every TML kind', () => {
  const { menus } = manifest.contributes;
  const expected: [string, string, string, string[]][] = [];
  for (const command of ['tsq.validateTml', 'tsq.importTml']) {
    expected.push([command, 'commandPalette', 'editorLangId', TML_LANGUAGE_IDS], [command, 'editor/title', 'editorLangId', TML_LANGUAGE_IDS], [command, 'explorer/context', 'resourceLangId', TML_LANGUAGE_IDS]);
  }
  expected.push(['tsq.showUses', 'commandPalette', 'editorLangId', ['tsq', ...TML_LANGUAGE_IDS]], ['tsq.showUses', 'editor/context', 'editorLangId', ['tsq', ...TML_LANGUAGE_IDS]]);
  for (const [command, menu, key, ids] of expected) {
    const entries = (menus[menu] ?? []).filter((m) => m.command === command);
    assert.equal(entries.length, 1, `${command} once in ${menu}`);
    assert.deepEqual(languagesOf(entries[0]!.when, key).sort(), [...ids].sort(), `${command} in ${menu}`);
  }
});
