/**
 * The administration operations of docs/service-interface.md §4.2 ("catalogued operations") as commands with pickers and
 * confirmations: Change Password (`updatePassword`), Transfer Ownership (`transferOwnership`), Add / Remove
 * Group Privilege (`addGroupPrivilege`, `removeGroupPrivilege`), Sync Principals from a JSON file
 * (`syncPrincipals`). Users and groups for the pickers come from `listPrincipals`. Each operation's v1 and
 * v2 calls are its row of `SERVICE_OPERATIONS` (common/src/api/operations.ts; on REST API v2 e.g.
 * `users/change-password`, `security/metadata/assign`, `groups/{id}/update`, `users/import`). Each
 * command can be given a tree node (a user or group of the Users & Groups root) to skip its first picker.
 */
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { TsqClient } from './context';
import { parsePrincipalsFile, summarizeSync } from './principals';
import { errorMessage, errorStatus, type Principal, type ServiceApi } from './service';
import { commandRegistrar } from './commands';

/** Group privileges offered by the pickers (the privileges of ThoughtSpot-like groups). */
export const PRIVILEGES = ['ADMINISTRATION', 'DATAMANAGEMENT', 'USERDATAUPLOADING', 'DATADOWNLOADING', 'AUTHORING', 'SHAREWITHALL'] as const;

type PrincipalNode = { kind: 'principal'; principal: Principal };

function principalArg(arg: unknown, kind: 'USER' | 'GROUP'): Principal | undefined {
  const n = arg as PrincipalNode | undefined;
  return n && typeof n === 'object' && n.kind === 'principal' && n.principal?.kind === kind ? n.principal : undefined;
}

async function withService<T>({ connections, log }: TsqClient, title: string, fn: (api: ServiceApi) => Promise<T>): Promise<T | undefined> {
  try {
    return await fn(await connections.getService());
  } catch (e) {
    const status = errorStatus(e);
    const hint = status === 403 ? ' The signed-in user lacks the administration privilege.' : '';
    log.error(`${title} failed: ${errorMessage(e)}`);
    void vscode.window.showErrorMessage(`${title} failed: ${errorMessage(e)}.${hint}`, 'Show Log').then((c) => c && log.show());
    return undefined;
  }
}

