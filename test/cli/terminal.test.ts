// Control characters from a file or the service never reach the terminal raw (common/src/terminalText.ts):
// a connection name and a user name in an unapproved tsq.json holding a carriage return, `ESC[2K` (erase the
// line) and an OSC window-title sequence, in the refusal, in `tsq trust` and in `tsq trust --list`; a cell
// and a data source name holding them, in `tsq query --format table` and `tsq objects`. The JSON and CSV
// output keep the values exact. Run as a person would: the built `tsq` against the real emulator, whose
// seed folder defines a table with such a name, and a recording server that plays a repository's service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminalSafe } from '../../common/src/terminalText';
import { startLive, type Live } from '../emulator/client-support';
import { recordingServer, tsq, type TsqRun } from './cli-support';

/** What a hostile value holds: a carriage return, erase-line, an OSC title (BEL-terminated), a C1 CSI, a bidi override. */
const HOSTILE = 'ok\r\x1b[2K\x1b]0;pwned\x07\x9b2J\u202eevil';
/** Anything a terminal would act on. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** What the hostile value looks like once escaped. */
const SHOWN = 'ok\\r\\e[2K\\e]0;pwned\\x07\\x9b2J\\u202eevil';

const SECRET = 'Terminal-unmistakable-Pw-3391';
const TABLE = `notes${HOSTILE}`;

let live: Live;
let attacker: Awaited<ReturnType<typeof recordingServer>>;
let root: string;

before(async () => {
  live = await startLive({ tables: [{ name: TABLE, database: 'agents', columns: [{ name: 'note', dataType: 'VARCHAR' }, { name: 'n', dataType: 'INT64', kind: 'MEASURE' }] }] });
  await live.client().updatePassword({ name: 'tsadmin', currentPassword: 'admin', newPassword: SECRET });
  attacker = await recordingServer();
  root = mkdtempSync(join(tmpdir(), 'tsq-terminal-'));
});

after(async () => {
  await live?.stop();
  await attacker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Asserts that no control character (other than the line breaks and tabs of the output's own layout) is in a run's output. */
function noControls(r: TsqRun, what: string): void {
  assert.doesNotMatch(r.stderr, CONTROLS, `${what}: stderr holds a control character: ${JSON.stringify(r.stderr)}`);
  assert.doesNotMatch(r.stdout, CONTROLS, `${what}: stdout holds a control character: ${JSON.stringify(r.stdout)}`);
}

test('terminalSafe escapes C0, DEL, C1, ESC sequences and bidi controls, and keeps everything else', () => {
  assert.equal(terminalSafe(HOSTILE), SHOWN);
  assert.equal(terminalSafe('a\tb\nc\u007f\u0000\u2066\u2069\u2028'), 'a\\tb\\nc\\x7f\\x00\\u2066\\u2069\\u2028');
  assert.equal(terminalSafe('Zürich — 東京 ✈ C:\\data'), 'Zürich — 東京 ✈ C:\\data');
});

describe('a hostile tsq.json', () => {
  test('its connection and user names are shown escaped in the refusal, in tsq trust and in tsq trust --list', async () => {
    const home = join(root, 'home');
    const repo = join(home, 'src', 'cloned');
    mkdirSync(join(repo, '.git'), { recursive: true });
    const name = `team${HOSTILE}`;
    writeFileSync(join(repo, 'tsq.json'), JSON.stringify({ connections: [{ name, url: attacker.url, username: `me${HOSTILE}` }], default: name }));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), TSQ_PASSWORD: SECRET };

    const refused = await tsq(['objects'], { cwd: repo, env });
    assert.equal(refused.code, 3, refused.stderr);
    noControls(refused, 'the refusal');
    assert.ok(refused.stderr.includes(`connection "team${SHOWN}" comes from`), refused.stderr);
    assert.ok(refused.stderr.includes(`as me${SHOWN}`), refused.stderr);

    const trusted = await tsq(['trust'], { cwd: repo, env });
    assert.equal(trusted.code, 0, trusted.stderr);
    noControls(trusted, 'tsq trust');
    assert.ok(trusted.stderr.includes(`team${SHOWN}: me${SHOWN} at ${attacker.url}`), trusted.stderr);

    const list = await tsq(['trust', '--list'], { cwd: repo, env });
    assert.equal(list.code, 0, list.stderr);
    noControls(list, 'tsq trust --list');
    assert.ok(list.stdout.includes(`team${SHOWN}: ${attacker.url}`), list.stdout);
    assert.ok(list.stdout.includes(`as me${SHOWN}`), list.stdout);
  });
});

describe('values from the service', () => {
  const conn = () => ['--url', live.emu.url, '--load-url', live.emu.loadUrl ?? live.emu.url, '--user', 'tsadmin'];
  const env = { TSQ_PASSWORD: SECRET };

  test('a data source name is escaped in tsq objects, and exact in its JSON', async () => {
    const table = await tsq(['objects', ...conn()], { env });
    assert.equal(table.code, 0, table.stderr);
    noControls(table, 'tsq objects');
    assert.ok(table.stdout.includes(`notes${SHOWN}`), table.stdout);
    const json = await tsq(['objects', '--format', 'json', ...conn()], { env });
    assert.equal(json.code, 0, json.stderr);
    assert.ok((JSON.parse(json.stdout) as { name: string }[]).some((o) => o.name === TABLE), 'the JSON holds the name as it is');
  });

  test('a cell is escaped in tsq query --format table, and exact in CSV and JSON', async () => {
    const dir = mkdtempSync(join(root, 'cells-'));
    const csv = join(dir, 'notes.csv');
    writeFileSync(csv, `note,n\n"${HOSTILE}",1\n"plain",2\n`);
    const loaded = await tsq(['load', csv, '--table', `agents.engine_default_schema.${TABLE}`, '--json', ...conn()], { env });
    assert.equal(loaded.code, 0, loaded.stderr);
    const q = join(dir, 'q.tsq');
    // the data source by GUID: its name holds the very characters under test
    const objects = JSON.parse((await tsq(['objects', '--format', 'json', ...conn()], { env })).stdout) as { name: string; id: string }[];
    writeFileSync(q, `@datasource '${objects.find((o) => o.name === TABLE)!.id}'\n[note] [n] sort by [n] ascending\n`);
    const table = await tsq(['query', q, '--format', 'table', ...conn()], { env });
    assert.equal(table.code, 0, table.stderr);
    noControls(table, 'tsq query --format table');
    assert.ok(table.stdout.includes(SHOWN), table.stdout);
    const asCsv = await tsq(['query', q, '--format', 'csv', ...conn()], { env });
    assert.equal(asCsv.code, 0, asCsv.stderr);
    assert.ok(asCsv.stdout.includes(HOSTILE), 'the CSV holds the cell as it is');
    const asJson = await tsq(['query', q, '--format', 'json', ...conn()], { env });
    assert.equal(asJson.code, 0, asJson.stderr);
    assert.ok(JSON.stringify(JSON.parse(asJson.stdout)).includes(JSON.stringify(HOSTILE).slice(1, -1)), 'the JSON holds the cell as it is');
  });
});
