// The repository's GitHub Action (action.yml) run as GitHub's runner runs it (action-support.ts): the
// README's CI example, its `uses:` steps with their `with:` inputs (the repository variable and secret
// substituted), on a sample workspace against the real emulator. The install step runs `npm ci` in a
// copy of the repository (the action's own checkout) and the check step the tsq it built; the
// annotations (`::error file=…`) name the bad files on their lines and the step fails with tsq's exit
// code. Inputs reach the scripts only as environment variables: a pattern holding `$(…)` runs nothing,
// the secret is on no command line, a wrong password fails with exit 3 and the password in no output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startLive, type Live } from '../emulator/client-support';
import { lineOf, liveboardTml } from '../fixtures/liveboard';
import { annotations, copyOfRepository, readAction, ROOT, runAction, type StepRun } from './action-support';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The README's workflow: the ```yaml block that starts `# .github/workflows/tsq.yml`. */
function readmeWorkflow(): { jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }> } {
  const block = [...readme.matchAll(/^```yaml\n([\s\S]*?)^```/gm)].find((m) => m[1].startsWith('# .github/workflows/tsq.yml'));
  assert.ok(block, 'README.md shows the workflow .github/workflows/tsq.yml');
  return parse(block[1]);
}

/** The job's output as the runner collects it (stdout and stderr of every step). */
const output = (runs: StepRun[]): string => runs.map((r) => `${r.stdout}\n${r.stderr}`).join('\n');

const BAD_QUERY = "@datasource 'movies'\n[Director] [nope]\n";
const GOOD_QUERY = "@datasource 'movies'\n[Director] [US Gross] top 3\n";
const BAD_ANSWER = 'answer:\n  name: Bad\n  tables:\n  - name: movies\n  search_query: "[Director] [nope]"\n';
const GOOD_ANSWER = 'answer:\n  name: Good\n  tables:\n  - name: movies\n  search_query: "[Director] [US Gross] top 3"\n';

