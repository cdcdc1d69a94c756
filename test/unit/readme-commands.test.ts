/**
 * Every command README.md quotes in its shell code blocks (and every `npm …` it quotes inline) is run in
 * a mode that checks its arguments and does nothing else, so that a command broken by an edit fails
 * here: npm scripts must exist; `tsq` commands go through the command line's own parser (commander,
 * with the actions replaced); the scripts and programs get their arguments plus `--help` (or `--list`),
 * which each parses strictly before it answers; benchmark names must name a benchmark; environment
 * variables must be read by some code. Needs the bundles (the test runner builds them first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command } from 'commander';
import { buildProgram } from '../../cli/src/main';

const root = resolve(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; scripts: Record<string, string> };

/** One command of README: its words, the folder it runs in (relative to the root), where it was found. */
interface Quoted {
  words: string[];
  env: string[];
  cwd: string;
  where: string;
}

/** Splits a command line into words (single and double quotes kept together; no other shell syntax). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The commands of README's ```sh blocks and its inline `npm …` spans (without placeholders). */
function quotedCommands(): Quoted[] {
  const out: Quoted[] = [];
  for (const block of readme.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    const lineNo = readme.slice(0, block.index).split('\n').length;
    let cwd = '.';
    block[1].split('\n').forEach((raw, i) => {
      const line = raw.replace(/(^|\s)#.*$/, '').trim();
      if (!line) return;
      for (const part of line.split('&&').map((p) => p.trim())) {
        const w = words(part);
        const env: string[] = [];
        if (w[0] === 'export') w.shift();
        while (w[0] && /^[A-Z_][A-Z0-9_]*=/.test(w[0])) env.push(w.shift()!.split('=')[0]);
        const where = `README.md:${lineNo + 1 + i}: ${part}`;
        if (w[0] === 'cd') {
          cwd = join(cwd, w[1]);
          assert.ok(existsSync(join(root, cwd)) && statSync(join(root, cwd)).isDirectory(), `${where}: no folder ${cwd}`);
          continue;
        }
        out.push({ words: w, env, cwd, where });
      }
    });
  }
  for (const span of readme.matchAll(/`(npm (?:run [^\s`]+|start|test)(?: [^`…]*)?)`/g)) {
    if (span[1].includes('…')) continue;
    out.push({ words: words(span[1]), env: [], cwd: '.', where: `README.md (inline): ${span[1]}` });
  }
  return out;
}

/** Runs a node program with arguments and returns its exit status and output. */
function node(args: string[], cwd = '.'): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, args, { cwd: join(root, cwd), encoding: 'utf8', timeout: 60_000, env: { ...process.env, TSQ_PASSWORD: '' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Parses `args` with tsq's own command-line parser, every action replaced by a no-op; throws on a usage error. */
async function parseTsq(args: string[]): Promise<void> {
  const program = buildProgram();
  const quiet = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    if (c.commands.length === 0) c.action(() => undefined);
    c.commands.forEach(quiet);
  };
  quiet(program);
  await program.parseAsync(args, { from: 'user' });
}

/** Every name of a source file's text below the given folders, for "is this environment variable read". */
function sourceText(): string {
  const texts: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/\.(ts|mjs|js|sh)$/.test(e.name)) texts.push(readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  for (const d of ['common/src', 'server/src', 'client/src', 'cli/src', 'emulator/src', 'scripts', 'test']) walk(join(root, d));
  return texts.join('\n');
}
const sources = sourceText();

/**
 * Programs that parse their arguments strictly and then, given this flag, answer and do nothing else.
 * Any other program may be quoted only without arguments (it must exist; running it would do its work).
 */
const checkFlag: Record<string, string> = {
  'scripts/start.mjs': '--help',
  'scripts/run-tests.mjs': '--list',
  'scripts/package.mjs': '--help',
  'dist/emulator.js': '--help',
  'test/faults/run.ts': '--help',
};

/** Checks the arguments of `node FILE ARGS` for the programs README runs that way. */
function checkProgram(file: string, args: string[], q: Quoted): void {
  assert.ok(existsSync(join(root, file)), `${q.where}: ${file} does not exist`);
  if (file === 'scripts/bench.mjs') {
    const known = readdirSync(join(root, 'test', 'bench')).filter((f) => f.endsWith('.bench.ts')).map((f) => f.replace('.bench.ts', ''));
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '--compare' || a === '--rounds') {
        const v = args[++i];
        assert.ok(v && !v.startsWith('-') && (a === '--compare' || /^[1-9]\d*$/.test(v)), `${q.where}: ${a} needs ${a === '--compare' ? 'a commit' : 'a whole number'}`);
      } else if (a !== '--keep' && a !== '--same-bench') assert.ok(known.includes(a), `${q.where}: no benchmark named ${a} (${known.join(', ')})`);
    }
    return;
  }
  const flag = checkFlag[file];
  if (!flag) {
    assert.deepEqual(args, [], `${q.where}: no way to check the arguments of ${file}`);
    return;
  }
  const loader = file.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const r = node([...loader, file, ...args, flag], q.cwd);
  assert.equal(r.status, 0, `${q.where}: node ${file} ${[...args, flag].join(' ')} refused its arguments:\n${r.output}`);
}

