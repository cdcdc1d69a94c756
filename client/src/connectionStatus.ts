/**
 * The status bar item of the connection: the active connection's name and state (connecting,
 * connected, error, needs confirmation) and, while connected, its health from connectionHealth.ts
 * (reconnecting, unreachable, needs password). A click runs Switch Connection.
 */
import * as vscode from 'vscode';

/** The states of a connection (connections.ts). `needsConfirmation`: a workspace-defined connection whose origin the person has not confirmed yet. */
export type ConnectionStateName = 'none' | 'connecting' | 'connected' | 'error' | 'needsConfirmation';

/** The state the automation API reports. */
export interface ConnectionState {
  name?: string;
  state: ConnectionStateName;
  error?: string;
  /** With needsConfirmation: the origins awaiting confirmation. */
  origins?: string[];
  /** While connected: the Org the connection runs in, as chosen (its id or name); absent: the user's own. */
  org?: string;
}

/** What connection health adds to the item while connected. */
export interface HealthDisplay {
  text: string;
  tooltip: string;
  warning: boolean;
}

const ICONS: Record<ConnectionStateName, string> = { none: '$(debug-disconnect)', connecting: '$(sync~spin)', connected: '$(database)', error: '$(error)', needsConfirmation: '$(shield)' };

/** The item, drawn from the last state and health given. */
export class ConnectionStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tsq.connection', vscode.StatusBarAlignment.Left, 50);
  private health: HealthDisplay | undefined;

  constructor() {
    this.item.name = 'TSQ Connection';
    this.item.command = 'tsq.switchConnection';
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }

  /** Shows the connection's health (or clears it with undefined); drawn at the next `render`. */
  setHealth(health: HealthDisplay | undefined): void {
    this.health = health;
  }

  /** Draws `s`; `activeName` names the connection when the state does not. */
  render(s: ConnectionState, activeName: string): void {
    const named = s.name ?? (activeName || undefined);
    // the connection and, where one was chosen, its Org (TSQ: Switch Org…, orgs.ts)
    const name = named && s.org !== undefined && s.state === 'connected' ? `${named} · Org ${s.org}` : named;
    this.item.text = `${ICONS[s.state]} TSQ${name ? `: ${name}` : ''}${s.state === 'needsConfirmation' ? ' — needs confirmation' : ''}`;
    this.item.tooltip = name ? `TSQ connection ${name}: ${s.state}${s.error ? `\n${s.error}` : ''}\nClick to switch connection.` : 'TSQ: no connection. Click to add one.';
    this.item.backgroundColor =
      s.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : s.state === 'needsConfirmation' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const h = this.health;
    if (h && name && s.state === 'connected') {
      this.item.text = `${h.text} TSQ: ${name}`;
      this.item.tooltip = `TSQ connection ${name}: ${h.tooltip}`;
      if (h.warning) this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    }
  }
}
