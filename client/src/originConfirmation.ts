/**
 * The confirmation of a connection that workspace settings define: nothing is sent to its origins
 * before the person confirms each of them once (common/src/trust.ts: a project-level source).
 */
import * as vscode from 'vscode';
import type { Sourced } from '../../common/src/trust';
import { unconfirmedOrigins } from './credentials';
import { workspaceSettingsFile, type ConnectionSettings } from './connectionSettings';
import { askTrustOrigins } from './connectionPrompts';

/** Global state: origins the person confirmed for workspace-defined connections. */
export const CONFIRMED_ORIGINS_KEY = 'tsq.confirmedOrigins';

/** What `confirmOrigins` needs of the connection manager. */
export interface OriginConfirmationContext {
  globalState: vscode.Memento;
  /** The TSQ log channel (ClientContext.log). */
  log: vscode.LogOutputChannel;
  /** Origins already offered as a notification in this window (once each). */
  offered: Set<string>;
  /** Drops the service and sets the state needsConfirmation with these origins and this message. */
  needsConfirmation(origins: string[], error: string): void;
  /** Connects again interactively (the notification's Review…). */
  review(): void;
}

/**
 * True when `cfg` may be used: the user settings define it, or the person confirmed each of its
 * origins before (once per origin, kept in global state). Otherwise, when `interactive`, asks in a
 * modal naming the origins and the settings file; when not, sets the state needsConfirmation and
 * offers the question once per origin as a notification. Nothing is sent anywhere before.
 */
export async function confirmOrigins(cfg: Sourced<ConnectionSettings>, interactive: boolean, ctx: OriginConfirmationContext): Promise<boolean> {
  let missing: string[];
  try {
    missing = unconfirmedOrigins(cfg, cfg.level, ctx.globalState.get<string[]>(CONFIRMED_ORIGINS_KEY, []), !!process.env.TSQ_DEMO_PASSWORD);
  } catch {
    return true; // not an http(s) URL: doConnect refuses it
  }
  if (missing.length === 0) return true;
  const where = missing.join(' and ');
  const file = workspaceSettingsFile();
  const what = `The workspace settings (${file}) define the connection "${cfg.name}" to ${where} as ${cfg.username}.`;
  const needs = (): void => {
    ctx.needsConfirmation(missing, `${what} TSQ sends no password there until you confirm it: click the TSQ status bar item or run "TSQ: Switch Connection".`);
  };
  if (!interactive) {
    needs();
    if (missing.some((o) => !ctx.offered.has(o))) {
      for (const o of missing) ctx.offered.add(o);
      ctx.log.warn(`${what} Not connecting until you confirm it.`);
      void vscode.window.showWarningMessage(`${what} TSQ did not connect: settings in a folder can point your password anywhere. Review before connecting.`, 'Review…').then((choice) => {
        if (choice) ctx.review();
      });
    }
    return false;
  }
  if (!(await askTrustOrigins(what, missing))) {
    needs();
    return false;
  }
  const confirmed = ctx.globalState.get<string[]>(CONFIRMED_ORIGINS_KEY, []);
  await ctx.globalState.update(CONFIRMED_ORIGINS_KEY, [...new Set([...confirmed, ...missing])]);
  ctx.log.info(`Confirmed ${where} for connections defined in workspace settings (${file}).`);
  return true;
}
