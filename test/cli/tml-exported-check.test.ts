// `tsq check` (the built `tsq`, a child process; node esbuild.mjs first) against a real emulator on TML
// in the shapes clusters export (issue 38; test/fixtures/exportedTml.ts on the demo data): a Liveboard
// with a note tile, `guid: null`, `obj_id` and every exported member; an answer over two `tables` whose
// search names a column of the second; an answer whose search names its formulas by id and by name.
// Each passes (exit 0, no diagnostic); the same file with a misspelt column fails at its place (exit 1).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportedLiveboard, formulaAnswer, twoTablesAnswer } from '../fixtures/exportedTml';
import { lineOf } from '../fixtures/liveboard';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };
const N = { flights: 'flights', movies: 'movies' };

/** Each file: its name, its text as exported, and the text with `bad` misspelt in its search. */
const FILES = [
  { file: 'delays.liveboard.tml', good: exportedLiveboard(N), bad: exportedLiveboard(N, 'delai'), misspelt: 'delai' },
  { file: 'two.answer.tml', good: twoTablesAnswer(N), bad: twoTablesAnswer(N, 'Major Genra'), misspelt: 'Major Genra' },
  { file: 'formulas.answer.tml', good: formulaAnswer(N), bad: formulaAnswer(N, 'origen'), misspelt: 'origen' },
];

describe('tsq check on TML as clusters export it', () => {
  const fx = liveFixture('tsq-exported-', {}, async () => {
    for (const f of FILES) {
      writeFileSync(join(fx.dir, f.file), f.good);
      writeFileSync(join(fx.dir, `bad-${f.file}`), f.bad);
    }
  });

  for (const f of FILES) {
    test(`${f.file}: no diagnostic, exit 0; misspelt, the error at its place, exit 1`, async () => {
      const good = await tsq(['check', f.file, ...fx.conn], { env: ENV, cwd: fx.dir });
      assert.equal(good.stdout, '', good.stdout + good.stderr);
      assert.equal(good.code, 0, good.stderr);
      const bad = await tsq(['check', `bad-${f.file}`, ...fx.conn], { env: ENV, cwd: fx.dir });
      const line = lineOf(f.bad, f.misspelt);
      const col = f.bad.split('\n')[line - 1]!.indexOf(f.misspelt) + 1;
      assert.deepEqual(bad.stdout.trim().split('\n').map((l) => l.replace(/: error: .*\[/, ': error: [')), [`bad-${f.file}:${line}:${col}: error: [tsq.unknownColumn]`], bad.stdout + bad.stderr);
      assert.equal(bad.code, 1);
    });
  }
});
