/**
 * Orgs in VS Code (common/src/api/orgs.ts): TSQ: Switch Org… lists the Orgs of the signed-in user and
 * makes every call of the connection run in the one chosen (the connection's settings `org` is the
 * default; the choice is kept per connection in the extension's global state, `ORG_CHOICE_KEY`). The
 * connection is then made anew in that Org, the catalog refreshed and the status bar names the Org.
 */
import * as vscode from 'vscode';
import type { Sourced } from '../../common/src/trust';
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import type { OrgRef } from '../../common/src/api';
import type { TsqClient } from './context';
import { messageOf } from '../../common/src/guards';

/** Global-state key of the Org chosen per connection name (`{ [connection]: the Org's name }`). */
export const ORG_CHOICE_KEY = 'tsq.orgChoice';

/** The connection with the Org chosen for it by Switch Org (overriding its settings' `org`), or as it is. */
export function withOrgChoice<T extends Sourced<ConnectionSettings> | undefined>(state: vscode.Memento, cfg: T): T {
  if (!cfg) return cfg;
  const chosen = state.get<Record<string, string>>(ORG_CHOICE_KEY, {})[cfg.name];
  return chosen === undefined ? cfg : { ...cfg, org: chosen };
}

/** The Org to switch to: `arg` (an id or name, for keybindings and automation) or the person's pick. */
async function pickOrg(orgs: readonly OrgRef[], current: OrgRef | undefined, arg: unknown): Promise<string | undefined> {
  if (typeof arg === 'string' || typeof arg === 'number') return String(arg);
  const items = orgs.map((o) => ({ label: o.name, description: `id ${o.id}${o.id === current?.id ? ' · current' : ''}`, org: String(o.id) }));
  const picked = await vscode.window.showQuickPick(items, { title: 'TSQ: Switch Org', placeHolder: `The Org every query, tree and load runs in${current ? ` (now ${current.name})` : ''}` });
  return picked?.org;
}

/** Registers TSQ: Switch Org… (`tsq.switchOrg`, optional argument: the Org's id or name). */
export function registerOrgCommands(client: TsqClient): void {
  const { connections, extension, log } = client;
  extension.subscriptions.push(
    vscode.commands.registerCommand('tsq.switchOrg', async (arg?: unknown) => {
      const cfg = connections.activeConfig();
      if (!cfg) {
        void vscode.window.showErrorMessage('No TSQ connection is active. Run "TSQ: Add Connection" or "TSQ: Switch Connection" first.');
        return false;
      }
      let list;
      try {
        list = await (await connections.getClient()).listOrgs();
      } catch (e) {
        void vscode.window.showErrorMessage(`TSQ: the Orgs of ${cfg.username} could not be read: ${messageOf(e)}`);
        return false;
      }
      const wanted = await pickOrg(list.orgs, list.current, arg);
      if (wanted === undefined) return false;
      const org = list.orgs.find((o) => String(o.id) === wanted || o.name.toLowerCase() === wanted.toLowerCase());
      if (!org) {
        void vscode.window.showErrorMessage(`TSQ: ${cfg.username} is not a member of an Org "${wanted}". Orgs: ${list.orgs.map((o) => o.name).join(', ')}.`);
        return false;
      }
      const choices = extension.globalState.get<Record<string, string>>(ORG_CHOICE_KEY, {});
      // by name, as the status bar shows it (a name is one Org of the tenant)
      await extension.globalState.update(ORG_CHOICE_KEY, { ...choices, [cfg.name]: org.name });
      log.info(`Switching ${cfg.name} to the Org ${org.name} (${org.id}).`);
      const ok = await connections.connect({ interactive: true, showErrors: true });
      if (ok) await vscode.commands.executeCommand('tsq.refreshCatalog');
      return ok;
    }),
  );
}
