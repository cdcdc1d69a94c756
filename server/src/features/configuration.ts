/**
 * Configuration changes: the server asks for `workspace/didChangeConfiguration` (section `tsq`) when the
 * client registers it dynamically; a change drops the cached settings and refreshes diagnostics.
 */
import { DidChangeConfigurationNotification } from 'vscode-languageserver';
import type { DocumentSettings } from '../settings';
import type { FeatureContext } from './context';
import type { DiagnosticsFeature } from './diagnostics';
import { formatError } from './runSafe';
import { memberOf } from '../../../common/src/guards';

/** Registers the configuration handlers. */
export function registerConfiguration(ctx: FeatureContext, settings: DocumentSettings, diagnostics: DiagnosticsFeature): void {
  ctx.onInitialized(() => {
    // Ask for workspace/didChangeConfiguration so cached settings are dropped when `tsq.*` changes.
    if (ctx.client.configurationChangeRegistration) {
      ctx.connection.client.register(DidChangeConfigurationNotification.type, { section: 'tsq' }).catch((e: unknown) => ctx.logError(formatError('Registering for configuration changes failed', e)));
    }
  });

  ctx.connection.onDidChangeConfiguration((change) => {
    settings.changed(memberOf(change?.settings, 'tsq'));
    diagnostics.refresh();
  });

  ctx.documents.onDidClose((event) => settings.forget(event.document.uri));
}
