// README.md's commands and settings tables stay in step with package.json: every contributed command
// has a row with its id and its palette title, every setting a row with its id and default, and the
// tables name nothing the manifest does not contribute. The files README.md links to exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const commands = manifest.contributes.commands as { command: string; title: string; category?: string }[];
const settings = manifest.contributes.configuration.properties as Record<string, { default?: unknown }>;

/** The table rows (lines starting with `|`) of the README section that starts with `heading`. */
function tableRows(heading: string): string[][] {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README.md has no section "${heading}"`);
  const next = readme.indexOf('\n## ', start + heading.length + 2);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return section
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .slice(1) // the header row
    .map((l) => l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
}

test('the commands table has one row per contributed command, with its id and title', () => {
  const rows = tableRows('## Commands');
  for (const c of commands) {
    const row = rows.find((r) => r[1] === `\`${c.command}\``);
    assert.ok(row, `README.md's commands table has no row for ${c.command}`);
    assert.equal(row[0], `${c.category ?? 'TSQ'}: ${c.title}`, `title of ${c.command}`);
    assert.ok(row[2], `the row of ${c.command} says where it appears`);
  }
  const known = new Set(commands.map((c) => `\`${c.command}\``));
  for (const r of rows) assert.ok(known.has(r[1]), `README.md lists ${r[1]}, which package.json does not contribute`);
});

test('the settings table has one row per contributed setting, with its default', () => {
  const rows = tableRows('## Settings');
  for (const [id, s] of Object.entries(settings)) {
    const row = rows.find((r) => r[0] === `\`${id}\``);
    assert.ok(row, `README.md's settings table has no row for ${id}`);
    assert.equal(row[2], `\`${JSON.stringify(s.default)}\``, `default of ${id}`);
  }
  for (const r of rows) assert.ok(r[0].replace(/`/g, '') in settings, `README.md lists ${r[0]}, which package.json does not contribute`);
});

test('the files README.md links to exist (screenshots aside, which npm run screenshots takes)', () => {
  for (const [, target] of readme.matchAll(/\]\(([^)#\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target) || /^docs\/[\w-]+\.png$/.test(target)) continue;
    assert.ok(existsSync(join(ROOT, target)), `README.md links to ${target}, which does not exist`);
  }
});

test("every command the demo workspace's README names (**TSQ: …**) is a contributed command with that title", () => {
  const demo = readFileSync(join(ROOT, 'test', 'fixtures', 'demo-workspace', 'README.md'), 'utf8');
  const titles = new Set(commands.map((c) => `${c.category ?? 'TSQ'}: ${c.title}`));
  const named = [...demo.matchAll(/\*\*(TSQ: [^*]+)\*\*/g)].map((m) => m[1]);
  assert.ok(named.length >= 3, `the demo README names its commands in bold: ${named.join(', ')}`);
  for (const title of named) assert.ok(titles.has(title), `the demo README names "${title}", which package.json does not contribute`);
  // a command named in prose without the bold would escape the check above
  const rest = demo.replace(/\*\*TSQ: [^*]+\*\*/g, '');
  assert.doesNotMatch(rest, /TSQ: [A-Z]/, 'a command named without the bold, so not checked');
});
