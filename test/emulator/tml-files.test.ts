// The shared validate and import of TML files (common/src/tml/tmlFiles.ts), the one code `tsq tml
// validate|import` and the editor's TSQ: Validate TML / Import TML call, against a real emulator: the
// local checks keep a bad file from being sent; the service's refusal is a diagnostic on the line of the
// member its message names (else the search_query's, else the first line); an import says the GUID;
// all-or-none sends nothing when one file fails locally.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity } from 'vscode-languageserver-types';
import type { AnalyticsServiceClient } from '../../common/src/api';
import { checkTmlTexts, importTmlFiles, serviceDiagnostic, TML_SERVICE_CODE, validateTmlOnService } from '../../common/src/tml/tmlFiles';
import { startLive, type Live } from './client-support';

const answer = (name: string, tables: string[], query: string) => `answer:\n  name: ${name}\n  tables:\n${tables.map((t) => `  - id: ${t}\n    name: ${t}\n`).join('')}  search_query: "${query}"\n`;
/** The 0-based line of the first line of `text` holding `part`. */
const lineOf = (text: string, part: string) => text.split('\n').findIndex((l) => l.includes(part));

describe('validate and import of TML files against the emulator', () => {
  let live: Live;
  let client: AnalyticsServiceClient;
  before(async () => {
    live = await startLive();
    client = live.client();
  });
  after(async () => {
    await live?.stop();
  });

  test('a right answer: no diagnostic; one the service refuses: its message on the line of the member it names', async () => {
    const good = answer('Good', ['flights'], '[origin] [delay] top 3');
    // two data sources are right for TSQ's checks; the emulator runs an answer over one and names answer.tables
    const two = answer('Two', ['flights', 'movies'], '[origin] [delay]');
    const files = await checkTmlTexts(client, [{ uri: 'good.answer.tml', text: good }, { uri: 'two.answer.tml', text: two }]);
    assert.deepEqual(files.map((f) => f.diagnostics), [[], []], 'both pass the local checks');
    await validateTmlOnService(client, files);
    assert.deepEqual(files[0]!.diagnostics, []);
    const [d, ...more] = files[1]!.diagnostics;
    assert.equal(more.length, 0, JSON.stringify(files[1]!.diagnostics));
    assert.equal(d!.code, TML_SERVICE_CODE);
    assert.equal(d!.severity, DiagnosticSeverity.Error);
    assert.match(d!.message as string, /^the service: answer\.tables names 2 data sources/);
    assert.equal(d!.range.start.line, lineOf(two, 'tables:'));
  });

  test('a file with a local error is not sent; all-or-none then sends nothing; partial imports the others and says their GUIDs', async () => {
    const bad = answer('Bad', ['flights'], '[origin] [dealy]');
    const good = answer('Imported by the test', ['flights'], '[origin] [delay] top 2');
    let sent = 0;
    const counting = new Proxy(client, { get: (c, k) => (k === 'importTml' ? (...a: Parameters<AnalyticsServiceClient['importTml']>) => (sent++, c.importTml(...a)) : Reflect.get(c, k, c)) });
    const files = () => checkTmlTexts(client, [{ uri: 'bad.answer.tml', text: bad }, { uri: 'good.answer.tml', text: good }]);
    const none = await importTmlFiles(counting, await files(), 'ALL_OR_NONE');
    assert.deepEqual(none.map((o) => o.status), ['NOT_SENT', 'NOT_SENT']);
    assert.equal(sent, 0, 'nothing was sent');
    const partial = await importTmlFiles(counting, await files(), 'PARTIAL');
    assert.deepEqual(partial.map((o) => o.status), ['NOT_SENT', 'OK']);
    assert.equal(sent, 1);
    const [again] = await client.exportTml([{ identifier: partial[1]!.guid!, type: 'ANSWER' }], { format: 'YAML' });
    assert.equal(again!.info.name, 'Imported by the test');
  });
});

describe('where the service\'s message goes', () => {
  const text = 'guid: 6f853b5f-c9be-57d2-8b22-c0c34d1ce706\nanswer:\n  name: A\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[origin]"\n';
  const refused = (message: string) => serviceDiagnostic(text, { status: { status_code: 'ERROR', error_message: message } } as never)!;
  for (const [message, line] of [
    ['answer.tables[0]: no worksheet, view or table named "flights".', 4],
    ['answer.name is missing: an answer needs a name.', 2],
    ['guid 6f853b5f-c9be-57d2-8b22-c0c34d1ce706 names an object you may not change.', 0],
    ['search_query is not valid on flights: unknown column', 6],
    ['Something went wrong.', 0],
  ] as const) {
    test(`${message} → line ${line + 1}`, () => {
      assert.equal(refused(message).range.start.line, line);
    });
  }
  test('OK is no diagnostic; WARNING is a warning', () => {
    assert.equal(serviceDiagnostic(text, { status: { status_code: 'OK' } } as never), undefined);
    assert.equal(serviceDiagnostic(text, { status: { status_code: 'WARNING', error_message: 'answer.name is long' } } as never)!.severity, DiagnosticSeverity.Warning);
  });
});