describe('the GitHub Action', () => {
  let live: Live;
  let actionPath: string;
  let workspace: string;
  before(async () => {
    live = await startLive();
    actionPath = copyOfRepository();
    workspace = mkdtempSync(join(tmpdir(), 'tsq-action-ws-'));
    for (const d of ['queries', 'answers', 'liveboards']) mkdirSync(join(workspace, d));
    writeFileSync(join(workspace, 'queries', 'bad.tsq'), BAD_QUERY);
    writeFileSync(join(workspace, 'queries', 'good.tsq'), GOOD_QUERY);
    writeFileSync(join(workspace, 'answers', 'bad.answer.tml'), BAD_ANSWER);
    writeFileSync(join(workspace, 'answers', 'good.answer.tml'), GOOD_ANSWER);
    writeFileSync(join(workspace, 'liveboards', 'board.liveboard.tml'), liveboardTml({ movies: 'movies', flights: 'flights', column: 'delai' }));
  });
  after(async () => {
    await live?.stop();
    for (const d of [actionPath, workspace]) if (d) rmSync(d, { recursive: true, force: true });
  });

  test('its scripts hold no ${{ }} expression: inputs reach them as environment variables only', () => {
    const action = readAction();
    assert.equal(action.runs.using, 'composite');
    for (const step of action.runs.steps) {
      assert.ok(step.run !== undefined, `${step.name}: every step is a run step (the tests run them all)`);
      assert.doesNotMatch(step.run, /\$\{\{/, `${step.name}: an expression inside the script`);
      // the secret goes to tsq only as TSQ_PASSWORD / TSQ_TOKEN, never as an argument
      for (const line of step.run.split('\n').filter((l) => l.includes('INPUT_SECRET'))) {
        assert.match(line.trim(), /^(case "\$INPUT_SECRET_KIND" in|password\) export TSQ_PASSWORD="\$INPUT_SECRET" ;;|token\) export TSQ_TOKEN="\$INPUT_SECRET" ;;|\*\) echo "::error title=tsq::secret-kind must be password or token, not: \$INPUT_SECRET_KIND"; exit 2 ;;|unset INPUT_SECRET)$/, `${step.name}: the secret used otherwise: ${line}`);
      }
    }
  });

  test("the README's CI example: annotations on the bad files' lines, each step failing with exit 1", async () => {
    const steps = Object.values(readmeWorkflow().jobs).flatMap((j) => j.steps).filter((s) => s.uses?.endsWith(`/tsq@v${manifest.version}`));
    assert.ok(steps.length >= 2, `the example uses this action at its version v${manifest.version}: ${JSON.stringify(steps)}`);
    const seen = new Set<string>();
    for (const step of steps) {
      const withInputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, String(v).replace('${{ vars.TSQ_URL }}', live.emu.url).replace('${{ vars.TSQ_USER }}', 'tsadmin').replace('${{ secrets.TSQ_PASSWORD }}', 'admin')]),
      );
      const runs = await runAction(actionPath, workspace, withInputs, { npm_config_prefer_offline: 'true' });
      const text = output(runs);
      assert.equal(runs.length, 2, `both steps ran:\n${text}`);
      assert.equal(runs[0].status, 0, `the install step:\n${text}`);
      assert.match(runs[0].stdout, new RegExp(`^${manifest.version.replace(/\./g, '\\.')}$`, 'm'), 'the tsq of this version');
      assert.equal(runs[1].status, 1, `tsq found errors, so the step fails with its exit code 1:\n${text}`);
      const errors = annotations(text).filter((a) => a.kind === 'error');
      for (const e of errors) seen.add(`${e.props.file}:${e.props.line}`);
      assert.ok(!errors.some((e) => /good/.test(e.props.file ?? '')), `no error on a good file:\n${text}`);
      assert.doesNotMatch(text, /admin/, 'the password is in no output');
    }
    const board = liveboardTml({ movies: 'movies', flights: 'flights', column: 'delai' });
    for (const expected of ['queries/bad.tsq:2', 'answers/bad.answer.tml:5', `liveboards/board.liveboard.tml:${lineOf(board, 'delai')}`]) {
      assert.ok(seen.has(expected), `an ::error on ${expected}: ${[...seen].join(', ')}`);
    }
  });

  test('both checks in one step; ** patterns; clean files pass with exit 0', async () => {
    const conn = { url: live.emu.url, user: 'tsadmin', secret: 'admin' };
    const both = await runAction(actionPath, workspace, { ...conn, check: 'check, tml-validate', files: 'answers/**/bad.answer.tml' });
    const errors = annotations(output(both)).filter((a) => a.kind === 'error' && a.props.file === 'answers/bad.answer.tml');
    assert.ok(errors.length >= 2, `an error of each check:\n${output(both)}`);
    assert.equal(both.at(-1)!.status, 1);
    const clean = await runAction(actionPath, workspace, { ...conn, files: 'queries/good.tsq\nanswers/good.answer.tml' });
    assert.equal(clean.at(-1)!.status, 0, output(clean));
    assert.deepEqual(annotations(output(clean)).filter((a) => a.kind === 'error'), []);
  });

  test('a pattern is never shell code, and one that matches nothing fails the step', async () => {
    const marker = join(workspace, 'pwned');
    const r = await runAction(actionPath, workspace, { url: live.emu.url, user: 'tsadmin', secret: 'admin', files: `$(touch ${marker}) queries/*.tsq \`touch ${marker}\`` });
    assert.equal(existsSync(marker), false, 'the command in the pattern did not run');
    assert.equal(r.at(-1)!.status, 2, output(r));
    assert.ok(annotations(output(r)).some((a) => a.kind === 'error' && a.message.startsWith('no file matches the pattern')), output(r));
  });

  test('a wrong password: exit 3 (authentication), the password in no output', async () => {
    const secret = 'Wrong-Password-4711';
    const r = await runAction(actionPath, workspace, { url: live.emu.url, user: 'tsadmin', secret, files: 'queries/good.tsq' });
    assert.equal(r.at(-1)!.status, 3, output(r));
    assert.ok(!output(r).includes(secret), output(r));
  });
});
