// The one way the extension registers a command: a registrar bound to the subscriptions that dispose it
// when the extension deactivates.
import * as vscode from 'vscode';

/**
 * A command's handler. VS Code hands a command whatever its caller passes (a tree element, a Uri, the
 * arguments of `executeCommand`, nothing), so the handler's parameters are as VS Code types them.
 */
export type CommandHandler = (...args: any[]) => unknown;

/** A function that registers command `id` with `fn` and adds its disposable to `subscriptions`. */
export function commandRegistrar(subscriptions: vscode.Disposable[]): (id: string, fn: CommandHandler) => void {
  return (id, fn) => {
    subscriptions.push(vscode.commands.registerCommand(id, fn));
  };
}
