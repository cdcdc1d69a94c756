/**
 * `tsq trust`: the person approves the project's `tsq.json` once, as direnv's `allow` or git's
 * `safe.directory` do. The file is found as every command finds it (common/src/trust.ts
 * `findProjectFile`). Every entry it defines is shown under the trust rules, with the address and user
 * each would receive: what a project may not set is left out, and an entry that a connection of the
 * person's own shadows is shown as such and left out of the approval (it is asked about again if the
 * shadow goes away). The file's SHA-256 and the entries approved are recorded in the user's
 * `trusted.json` (`ApprovalStore`, under its lock). Any later edit of the file makes it unapproved again.
 * Every text from the file is shown through `terminalSafe` (common/src/terminalText.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadConnections, type ConnectionSettings } from '../../common/src/connectionConfig';
import { terminalSafe, terminalText, type TerminalText } from '../../common/src/terminalText';
import { ApprovalStore, credentialTargets, findProjectFile, projectConnection, type Approval, type ApprovedConnection } from '../../common/src/trust';
import { ExitCode, UsageError, type ExitCodeValue } from './exitCodes';
import { info, printLine, warn } from './output';
import { messageOf } from '../../common/src/guards';

/** Options of `tsq trust`. */
export interface TrustOptions {
  /** Withdraw the approval of the project file. */
  revoke?: boolean;
  /** List every approval instead. */
  list?: boolean;
}

/**
 * A test hook, off unless the environment names a folder in `TSQ_TEST_TRUST_PAUSE`: between reading and
 * writing `trusted.json` (the store's lock held), the run creates `paused` in that folder and waits until
 * `go` exists there. The concurrency test of test/cli/trust.test.ts uses it to hold one change in the
 * middle while another starts, so that a lost update would show every time rather than by luck.
 */
function pauseHook(env: NodeJS.ProcessEnv): (() => void) | undefined {
  const dir = env.TSQ_TEST_TRUST_PAUSE;
  if (!dir) return undefined;
  return () => {
    writeFileSync(join(dir, 'paused'), String(process.pid));
    const wait = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(join(dir, 'go'))) Atomics.wait(wait, 0, 0, 10);
  };
}

/** `origin user` → `origin as user`, escaped for the terminal. */
const asTarget = (t: string) => terminalSafe(t).replace(' ', ' as ');

/** One line of `tsq trust --list`: the file, when, and what was approved, entry by entry. */
function listLine(a: Approval): TerminalText {
  const what = a.connections ? a.connections.map((c) => `${terminalSafe(c.name)}: ${c.targets.map(asTarget).join(' and ')}`).join('; ') : a.credentials.map(asTarget).join(', ');
  // the tabs are the list's columns, every value escaped (terminalSafe leaves what it escaped as it is)
  return terminalText`${a.file}\t${a.approvedAt}\t${what}`;
}

/**
 * Runs `tsq trust` in `cwd`: approves (or with `revoke` withdraws the approval of) the project file.
 * @throws UsageError when no project file is found from `cwd`, it is not the user's own file, or an
 *   entry that would be approved has no valid URL.
 */
export function runTrustCommand(opts: TrustOptions, cwd: string = process.cwd()): ExitCodeValue {
  const store = new ApprovalStore({
    betweenReadAndWrite: pauseHook(process.env),
    onWait: (pid) => info(`Waiting for another tsq (process ${terminalSafe(pid)}) that is changing ${store.path}…`),
  });
  if (opts.list) {
    const all = store.list();
    if (!all.length) info(`No project file is approved (${store.path}).`);
    for (const a of all) printLine(process.stdout, listLine(a));
    return ExitCode.OK;
  }
  const found = findProjectFile(cwd, homedir());
  if (found.skipped) throw new UsageError(`${terminalSafe(found.skipped.path)} cannot be approved: ${found.skipped.reason}. Only a file you own, that others cannot write, can be approved.`);
  if (!found.path) throw new UsageError(`No tsq.json in ${terminalSafe(cwd)} or above it (up to the repository root or your home folder): there is nothing to approve.`);
  const file = found.path;
  const shownFile = terminalSafe(file);
  if (opts.revoke) {
    info(store.revoke(file) ? `Withdrew the approval of ${shownFile}: TSQ sends no credential to its connections.` : `${shownFile} was not approved.`);
    return ExitCode.OK;
  }
  const loaded = loadConnections({}, { cwd });
  const projectFile = loaded.files.find((f) => f.path === file && f.level === 'project');
  if (!projectFile) throw new UsageError(`${shownFile} could not be read.`);
  for (const w of loaded.warnings) warn(w);
  const approved: ApprovedConnection[] = [];
  const seen = new Set<string>();
  if (projectFile.connections.length) info(`Connections of ${shownFile}:`);
  for (const raw of projectFile.connections) {
    const key = raw.name.toLowerCase();
    const { connection: c } = projectConnection(raw, file);
    const shadow = loaded.connections.find((u) => u.level === 'user' && u.name.toLowerCase() === key);
    if (shadow || seen.has(key)) {
      const why = shadow
        ? `NOT approved: your own connection "${terminalSafe(shadow.name)}" (${terminalSafe(shadow.source)}) is used instead. If yours is renamed or removed, TSQ asks again before sending anything here.`
        : 'ignored: an earlier entry of that name in the file is used.';
      info(`  ${describe(c)} — ${why}`);
      continue;
    }
    seen.add(key);
    let targets: string[];
    try {
      targets = credentialTargets(c);
    } catch (e) {
      throw new UsageError(`${shownFile}: connection "${terminalSafe(c.name)}": ${terminalSafe(messageOf(e))}. Fix the file before approving it.`);
    }
    approved.push({ name: c.name, targets });
    info(`  ${describe(c)}`);
  }
  if (!approved.length) info(`  (${shownFile} defines no connection of its own that can be used; its default connection and data source apply.)`);
  store.approve(file, projectFile.text, approved);
  const targets = approved.flatMap((c) => c.targets);
  info(`Approved ${shownFile}${targets.length ? `: your password or token may go to ${targets.map(asTarget).join(', ')}` : ''}. An edit of the file asks again (tsq trust --revoke withdraws this).`);
  return ExitCode.OK;
}

/** `name: user at url (data load: loadUrl)` of an entry, escaped for the terminal. */
function describe(c: ConnectionSettings): string {
  return `${terminalSafe(c.name)}: ${terminalSafe(c.username)} at ${terminalSafe(c.url)}${c.loadUrl ? ` (data load: ${terminalSafe(c.loadUrl)})` : ''}`;
}
