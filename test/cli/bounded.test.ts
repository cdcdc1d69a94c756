// `tsq check` on texts made to exhaust the parsers (SECURITY.md "Bounded parsing"): 50,000 nested
// subsearches end with a diagnostic at the nesting limit, not with "Maximum call stack size exceeded";
// an Answer TML of 30,000 keys gets one tml.tooLarge finding. `tsq` is run as a real process (dist/cli.js).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsq } from './cli-support';

const dir = mkdtempSync(join(tmpdir(), 'tsq-bounded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('tsq check: 50,000 nested subsearches give a tsq.nestingTooDeep line and exit 1, no crash', async () => {
  const n = 50_000;
  const file = join(dir, 'nested.tsq');
  writeFileSync(file, `@datasource 'flights'\n${'[origin] in ('.repeat(n)}[origin]${')'.repeat(n)}\n`);
  const r = await tsq(['check', file, '--offline']);
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /Maximum call stack|RangeError/);
  assert.match(r.stdout, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: error: Subsearches nest deeper than 100 levels.*\\[tsq\\.nestingTooDeep\\]$`, 'm'));
});

test('tsq check: an Answer TML of 30,000 keys gives one tml.tooLarge line', async () => {
  const file = join(dir, 'big.answer.tml');
  writeFileSync(file, `answer:\n  name: big\n  tables: [{id: flights, name: flights}]\n  search_query: '[origin]'\n${Array.from({ length: 30_000 }, (_, i) => `  k${i}: v${i}\n`).join('')}`);
  const r = await tsq(['check', file, '--offline']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout.trim().split('\n').length, 1, r.stdout);
  assert.match(r.stdout, /error: Not checked: the file has more than 20,000 keys and list items.*\[tml\.tooLarge\]$/m);
});
