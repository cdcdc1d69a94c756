// The output formats of `tsq check` and `tsq tml validate` (cli/src/diagnosticFormats.ts): GitHub Actions
// workflow commands with their escapes, and SARIF 2.1.0 logs that validate against the OASIS schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { githubAnnotation, sarifLog } from '../../cli/src/diagnosticFormats';
import { sarifErrors } from '../fixtures/sarif/validate';

const d = (message: string, severity: DiagnosticSeverity, code?: string): Diagnostic => ({ range: { start: { line: 1, character: 4 }, end: { line: 1, character: 9 } }, message, severity, ...(code ? { code } : {}) });

test('github: error, warning and notice commands; %, CR, LF escaped in the message, also , and : in properties', () => {
  assert.equal(githubAnnotation('a,b:c.tsq', d('50% off\nnow', DiagnosticSeverity.Error, 'tsq.x')), '::error file=a%2Cb%3Ac.tsq,line=2,col=5,endLine=2,endColumn=10,title=tsq.x::50%25 off now');
  assert.match(githubAnnotation('f', d('w', DiagnosticSeverity.Warning)), /^::warning file=f,line=2,col=5,endLine=2,endColumn=10::w$/);
  assert.match(githubAnnotation('f', d('i', DiagnosticSeverity.Information)), /^::notice /);
});

test('sarif: a log of every severity, with and without a rule, inside and outside the working folder, is valid SARIF 2.1.0', () => {
  const log = sarifLog([
    { file: 'q.tsq', diagnostics: [d('e', DiagnosticSeverity.Error, 'tsq.unknownColumn'), d('w', DiagnosticSeverity.Warning), d('h', DiagnosticSeverity.Hint, 'tsq.hint')] },
    { file: '/elsewhere/x y.answer.tml', diagnostics: [d('e', DiagnosticSeverity.Error, 'tml.schema')] },
  ]);
  assert.deepEqual(sarifErrors(log), []);
  const results = (log.runs as { results: { level: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[])[0]!.results;
  assert.deepEqual(results.map((r) => r.level), ['error', 'warning', 'note', 'error']);
  assert.equal(results[3]!.locations[0]!.physicalLocation.artifactLocation.uri, 'file:///elsewhere/x%20y.answer.tml');
  assert.deepEqual(sarifErrors({ version: '2.1.0', runs: [{ tool: {} }] }).length > 0, true, 'the schema does reject a broken log');
});
