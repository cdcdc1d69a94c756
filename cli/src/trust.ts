/**
 * `tsq trust`: the person approves the project's `tsq.json` once, as direnv's `allow` or git's
 * `safe.directory` do. The file is found as every command finds it (common/src/trust.ts
 * `findProjectFile`); what it defines is shown under the trust rules (what a project may not set is
 * left out, a name of yours wins), and its SHA-256 is recorded in the user's `trusted.json`
 * (`ApprovalStore`). Any later edit of the file makes it unapproved again.
 */
import { homedir } from 'node:os';
import { loadConnections } from '../../common/src/connectionConfig';
import { ApprovalStore, credentialTargets, findProjectFile } from '../../common/src/trust';
import { ExitCode, UsageError, type ExitCodeValue } from './exitCodes';
import { info, warn } from './output';

/** Options of `tsq trust`. */
export interface TrustOptions {
  /** Withdraw the approval of the project file. */
  revoke?: boolean;
  /** List every approval instead. */
  list?: boolean;
}

/**
 * Runs `tsq trust` in `cwd`: approves (or with `revoke` withdraws the approval of) the project file.
 * @throws UsageError when no project file is found from `cwd`, or it is not the user's own file.
 */
export function runTrustCommand(opts: TrustOptions, cwd: string = process.cwd()): ExitCodeValue {
  const store = new ApprovalStore();
  if (opts.list) {
    const all = store.list();
    if (!all.length) info(`No project file is approved (${store.path}).`);
    for (const a of all) process.stdout.write(`${a.file}\t${a.approvedAt}\t${a.credentials.join(', ')}\n`);
    return ExitCode.OK;
  }
  const found = findProjectFile(cwd, homedir());
  if (found.skipped) throw new UsageError(`${found.skipped.path} cannot be approved: ${found.skipped.reason}. Only a file you own, that others cannot write, can be approved.`);
  if (!found.path) throw new UsageError(`No tsq.json in ${cwd} or above it (up to the repository root or your home folder): there is nothing to approve.`);
  const file = found.path;
  if (opts.revoke) {
    info(store.revoke(file) ? `Withdrew the approval of ${file}: TSQ sends no credential to its connections.` : `${file} was not approved.`);
    return ExitCode.OK;
  }
  const loaded = loadConnections({}, { cwd });
  const projectFile = loaded.files.find((f) => f.path === file && f.level === 'project');
  if (!projectFile) throw new UsageError(`${file} could not be read.`);
  for (const w of loaded.warnings) warn(w);
  const own = loaded.connections.filter((c) => c.source === file);
  const targets: string[] = [];
  for (const c of own) {
    let t: string[];
    try {
      t = credentialTargets(c);
    } catch (e) {
      throw new UsageError(`${file}: connection "${c.name}": ${(e as Error).message}. Fix the file before approving it.`);
    }
    targets.push(...t);
    info(`  ${c.name}: ${c.username} at ${c.url}${c.loadUrl ? ` (data load: ${c.loadUrl})` : ''}`);
  }
  if (!own.length) info(`  (${file} defines no connection of its own; its default connection and data source apply.)`);
  store.approve(file, projectFile.text, targets);
  info(`Approved ${file}${targets.length ? `: your password or token may go to ${targets.map((t) => t.replace(' ', ' as ')).join(', ')}` : ''}. An edit of the file asks again (tsq trust --revoke withdraws this).`);
  return ExitCode.OK;
}