async function pickPrincipal(api: ServiceApi, kind: 'USER' | 'GROUP', title: string, placeHolder: string, exclude?: string): Promise<Principal | undefined> {
  const all = (await api.listPrincipals()).filter((p) => p.kind === kind && p.name !== exclude).sort((a, b) => a.name.localeCompare(b.name));
  if (all.length === 0) {
    void vscode.window.showWarningMessage(`The service lists no ${kind === 'USER' ? 'users' : 'groups'}.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    all.map((p) => ({ label: p.name, description: p.displayName && p.displayName !== p.name ? p.displayName : undefined, detail: p.kind === 'GROUP' && p.privileges?.length ? p.privileges.join(', ') : p.groupNames?.join(', '), p })),
    { title, placeHolder, matchOnDescription: true },
  );
  return pick?.p;
}

async function confirm(message: string, detail: string, action: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
}

/**
 * Change Password (seed §4.2 user/updatepassword): of the user `arg` names (a user node of the Objects
 * view), or of one picked (the signed-in user first; others when the user may list them); asks for
 * the current password and the new one twice. The stored password is replaced when it is one's own.
 */
async function changePassword(api: ServiceApi, { connections, log }: TsqClient, arg: unknown): Promise<void> {
  const me = connections.activeConfig()?.username;
  let user = principalArg(arg, 'USER')?.name;
  if (!user) {
    const items = [{ label: me ?? '', description: 'the signed-in user' }].filter((i) => i.label);
    let others: Principal[] = [];
    try {
      others = (await api.listPrincipals()).filter((p) => p.kind === 'USER' && p.name !== me);
    } catch {
      // not an administrator: only one's own password
    }
    const pick = await vscode.window.showQuickPick([...items, ...others.map((p) => ({ label: p.name, description: p.displayName }))], { title: 'TSQ: Change Password', placeHolder: 'User whose password to change' });
    user = pick?.label;
  }
  if (!user) return;
  const currentPassword = await vscode.window.showInputBox({ title: `TSQ: Change Password of ${user} (1/3)`, prompt: user === me ? 'Your current password' : `Current password of ${user}`, password: true, ignoreFocusOut: true });
  if (currentPassword === undefined) return;
  const newPassword = await vscode.window.showInputBox({ title: `TSQ: Change Password of ${user} (2/3)`, prompt: 'New password', password: true, ignoreFocusOut: true, validateInput: (v) => (v.length ? undefined : 'Enter a password') });
  if (newPassword === undefined) return;
  const again = await vscode.window.showInputBox({ title: `TSQ: Change Password of ${user} (3/3)`, prompt: 'New password again', password: true, ignoreFocusOut: true, validateInput: (v) => (v === newPassword ? undefined : 'The passwords differ') });
  if (again === undefined) return;
  await api.updatePassword({ name: user, currentPassword, newPassword });
  if (user === me) await connections.storePassword(newPassword);
  log.info(`Password of ${user} changed.`);
  void vscode.window.showInformationMessage(`The password of ${user} was changed${user === me ? ' and the stored password updated' : ''}.`);
}

/** Registers the five administration commands. `changed` is called after a change (the tree reloads). */
export function registerAdminCommands(client: TsqClient, changed: () => void): void {
  const { log } = client;
  const register = commandRegistrar(client.extension.subscriptions);

  register('tsq.changePassword', (arg?: unknown) => withService(client, 'Change Password', (api) => changePassword(api, client, arg)));

  register('tsq.transferOwnership', (arg?: unknown) =>
    withService(client, 'Transfer Ownership', async (api) => {
      const from = principalArg(arg, 'USER') ?? (await pickPrincipal(api, 'USER', 'TSQ: Transfer Ownership (1/2)', 'User whose objects to transfer'));
      if (!from) return;
      const to = await pickPrincipal(api, 'USER', 'TSQ: Transfer Ownership (2/2)', `User who becomes the owner of ${from.name}'s objects`, from.name);
      if (!to) return;
      if (!(await confirm(`Transfer the ownership of all objects of ${from.name} to ${to.name}?`, 'Every object that user owns changes owner. This cannot be undone from here.', 'Transfer'))) return;
      await api.transferOwnership({ fromUserName: from.name, toUserName: to.name });
      log.info(`Ownership of ${from.name}'s objects transferred to ${to.name}.`);
      void vscode.window.showInformationMessage(`All objects of ${from.name} now belong to ${to.name}.`);
      changed();
    }),
  );

  const privilegeCommand = (id: string, add: boolean) =>
    register(id, (arg?: unknown) =>
      withService(client, add ? 'Add Group Privilege' : 'Remove Group Privilege', async (api) => {
        const group = principalArg(arg, 'GROUP') ?? (await pickPrincipal(api, 'GROUP', `TSQ: ${add ? 'Add' : 'Remove'} Group Privilege (1/2)`, 'Group'));
        if (!group) return;
        const has = group.privileges;
        const choices = add ? PRIVILEGES.filter((p) => !has?.includes(p)) : has?.length ? has : [...PRIVILEGES];
        if (choices.length === 0) {
          void vscode.window.showInformationMessage(add ? `${group.name} already has every privilege.` : `${group.name} has no privilege to remove.`);
          return;
        }
        const privilege = (await vscode.window.showQuickPick([...choices], { title: `TSQ: ${add ? 'Add' : 'Remove'} Group Privilege (2/2)`, placeHolder: `Privilege to ${add ? 'give to' : 'take from'} ${group.name}` })) as string | undefined;
        if (!privilege) return;
        const verb = add ? `Give ${privilege} to` : `Take ${privilege} from`;
        if (!(await confirm(`${verb} the group ${group.name}?`, 'Every member of the group is affected.', add ? 'Add Privilege' : 'Remove Privilege'))) return;
        if (add) await api.addGroupPrivilege({ groupNames: [group.name], privilege });
        else await api.removeGroupPrivilege({ groupNames: [group.name], privilege });
        log.info(`${add ? 'Added' : 'Removed'} privilege ${privilege} ${add ? 'to' : 'from'} group ${group.name}.`);
        void vscode.window.showInformationMessage(`${add ? 'Added' : 'Removed'} ${privilege} ${add ? 'to' : 'from'} ${group.name}.`);
        changed();
      }),
    );
  privilegeCommand('tsq.addGroupPrivilege', true);
  privilegeCommand('tsq.removeGroupPrivilege', false);

  register('tsq.syncPrincipals', (arg?: unknown) =>
    withService(client, 'Sync Principals', async (api) => {
      const uri =
        arg instanceof vscode.Uri
          ? arg
          : (await vscode.window.showOpenDialog({ title: 'TSQ: Sync Principals from a JSON file', canSelectMany: false, filters: { 'Principals JSON': ['json'] }, openLabel: 'Sync' }))?.[0];
      if (!uri) return;
      const principals = parsePrincipalsFile(await readFile(uri.fsPath, 'utf8'), uri.fsPath);
      const mode = await vscode.window.showQuickPick(
        [
          { label: 'Apply changes', description: 'create and update users and groups', apply: true, remove: false },
          { label: 'Apply changes and remove deleted', description: 'also delete principals missing from the file', apply: true, remove: true },
          { label: 'Dry run', description: 'report what would change, change nothing', apply: false, remove: false },
        ],
        { title: `TSQ: Sync ${principals.length} principal(s)`, placeHolder: 'How to sync' },
      );
      if (!mode) return;
      // the service wants a password for new users even in a dry run
      const password = await vscode.window.showInputBox({ title: 'TSQ: Sync Principals', prompt: 'Password for new users that have none in the file (leave empty for none)', password: true, ignoreFocusOut: true });
      if (password === undefined) return;
      if (mode.apply) {
        const detail = mode.remove ? 'Users and groups that are not in the file are DELETED.' : 'Users and groups in the file are created or updated.';
        if (!(await confirm(`Sync ${principals.length} principal(s) from ${uri.fsPath.split(/[\\/]/).pop()}?`, detail, 'Sync'))) return;
      }
      const result = await api.syncPrincipals({ principals, applyChanges: mode.apply, removeDeleted: mode.remove, password: password || undefined });
      log.info(`Sync principals (${mode.label}): ${typeof result === 'string' ? result : JSON.stringify(result)}`);
      void vscode.window.showInformationMessage(`Sync principals (${mode.label}) done: ${summarizeSync(result)}`, 'Show Log').then((c) => c && log.show());
      if (mode.apply) changed();
    }),
  );
}
