// common/src/safeWrite.ts on the real file system: a write never follows a link (at its temporary name,
// at the target's name, at a folder it creates), lands whole or not at all, and cuts names by bytes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportFileName } from '../../cli/src/tml';
import { writeAnswer } from '../../common/src/results/export';
import { cutToBytes, ensureFolder, openSafeWriteStream, UnsafePathError, writeFileSafely } from '../../common/src/safeWrite';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'tsq-safe-write-'));
const TEMPORARY = /^\.tsq-[A-Za-z0-9_-]{16}\.part$/;

describe('writeFileSafely', () => {
  test('writes a new file and replaces an old one whole; nothing else is left in the folder', async () => {
    const dir = fresh();
    const file = join(dir, 'a.answer.tml');
    await writeFileSafely(file, 'one\n');
    assert.equal(readFileSync(file, 'utf8'), 'one\n');
    await writeFileSafely(file, new TextEncoder().encode('two\n'));
    assert.equal(readFileSync(file, 'utf8'), 'two\n');
    assert.deepEqual(readdirSync(dir), ['a.answer.tml']);
  });

  test('a link at the target name is replaced by the file; what it pointed at is untouched', async () => {
    const dir = fresh();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'mine\n');
    const file = join(dir, 'out.csv');
    symlinkSync(victim, file);
    await writeFileSafely(file, 'data\n');
    assert.equal(readFileSync(victim, 'utf8'), 'mine\n');
    assert.ok(lstatSync(file).isFile());
    assert.equal(readFileSync(file, 'utf8'), 'data\n');
  });

  test('links at the names a writer could guess (pid, .tmp, .part) stay links to untouched files', async () => {
    const dir = fresh();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'mine\n');
    const file = join(dir, 'x.load.json');
    const guessed = [`${file}.tmp`, `${file}.part`, ...Array.from({ length: 200 }, (_, i) => `${file}.${process.pid + i}.part`), join(dir, '.tsq-.part')];
    for (const g of guessed) symlinkSync(victim, g);
    await writeFileSafely(file, '{}\n');
    assert.equal(readFileSync(victim, 'utf8'), 'mine\n');
    for (const g of guessed) assert.equal(readlinkSync(g), victim);
    assert.equal(readFileSync(file, 'utf8'), '{}\n');
  });

  test('a failed write leaves no temporary file and the target unchanged', async () => {
    const dir = fresh();
    const folder = join(dir, 'a folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'inside'), 'x');
    await assert.rejects(writeFileSafely(folder, 'data'), (e: NodeJS.ErrnoException) => ['EISDIR', 'ENOTEMPTY', 'EEXIST', 'EPERM'].includes(e.code ?? ''));
    assert.deepEqual(readdirSync(dir), ['a folder']);
    await assert.rejects(writeFileSafely(join(dir, 'missing', 'f'), 'data'), { code: 'ENOENT' });
  });
});

describe('openSafeWriteStream', () => {
  test('writes to an exclusive temporary file of a random name, renamed on commit', async () => {
    const dir = fresh();
    const file = join(dir, 'answer.csv');
    writeFileSync(file, 'old\n');
    const a = await openSafeWriteStream(file);
    const b = await openSafeWriteStream(join(dir, 'other.csv'));
    a.stream.write('new\n');
    const temporaries = readdirSync(dir).filter((f) => TEMPORARY.test(f));
    assert.equal(temporaries.length, 2, JSON.stringify(readdirSync(dir)));
    assert.notEqual(temporaries[0], temporaries[1]);
    for (const t of temporaries) {
      const st = lstatSync(join(dir, t));
      assert.ok(st.isFile() && st.nlink === 1);
    }
    assert.equal(readFileSync(file, 'utf8'), 'old\n', 'the target holds the old bytes until the commit');
    await a.commit();
    await b.abort();
    assert.equal(readFileSync(file, 'utf8'), 'new\n');
    assert.deepEqual(readdirSync(dir), ['answer.csv']);
  });

  test('abort removes the temporary file and leaves the target unchanged; a link at the target stays a link to an untouched file', async () => {
    const dir = fresh();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'mine\n');
    const file = join(dir, 'answer.json');
    symlinkSync(victim, file);
    const w = await openSafeWriteStream(file);
    w.stream.write('[1,2');
    await w.abort();
    await w.abort();
    assert.equal(readlinkSync(file), victim);
    assert.equal(readFileSync(victim, 'utf8'), 'mine\n');
    assert.deepEqual(readdirSync(dir).sort(), ['answer.json', 'victim']);
    const v = await openSafeWriteStream(file);
    v.stream.write('[]\n');
    await v.commit();
    assert.ok(lstatSync(file).isFile());
    assert.equal(readFileSync(victim, 'utf8'), 'mine\n');
  });

  test('a commit that cannot rename rejects and removes the temporary file', async () => {
    const dir = fresh();
    const folder = join(dir, 'taken');
    mkdirSync(folder);
    writeFileSync(join(folder, 'inside'), 'x');
    const w = await openSafeWriteStream(folder);
    w.stream.write('rows');
    await assert.rejects(w.commit());
    assert.deepEqual(readdirSync(dir), ['taken']);
  });
});

