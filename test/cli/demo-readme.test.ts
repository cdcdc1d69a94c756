// The commands of the demo workspace's README (test/fixtures/demo-workspace/README.md, its ```sh block)
// run as shown, in a copy of the folder whose tsq.json points at the real emulator with the demo data:
// `tsq trust` first, then `TSQ_PASSWORD=admin tsq query flights.tsq --format csv` prints the answers as
// CSV. Without the trust, the query is refused (exit 3), which is why the README shows it. The built
// `tsq` runs as a child process (node esbuild.mjs first), in a home folder of its own.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLive, type Live } from '../emulator/client-support';
import { tsq, type TsqRun } from './cli-support';

const DEMO = resolve(__dirname, '..', 'fixtures', 'demo-workspace');

/** The README's shell commands: each line's leading VAR=value assignments and the words after them. */
function readmeCommands(): { env: Record<string, string>; words: string[] }[] {
  const text = readFileSync(join(DEMO, 'README.md'), 'utf8');
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)];
  assert.equal(blocks.length, 1, 'the demo README shows one block of commands');
  return blocks[0][1].split('\n').filter((l) => l.trim()).map((line) => {
    const words = line.trim().split(/\s+/);
    const env: Record<string, string> = {};
    while (words[0] && /^[A-Z_]+=/.test(words[0])) {
      const [k, v] = words.shift()!.split('=');
      env[k] = v;
    }
    return { env, words };
  });
}

let live: Live;
let folder: string;
let home: string;

before(async () => {
  live = await startLive();
  folder = mkdtempSync(join(tmpdir(), 'tsq-demo-readme-'));
  cpSync(DEMO, folder, { recursive: true });
  const config = JSON.parse(readFileSync(join(folder, 'tsq.json'), 'utf8'));
  assert.equal(config.connections[0].url, 'http://127.0.0.1:8088', 'the README says: the emulator on its default port');
  config.connections[0].url = live.emu.url;
  writeFileSync(join(folder, 'tsq.json'), JSON.stringify(config));
  home = mkdtempSync(join(tmpdir(), 'tsq-demo-home-'));
});

after(async () => {
  await live?.stop();
  for (const d of [folder, home]) if (d) rmSync(d, { recursive: true, force: true });
});

/** Runs a README command (`tsq …`) with its assignments, in the copy, with a home of its own. */
const run = (c: { env: Record<string, string>; words: string[] }): Promise<TsqRun> => {
  assert.equal(c.words[0], 'tsq', `a tsq command: ${c.words.join(' ')}`);
  return tsq(c.words.slice(1), { cwd: folder, env: { ...c.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') } });
};

test("the demo README's commands, run as shown, print the flights answers as CSV", async () => {
  const commands = readmeCommands();
  const query = commands.find((c) => c.words[1] === 'query');
  assert.ok(query, 'the README runs a query');
  const untrusted = await run(query);
  assert.equal(untrusted.code, 3, `without tsq trust the project's connection is refused:\n${untrusted.stderr}`);
  const results: TsqRun[] = [];
  for (const c of commands) results.push(await run(c));
  for (const [i, r] of results.entries()) assert.equal(r.code, 0, `${commands[i].words.join(' ')}:\n${r.stdout}${r.stderr}`);
  const csv = results[commands.indexOf(query)].stdout.trim().split('\n');
  assert.ok(csv.length > 2, `rows of CSV: ${csv.slice(0, 3).join(' / ')}`);
  assert.match(csv[0], /,/, 'a CSV header');
});
