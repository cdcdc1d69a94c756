// `tsq check` on a `*.liveboard.tml` file against a real emulator, as on an `*.answer.tml`: each
// visualization's search_query is checked against the data source of its own `tables`, a bad column of
// the second visualization is reported on its line (text, `--format github`, `--format sarif`), the exit
// code is that of an Answer TML with the same error (1), an unknown top-level member is a warning.
// The built `tsq` runs as a child process (node esbuild.mjs first).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineOf, liveboardTml } from '../fixtures/liveboard';
import { sarifErrors } from '../fixtures/sarif/validate';
import { liveFixture, tsq } from './cli-support';

const ENV = { TSQ_PASSWORD: 'admin' };

/** The emulator's Liveboard TML (test/fixtures/liveboard.ts) whose second visualization names `column`. */
const liveboard = (column: string, extra = ''): string => liveboardTml({ movies: 'movies', flights: 'flights', column, extra });
const BAD_LINE = lineOf(liveboard('delai'), 'delai');

describe('tsq check on a .liveboard.tml', () => {
  const fx = liveFixture('tsq-lbcheck-', {}, async () => {
    writeFileSync(join(fx.dir, 'bad.liveboard.tml'), liveboard('delai'));
    writeFileSync(join(fx.dir, 'good.liveboard.tml'), liveboard('delay', 'fancy: 1\n'));
    writeFileSync(join(fx.dir, 'bad.answer.tml'), 'answer:\n  name: Delays\n  tables:\n  - name: flights\n  search_query: "[origin] [delai] top 10"\n');
  });

  test('text: the bad column of the second visualization on its line and column, exit code as for an .answer.tml', async () => {
    const r = await tsq(['check', 'bad.liveboard.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    const col = liveboard('delai').split('\n')[BAD_LINE - 1]!.indexOf('delai') + 1;
    assert.match(r.stdout, new RegExp(`^bad\\.liveboard\\.tml:${BAD_LINE}:${col}: error: .*\\[tsq\\.unknownColumn\\]$`, 'm'), r.stdout + r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 1, `one diagnostic, the first visualization is clean: ${r.stdout}`);
    const a = await tsq(['check', 'bad.answer.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    assert.match(a.stdout, /^bad\.answer\.tml:5:\d+: error: .*\[tsq\.unknownColumn\]$/m, a.stdout + a.stderr);
    assert.equal(r.code, a.code);
    assert.equal(r.code, 1);
  });

  test('an unknown top-level member is a warning: exit 0', async () => {
    const r = await tsq(['check', 'good.liveboard.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const fancyLine = lineOf(liveboard('delay', 'fancy: 1\n'), 'fancy');
    assert.match(r.stdout, new RegExp(`^good\\.liveboard\\.tml:${fancyLine}:1: warning: Unknown member fancy .*\\[tml\\.unknownMember\\]$`, 'm'), r.stdout);
    assert.doesNotMatch(r.stdout, /error:/);
  });

  test('--format github and --format sarif place the problem on its line', async () => {
    const g = await tsq(['check', '--format', 'github', 'bad.liveboard.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    assert.equal(g.code, 1);
    assert.match(g.stdout, new RegExp(`^::error file=bad\\.liveboard\\.tml,line=${BAD_LINE},col=\\d+,endLine=${BAD_LINE},endColumn=\\d+,title=tsq\\.unknownColumn::`, 'm'), g.stdout);
    const s = await tsq(['check', '--format', 'sarif', 'bad.liveboard.tml', ...fx.conn], { env: ENV, cwd: fx.dir });
    assert.equal(s.code, 1);
    const log = JSON.parse(s.stdout);
    assert.deepEqual(sarifErrors(log), []);
    const results = log.runs[0].results as { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[];
    assert.deepEqual(results.map((x) => [x.ruleId, x.locations[0]!.physicalLocation.artifactLocation.uri, x.locations[0]!.physicalLocation.region.startLine]), [['tsq.unknownColumn', 'bad.liveboard.tml', BAD_LINE]]);
  });
});