/** The file a package.json script finally runs with node (`node esbuild.mjs && node dist/x.js` → dist/x.js), if any. */
function nodeTarget(script: string): { file: string; fixed: string[] } | undefined {
  const last = script.split('&&').pop()!.trim();
  const w = words(last);
  if (w[0] !== 'node') return undefined;
  const rest = w.slice(1).filter((x, i, all) => !(x === '--import' || all[i - 1] === '--import'));
  return { file: rest[0], fixed: rest.slice(1) };
}

const commands = quotedCommands();

test('README quotes the commands this test checks', () => {
  const seen = commands.map((c) => c.words.slice(0, 3).join(' '));
  for (const expected of ['npm start', 'npm test', 'npx tsq load', 'npm run emulator', 'node dist/emulator.js', 'npm run faults', 'npm run bench', 'npm run package']) {
    assert.ok(seen.some((s) => s.startsWith(expected)), `found ${expected}`);
  }
});

for (const q of commands) {
  test(q.where, async () => {
    const [cmd, ...rest] = q.words;
    for (const v of q.env) assert.ok(sources.includes(v), `${q.where}: no code reads ${v}`);
    if (cmd === undefined) return; // only a variable set for the commands after it
    if (cmd === 'npm' && (rest[0] === 'ci' || rest[0] === 'pack')) {
      // installing from the lockfile and packing take no arguments here (test/cli/pack.test.ts runs them)
      assert.deepEqual(rest.slice(1), [], `${q.where}: npm ${rest[0]} with arguments`);
    } else if (cmd === 'npm' && rest[0] === 'install') {
      // only the tarball npm pack writes, installed globally
      assert.deepEqual(rest.slice(1), ['-g', `./${manifest.name}-${manifest.version}.tgz`], `${q.where}: npm pack writes ${manifest.name}-${manifest.version}.tgz`);
    } else if (cmd === 'npm') {
      const [verb, ...after] = rest;
      const name = verb === 'run' ? after.shift()! : verb;
      assert.ok(['start', 'test', 'run'].includes(verb), `${q.where}: npm ${verb} is not a script run`);
      const script = manifest.scripts[name];
      assert.ok(script, `${q.where}: package.json has no script ${name}`);
      const dash = after.indexOf('--');
      assert.ok(dash <= 0, `${q.where}: arguments of an npm script follow --`);
      const args = dash === 0 ? after.slice(1) : [];
      const target = nodeTarget(script);
      if (target?.file && /\.(mjs|js|ts)$/.test(target.file)) checkProgram(target.file, [...target.fixed, ...args], q);
      else assert.deepEqual(args, [], `${q.where}: no way to check the arguments of "${script}"`);
    } else if ((cmd === 'npx' && rest[0] === 'tsq') || cmd === 'tsq') {
      await assert.doesNotReject(parseTsq(cmd === 'tsq' ? rest : rest.slice(1)), `${q.where}: tsq refuses these arguments`);
    } else if (cmd === 'claude' && rest[0] === 'mcp' && rest[1] === 'add') {
      // an agent's own command line: what it is told to run (after --) is checked
      const dash = rest.indexOf('--');
      assert.ok(dash > 0 && rest[dash + 1] === 'tsq', `${q.where}: the server an agent runs is tsq`);
      await assert.doesNotReject(parseTsq(rest.slice(dash + 2)), `${q.where}: tsq refuses these arguments`);
    } else if (cmd === 'node') {
      checkProgram(rest[0], rest.slice(1), q);
    } else if (cmd === 'code') {
      assert.deepEqual(rest.slice(0, 1), ['--install-extension']);
      assert.equal(rest[1], `${manifest.name}-${manifest.version}.vsix`, `${q.where}: npm run package writes ${manifest.name}-${manifest.version}.vsix`);
    } else {
      assert.fail(`${q.where}: this test does not know how to check ${cmd}`);
    }
  });
}

test('the check itself refuses a broken command', async () => {
  await assert.rejects(parseTsq(['query', 'flights.tsq', '--format', 'xml']));
  await assert.rejects(parseTsq(['load', 'some.csv', '--tabel', 'x']));
  await assert.rejects(parseTsq(['frobnicate']));
  assert.notEqual(node(['--import', 'tsx', 'test/faults/run.ts', '--faults', '1000', '--docs/service-interface.md', '§7', '--help']).status, 0);
  assert.notEqual(node(['dist/emulator.js', '--demo', '--no-such-flag', '--help']).status, 0);
  assert.notEqual(node(['scripts/start.mjs', '--prot', '1', '--help']).status, 0);
  assert.notEqual(node(['scripts/run-tests.mjs', 'unti', '--list']).status, 0);
  assert.notEqual(node(['scripts/package.mjs', '--outt', 'x.vsix', '--help']).status, 0);
});
