// Runs the repository's GitHub Action (action.yml, a composite action) the way GitHub's runner does, for
// the tests: each step of `runs.steps` with a `run` script, in `bash --noprofile --norc -eo pipefail`
// (the runner's command for `shell: bash`), its `env` and `working-directory` with the `${{ inputs.* }}`
// and `${{ github.action_path }}` expressions substituted, GITHUB_ACTION_PATH and GITHUB_WORKSPACE set.
// The action's own folder is a copy of this repository's files (those Git knows, as a checkout of the tag
// holds them), so that its `npm ci` installs there and not into this clone. Not a test file itself.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { EMPTY_HOME } from './cli-support';

/** The repository's root. */
export const ROOT = resolve(__dirname, '..', '..');

/** The npm cache of this machine (`npm config get cache`), kept when HOME points elsewhere, so that `npm ci` finds the packages there. */
export const NPM_CACHE = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();

/** One npm setting as this machine's configuration gives it (`npm config get`), or undefined when unset. */
function npmSetting(name: string): string | undefined {
  const value = spawnSync('npm', ['config', 'get', name], { encoding: 'utf8' }).stdout.trim();
  return value && value !== 'null' && value !== 'undefined' ? value : undefined;
}

/** This machine's npm settings that npmEnv passes on, read once. */
const NPM_SETTINGS = { cafile: npmSetting('cafile'), registry: npmSetting('registry') };

/** The variables by which a machine reaches its registry (a proxy, an extra certificate authority), passed on as they are. */
const NETWORK_VARIABLES = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'];

/**
 * The environment of an npm that a test runs with an empty HOME: PATH, HOME, this machine's npm cache,
 * and the registry, certificate authority file and proxy this machine's npm uses. HOME's `.npmrc` is
 * not read there, nor the global npmrc when `--prefix` moves it, so without these an install behind a
 * TLS-inspecting proxy fails SELF_SIGNED_CERT_IN_CHAIN on every fetch, retried for an hour.
 */
export function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: EMPTY_HOME, npm_config_cache: NPM_CACHE, npm_config_update_notifier: 'false' };
  for (const name of NETWORK_VARIABLES) if (process.env[name]) env[name] = process.env[name];
  for (const [setting, variable] of [['cafile', 'npm_config_cafile'], ['registry', 'npm_config_registry']] as const) {
    const value = NPM_SETTINGS[setting];
    if (value) env[variable] = value;
  }
  return { ...env, ...extra };
}

/** One input of action.yml. */
interface ActionInput {
  description: string;
  required?: boolean;
  default?: string;
}

/** One step of a composite action (the fields the runner reads for a `run` step). */
export interface ActionStep {
  name: string;
  shell: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}

/** action.yml as parsed. */
export interface ActionManifest {
  name: string;
  inputs: Record<string, ActionInput>;
  runs: { using: string; steps: ActionStep[] };
}

/** Reads action.yml of the repository. */
export function readAction(): ActionManifest {
  return parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionManifest;
}

/**
 * A copy of the repository's files that Git knows (tracked, and new ones not ignored), as the runner
 * checks out the action's tag into `_actions/<owner>/tsq/<tag>`: no node_modules, no dist/. Regular
 * files only, so that nothing in the copy leads back into this clone.
 * @returns the folder, under the OS's temporary folder
 */
export function copyOfRepository(): string {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'tsq-action-'));
  for (const file of r.stdout.split('\0').filter(Boolean)) {
    // regular files only: never a symbolic link (a linked node_modules would let `npm ci` empty its target)
    if (file.split('/')[0] === 'node_modules' || !existsSync(join(ROOT, file)) || !lstatSync(join(ROOT, file)).isFile()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  return dir;
}

/** The outcome of one step. */
export interface StepRun {
  step: string;
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Substitutes the expressions a step of this action may hold: `${{ inputs.NAME }}` (the given value,
 * else the input's default, else '') and `${{ github.action_path }}`; throws on any other expression.
 */
export function substitute(text: string, manifest: ActionManifest, withInputs: Record<string, string>, actionPath: string): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    if (expr === 'github.action_path') return actionPath;
    const m = /^inputs\.([\w-]+)$/.exec(expr);
    if (!m || !manifest.inputs[m[1]]) throw new Error(`an expression this runner does not know: ${expr}`);
    return withInputs[m[1]] ?? manifest.inputs[m[1]].default ?? '';
  });
}

/**
 * Runs every `run` step of action.yml in order, as GitHub's runner would, with `withInputs` (the `with:`
 * of the workflow step) in the workspace folder `workspace`; stops after the first step that fails (as
 * the runner does). Required inputs that are missing throw, as the runner refuses them. The scripts run
 * as child processes without blocking this process (whose emulator must answer them).
 * @param extraEnv variables of the job's environment (the runner's own, e.g. CI=true, are set here)
 */
export async function runAction(actionPath: string, workspace: string, withInputs: Record<string, string>, extraEnv: Record<string, string> = {}): Promise<StepRun[]> {
  const manifest = readAction();
  for (const [name, input] of Object.entries(manifest.inputs)) {
    if (input.required && !(name in withInputs)) throw new Error(`input required and not supplied: ${name}`);
  }
  const runs: StepRun[] = [];
  for (const step of manifest.runs.steps) {
    if (step.run === undefined) continue;
    const env: NodeJS.ProcessEnv = npmEnv({
      XDG_CONFIG_HOME: join(EMPTY_HOME, '.config'),
      LANG: 'C.UTF-8',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: actionPath,
      ...extraEnv,
    });
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = substitute(String(v), manifest, withInputs, actionPath);
    const cwd = step['working-directory'] ? substitute(step['working-directory'], manifest, withInputs, actionPath) : workspace;
    const script = join(mkdtempSync(join(tmpdir(), 'tsq-action-step-')), 'step.sh');
    writeFileSync(script, step.run);
    assert(step.shell === 'bash', `${step.name}: shell ${step.shell}`);
    const r = await new Promise<StepRun>((done, fail) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const run: StepRun = { step: step.name, status: null, stdout: '', stderr: '' };
      child.stdout.setEncoding('utf8').on('data', (d: string) => (run.stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (run.stderr += d));
      child.once('error', fail);
      child.once('close', (code) => done({ ...run, status: code }));
    });
    rmSync(dirname(script), { recursive: true, force: true });
    runs.push(r);
    if (r.status !== 0) break;
  }
  return runs;
}

function assert(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(what);
}

/** One `::error`/`::warning` workflow command of a run's output: its kind, properties and message. */
export interface Annotation {
  kind: string;
  props: Record<string, string>;
  message: string;
}

/** The workflow commands (annotations) in a text, as GitHub's runner reads them (a line starting `::`). */
export function annotations(text: string): Annotation[] {
  return text.split('\n').flatMap((line) => {
    const m = /^::(error|warning|notice)( [^:]*)?::(.*)$/.exec(line);
    if (!m) return [];
    const props = Object.fromEntries((m[2] ?? '').trim().split(',').filter(Boolean).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
    return [{ kind: m[1], props, message: m[3] }];
  });
}
