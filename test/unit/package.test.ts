// The .vsix people install: scripts/package.mjs (vsce, with .vscodeignore as an allow-list) packs the
// bundles in dist/ into a file of at most 3 MB holding only the bundles, the grammar, the language
// configuration, the manifest, README, CHANGELOG, LICENSE, the icon and the walkthrough's media; the
// manifest's engines, activation events, icon and walkthrough are what VS Code needs. Packs the bundles
// as built (`--no-build`, so that parallel tests keep their dist/); npm test builds them first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const ROOT = resolve(__dirname, '..', '..');
const MAX_BYTES = 3 * 1024 * 1024;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const missingBundles = ['dist/client.js', 'dist/server.js'].filter((f) => !existsSync(join(ROOT, f)));

/** One member of a zip archive: its name and, when `read`, its bytes (stored or deflated). */
interface ZipEntry { name: string; size: number; data(): Buffer }

/** Lists a zip archive from its central directory (APPNOTE 4.3.12); enough for vsce's output (no zip64). */
function readZip(buf: Buffer): ZipEntry[] {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, 'not a zip file: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, 'broken central directory');
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    entries.push({
      name,
      size,
      data() {
        const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
        const raw = buf.subarray(start, start + compressed);
        return method === 0 ? Buffer.from(raw) : inflateRawSync(raw);
      },
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

test('npm run package makes a .vsix of at most 3 MB holding only what the installed extension needs', { skip: missingBundles.length ? `${missingBundles.join(', ')} missing: npm run build` : false, timeout: 180_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-package-'));
  try {
    const out = join(dir, 'tsq.vsix');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'package.mjs'), '--no-build', '--out', out], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    const bytes = statSync(out).size;
    t.diagnostic(`vsix: ${bytes} bytes`);
    assert.ok(bytes <= MAX_BYTES, `${bytes} bytes > 3 MB`);

    const entries = readZip(readFileSync(out));
    const files = entries.map((e) => e.name).filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length)).sort();
    // vsce's own members sit beside extension/
    assert.deepEqual(entries.map((e) => e.name).filter((n) => !n.startsWith('extension/')).sort(), ['[Content_Types].xml', 'extension.vsixmanifest']);
    const allowed = [
      /^package\.json$/, /^readme\.md$/i, /^changelog\.md$/i, /^LICENSE(\.txt)?$/i, /^language-configuration\.json$/,
      /^syntaxes\/[\w.-]+\.tmLanguage\.json$/, /^dist\/(client|server|webview)\.js$/, /^dist\/webview\.css$/,
      /^resources\/icon\.png$/, /^resources\/[\w.-]+\.svg$/, /^resources\/[\w.-]+\.schema\.json$/, /^resources\/walkthrough\/[\w.-]+\.md$/,
    ];
    const stray = files.filter((f) => !allowed.some((re) => re.test(f)));
    assert.deepEqual(stray, [], 'files outside the allow-list');
    for (const needed of ['package.json', 'readme.md', 'changelog.md', 'LICENSE.txt', 'language-configuration.json', 'dist/client.js', 'dist/server.js', 'resources/icon.png']) {
      assert.ok(files.some((f) => f.toLowerCase() === needed.toLowerCase()), `${needed} is missing from ${JSON.stringify(files)}`);
    }
    // no source maps, sources, tests or dependencies
    assert.ok(!files.some((f) => /\.map$|\.ts$|^node_modules\/|^test\/|^emulator\//.test(f)), JSON.stringify(files));

    // what the manifest points at is in the package
    const packed = JSON.parse(entries.find((e) => e.name === 'extension/package.json')!.data().toString('utf8'));
    const paths = [
      packed.main, packed.icon,
      ...packed.contributes.grammars.map((g: { path: string }) => g.path),
      ...packed.contributes.languages.map((l: { configuration?: string }) => l.configuration).filter(Boolean),
      ...packed.contributes.languages.flatMap((l: { icon?: { light: string; dark: string } }) => (l.icon ? [l.icon.light, l.icon.dark] : [])),
      ...packed.contributes.viewsContainers.activitybar.map((c: { icon: string }) => c.icon),
      ...packed.contributes.walkthroughs.flatMap((w: { steps: { media: Record<string, string> }[] }) => w.steps.map((s) => s.media.markdown ?? s.media.image)),
      ...(packed.contributes.jsonValidation ?? []).map((j: { url: string }) => j.url).filter((u: string) => !/^https?:/.test(u)),
    ].map((p: string) => p.replace(/^\.\//, ''));
    for (const p of paths) assert.ok(files.includes(p), `${p} (named by package.json) is not in the package`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the manifest: engines.vscode matches @types/vscode, activation only where needed, a walkthrough of four steps', () => {
  const types = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@types', 'vscode', 'package.json'), 'utf8')).version as string;
  const [major, minor] = types.split('.');
  assert.equal(manifest.engines.vscode, `^${major}.${minor}.0`);
  assert.equal(manifest.devDependencies['@types/vscode'], types);
  // views and commands activate by themselves (VS Code 1.74+); a .tsq file or workspace, and a results
  // panel restored after a reload (its serializer), are the only other reasons
  for (const e of manifest.activationEvents as string[]) assert.match(e, /^(onLanguage:tsq|workspaceContains:\*\*\/\*\.tsq|onWebviewPanel:tsq\.results)$/);
  assert.ok(!(manifest.activationEvents as string[]).includes('*'));
  const [walkthrough] = manifest.contributes.walkthroughs;
  assert.deepEqual(walkthrough.steps.map((s: { id: string }) => s.id), ['tsq.connect', 'tsq.writeQuery', 'tsq.runQuery', 'tsq.loadCsv']);
  const commands = new Set((manifest.contributes.commands as { command: string }[]).map((c) => c.command));
  for (const step of walkthrough.steps as { description: string; completionEvents: string[]; media: { markdown: string } }[]) {
    assert.ok(existsSync(join(ROOT, step.media.markdown)), step.media.markdown);
    for (const [, id] of step.description.matchAll(/\(command:([\w.]+)/g)) assert.ok(id.startsWith('workbench.') || commands.has(id), `unknown command ${id}`);
    for (const ev of step.completionEvents) {
      const id = ev.match(/^onCommand:(.+)$/)?.[1];
      if (id) assert.ok(commands.has(id), `unknown command ${id}`);
    }
  }
  const icon = readFileSync(join(ROOT, manifest.icon));
  assert.equal(icon.subarray(1, 4).toString('latin1'), 'PNG');
  assert.ok(icon.readUInt32BE(16) >= 128 && icon.readUInt32BE(20) >= 128, 'the icon is at least 128 x 128');
});

test('the manifest names things as the Settings UI and ThoughtSpot do: a TSQ settings category, Liveboards, a .tsq file icon', () => {
  // the Settings UI titles the extension's settings by contributes.configuration.title
  assert.equal(manifest.contributes.configuration.title, 'TSQ');
  // ThoughtSpot calls them Liveboards since 8.4: no title a person reads says Pinboard (the API's names keep it)
  const titles: string[] = [
    ...manifest.contributes.commands.map((c: { title: string }) => c.title),
    ...Object.values(manifest.contributes.views as Record<string, { name: string }[]>).flat().map((v) => v.name),
    ...(manifest.contributes.walkthroughs ?? []).flatMap((w: { title: string; steps: { title: string }[] }) => [w.title, ...w.steps.map((s) => s.title)]),
  ];
  assert.deepEqual(titles.filter((t) => /pinboard/i.test(t)), []);
  // .tsq files have their own icon, light and dark, in resources/
  const tsq = manifest.contributes.languages.find((l: { id: string }) => l.id === 'tsq');
  assert.ok(tsq.icon, 'contributes.languages[tsq].icon');
  for (const theme of ['light', 'dark'] as const) {
    const path = tsq.icon[theme] as string;
    assert.match(path, /^\.\/resources\/[\w.-]+\.svg$/);
    const svg = readFileSync(join(ROOT, path), 'utf8');
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(!/currentColor/.test(svg), `${path}: a file icon is drawn outside the theme's text colour, so it names its colour`);
  }
  assert.notEqual(tsq.icon.light, tsq.icon.dark);
});

test('Preview Data is offered inline and in the context menu of every data source of the Objects view, not in the palette', () => {
  const cmd = manifest.contributes.commands.find((c: { command: string }) => c.command === 'tsq.previewData');
  assert.ok(cmd, 'tsq.previewData is declared');
  assert.equal(cmd.title, 'Preview Data');
  assert.equal(cmd.category, 'TSQ');
  const items = manifest.contributes.menus['view/item/context'].filter((m: { command: string }) => m.command === 'tsq.previewData');
  assert.deepEqual(items.map((m: { group: string }) => (m.group === 'inline' ? 'inline' : 'context')).sort(), ['context', 'inline']);
  for (const m of items) assert.equal(m.when, 'view == tsq.objects && viewItem =~ /\\btsq:dataSource\\b/');
  assert.ok(manifest.contributes.menus.commandPalette.some((m: { command: string; when: string }) => m.command === 'tsq.previewData' && m.when === 'false'));
});
