/**
 * The Objects view's **Delete…** and **Share…** on an answer, a liveboard or a worksheet: the client's
 * v2 operations `deleteMetadata` (`metadata/delete`) and `shareMetadata` (`security/metadata/share`).
 * Delete asks first in a modal naming the object and what still uses it (`listDependents`, for a
 * worksheet); Share picks users and groups (`listPrincipals`) and the access (read only, can edit, or no
 * access). A script or test passes `{confirm: true}` or `{principals, shareMode}` to skip the prompts.
 */
import * as vscode from 'vscode';
import type { MetadataRef, ShareMode, SharePrincipal } from '../../common/src/api';
import { commandRegistrar } from './commands';
import type { TsqClient } from './context';
import { errorMessage, type ObjectHeader } from './service';
import { recordOr, memberOf } from '../../common/src/guards';

/** The node of the Objects view these commands take (nodes.ts `ObjectNode` of kind `object`). */
interface ObjectNodeArg {
  kind: 'object';
  type: string;
  subtype?: string;
  header: ObjectHeader;
}

/** The v2 type of each v1 header type a node carries. */
const V2_TYPE: Record<string, MetadataRef['type']> = { QUESTION_ANSWER_BOOK: 'ANSWER', PINBOARD_ANSWER_BOOK: 'LIVEBOARD', LOGICAL_TABLE: 'LOGICAL_TABLE' };

/** The access levels Share offers, with their words. */
const SHARE_MODES: { mode: ShareMode; label: string }[] = [
  { mode: 'READ_ONLY', label: 'Can view' },
  { mode: 'MODIFY', label: 'Can edit' },
  { mode: 'NO_ACCESS', label: 'No access (take the share back)' },
];

function isObjectNode(x: unknown): x is ObjectNodeArg {
  return !!x && typeof x === 'object' && memberOf(x, 'kind') === 'object' && typeof memberOf(memberOf(x, 'header'), 'id') === 'string';
}

const kindWord = (n: ObjectNodeArg): string => (n.type === 'QUESTION_ANSWER_BOOK' ? 'answer' : n.type === 'PINBOARD_ANSWER_BOOK' ? 'liveboard' : 'worksheet');

/** Deletes the node's object after a modal naming it and its dependents; true when deleted. */
async function deleteObject(client: TsqClient, node: ObjectNodeArg, args: { confirm?: boolean }): Promise<boolean> {
  const api = await client.connections.getClient();
  const deps = node.type === 'LOGICAL_TABLE' ? (await api.listDependents(node.header.id)).objects : [];
  const what = `the ${kindWord(node)} "${node.header.name}"`;
  const used = deps.length ? ` ${deps.map((d) => `"${d.name}"`).join(', ')} still use${deps.length === 1 ? 's' : ''} it, and the service refuses while they do.` : '';
  if (args.confirm !== true) {
    const pick = await vscode.window.showWarningMessage(`Delete ${what} from the service? This cannot be undone.${used}`, { modal: true }, 'Delete');
    if (pick !== 'Delete') return false;
  }
  await api.deleteMetadata([{ identifier: node.header.id, type: V2_TYPE[node.type] }]);
  void vscode.window.showInformationMessage(`TSQ: deleted ${what}.`);
  return true;
}

/** Shares the node's object with the users and groups picked, at the access picked; true when shared. */
async function shareObject(client: TsqClient, node: ObjectNodeArg, args: { principals?: SharePrincipal[]; shareMode?: ShareMode }): Promise<boolean> {
  const api = await client.connections.getClient();
  let principals = args.principals;
  if (!principals) {
    const all = (await api.listPrincipals()).filter((p) => p.id !== undefined);
    const picked = await vscode.window.showQuickPick(
      all.map((p) => ({ label: p.displayName ?? p.name, description: `${p.kind === 'USER' ? 'user' : 'group'} ${p.name}`, principal: { identifier: p.id!, type: p.kind === 'USER' ? ('USER' as const) : ('USER_GROUP' as const) } })),
      { title: `Share "${node.header.name}" with…`, canPickMany: true, matchOnDescription: true },
    );
    if (!picked?.length) return false;
    principals = picked.map((p) => p.principal);
  }
  let mode = args.shareMode;
  if (!mode) {
    const m = await vscode.window.showQuickPick(SHARE_MODES.map((s) => ({ label: s.label, mode: s.mode })), { title: `Access to "${node.header.name}"` });
    if (!m) return false;
    mode = m.mode;
  }
  await api.shareMetadata([{ identifier: node.header.id, type: V2_TYPE[node.type] }], principals, mode);
  void vscode.window.showInformationMessage(`TSQ: "${node.header.name}" shared with ${principals.length} user${principals.length === 1 ? '' : 's'} or group${principals.length === 1 ? '' : 's'} (${SHARE_MODES.find((s) => s.mode === mode)!.label.toLowerCase()}).`);
  return true;
}

/** Registers Delete… and Share… of the Objects view; `changed` refreshes the view after a delete. */
export function registerObjectCommands(client: TsqClient, changed: () => void): void {
  const register = commandRegistrar(client.extension.subscriptions);
  const guarded = (title: string, fn: (node: ObjectNodeArg, args: Record<string, unknown>) => Promise<boolean>) => async (node?: unknown, args?: unknown): Promise<boolean> => {
    if (!isObjectNode(node)) return false;
    try {
      return await fn(node, recordOr(args));
    } catch (e) {
      client.log.error(`${title} of ${node.header.name} failed: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`TSQ: ${title} of "${node.header.name}" failed: ${errorMessage(e)}`, 'Show Log').then((c) => c && client.log.show());
      return false;
    }
  };
  register('tsq.objects.delete', guarded('Delete', async (node, args) => {
    const done = await deleteObject(client, node, args);
    if (done) changed();
    return done;
  }));
  register('tsq.objects.share', guarded('Share', (node, args) => shareObject(client, node, args as { principals?: SharePrincipal[]; shareMode?: ShareMode })));
}