describe('writeAnswer (Export Results) writes through openSafeWriteStream', () => {
  test('a link at the chosen name is replaced; a page that fails half way leaves the old file and no temporary file', async () => {
    const dir = fresh();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'mine\n');
    const file = join(dir, 'answer.csv');
    symlinkSync(victim, file);
    assert.equal(await writeAnswer(file, 'csv', ['a'], [[['x']]]), 1);
    assert.equal(readFileSync(victim, 'utf8'), 'mine\n');
    assert.equal(readFileSync(file, 'utf8'), 'a\r\nx\r\n');
    function* failing(): Generator<string[][]> {
      yield [['y']];
      throw new Error('the page cannot be unpacked');
    }
    await assert.rejects(writeAnswer(file, 'csv', ['a'], failing()), /cannot be unpacked/);
    assert.equal(readFileSync(file, 'utf8'), 'a\r\nx\r\n');
    assert.deepEqual(readdirSync(dir).sort(), ['answer.csv', 'victim']);
  });
});

describe('ensureFolder', () => {
  test('creates missing folders, and uses existing ones and links to existing folders', async () => {
    const dir = fresh();
    await ensureFolder(join(dir, 'a', 'b', 'c'));
    assert.ok(lstatSync(join(dir, 'a', 'b', 'c')).isDirectory());
    await ensureFolder(join(dir, 'a', 'b', 'c'));
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    await ensureFolder(join(dir, 'linked', 'd'));
    assert.ok(lstatSync(join(dir, 'real', 'd')).isDirectory());
  });

  test('a dangling link at a component it would create is refused, and its target is not created', async () => {
    const dir = fresh();
    const outside = join(dir, 'outside');
    mkdirSync(join(dir, 'repo'));
    symlinkSync(join(outside, 'autostart'), join(dir, 'repo', 'answers'));
    await assert.rejects(ensureFolder(join(dir, 'repo', 'answers', 'q3')), (e: unknown) => e instanceof UnsafePathError && /is a link to nothing/.test(e.message) && e.path === join(dir, 'repo', 'answers'));
    await assert.rejects(ensureFolder(join(dir, 'repo', 'answers')), UnsafePathError);
    assert.ok(!existsSync(outside));
    writeFileSync(join(dir, 'file'), 'x');
    await assert.rejects(ensureFolder(join(dir, 'file', 'sub')), /is not a folder/);
  });

  test('below the repository folder a link to an existing folder is refused too; its own path is the user\'s', async () => {
    const dir = fresh();
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'home'));
    const repo = join(dir, 'home', 'repo');
    mkdirSync(repo);
    symlinkSync(outside, join(repo, 'answers'));
    await assert.rejects(ensureFolder(join(repo, 'answers', 'q3'), { repository: repo }), (e: unknown) => e instanceof UnsafePathError && e.path === join(repo, 'answers') && /is a link/.test(e.message));
    assert.deepEqual(readdirSync(outside), []);
    await ensureFolder(join(repo, 'exported', 'q3'), { repository: repo });
    assert.ok(lstatSync(join(dir, 'real', 'repo', 'exported', 'q3')).isDirectory(), 'the link above the repository (home) is followed');
  });
});

describe('cutToBytes', () => {
  test('cuts by UTF-8 bytes on a code point boundary', () => {
    assert.equal(cutToBytes('abc', 10), 'abc');
    assert.equal(cutToBytes('abcdef', 4), 'abcd');
    const cyrillic = 'ж'.repeat(150);
    assert.equal(Buffer.byteLength(cyrillic), 300);
    assert.equal(cutToBytes(cyrillic, 243), 'ж'.repeat(121), 'a two-byte letter is never split');
    assert.equal(cutToBytes('a😀b', 4), 'a', 'a surrogate pair (4 bytes) is never split');
    assert.equal(cutToBytes('a😀b', 5), 'a😀');
    assert.equal(cutToBytes('€€', 5), '€');
  });
});

describe('exportFileName (tsq tml export)', () => {
  test('the whole name, suffix and ending included, is at most 255 bytes, cut on a character', () => {
    const long = 'ж'.repeat(150);
    assert.equal(exportFileName(long, 'ANSWER'), `${'ж'.repeat(122)}.answer.tml`);
    assert.equal(Buffer.byteLength(exportFileName(long, 'ANSWER')), 255);
    assert.equal(exportFileName(long, 'ANSWER', 2), `${'ж'.repeat(120)} (2).answer.tml`);
    const emoji = exportFileName(`a${'😀'.repeat(70)}`, 'LIVEBOARD', 12);
    assert.ok(Buffer.byteLength(emoji) <= 255 && emoji.endsWith(' (12).liveboard.tml'), emoji);
    assert.equal(Buffer.from(emoji).toString(), emoji, 'no surrogate pair split (a lone one would not survive UTF-8)');
    assert.equal(exportFileName('North/South', 'ANSWER'), 'North_South.answer.tml');
    assert.equal(exportFileName('../../x', 'ANSWER', 3), '__.._x (3).answer.tml');
  });
});
