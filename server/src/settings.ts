/**
 * The `tsq` settings of each document (`tsq.defaultDataSource`, `tsq.diagnostics.disabled`, declared in
 * package.json `contributes.configuration`): resolved per document through `workspace/configuration`
 * (section `tsq`) when the client supports it, else taken from `workspace/didChangeConfiguration`'s
 * `settings.tsq`.
 */
import type { Connection } from 'vscode-languageserver';
import type { LanguageSettings } from '../../common/src/languageService/types';
import type { ClientFeatures, ServerTimer, SettingsSource } from './features/context';
import { formatError } from './features/runSafe';

/** The `tsq` settings section as the client sends it (package.json `contributes.configuration`). */
interface TsqSettingsSection {
  defaultDataSource?: unknown;
  diagnostics?: { disabled?: unknown } | null;
}

/** Turns a raw `tsq` settings section into `LanguageSettings`, ignoring malformed fields. */
export function toLanguageSettings(section: unknown): LanguageSettings {
  const settings: LanguageSettings = {};
  if (typeof section !== 'object' || section === null) return settings;
  const s = section as TsqSettingsSection;
  if (typeof s.defaultDataSource === 'string' && s.defaultDataSource.trim() !== '') settings.defaultDataSource = s.defaultDataSource.trim();
  const disabled = typeof s.diagnostics === 'object' && s.diagnostics !== null ? s.diagnostics.disabled : undefined;
  if (Array.isArray(disabled)) settings.disabledDiagnostics = disabled.filter((c): c is string => typeof c === 'string');
  return settings;
}

/**
 * The settings of each document, asked of the client once and cached until the configuration changes or
 * the document closes. A client that does not answer within `requestTimeout` ms gives the defaults, which
 * stay cached for that document, so it does not cost every request a full budget.
 */
export class DocumentSettings implements SettingsSource {
  /** Settings pushed by `workspace/didChangeConfiguration` (clients without `workspace/configuration`). */
  private global: LanguageSettings = {};
  private readonly perDocument = new Map<string, Promise<LanguageSettings>>();

  constructor(
    private readonly connection: Connection,
    private readonly client: ClientFeatures,
    private readonly timer: ServerTimer,
    private readonly requestTimeout: number,
    private readonly log: (message: string) => void,
    private readonly logError: (message: string) => void,
  ) {}

  /** Takes a pushed `settings.tsq` section and forgets every document's cached settings. */
  changed(section: unknown): void {
    this.global = toLanguageSettings(section);
    this.perDocument.clear();
  }

  /** Forgets a document's settings (it closed). */
  forget(uri: string): void {
    this.perDocument.delete(uri);
  }

  /** Resolves the `tsq` settings of a document (cached until the configuration changes or it closes). */
  get(uri: string): Promise<LanguageSettings> {
    if (!this.client.configurationSupport) return Promise.resolve(this.global);
    let settings = this.perDocument.get(uri);
    if (!settings) {
      settings = this.ask(uri);
      this.perDocument.set(uri, settings);
    }
    return settings;
  }

  private ask(uri: string): Promise<LanguageSettings> {
    return new Promise<LanguageSettings>((resolve) => {
      let done = false;
      const timeout = this.timer.setTimeout(() => {
        if (done) return;
        done = true;
        this.log(`workspace/configuration: no answer within ${this.requestTimeout} ms; using default settings for ${uri}.`);
        resolve({});
      }, this.requestTimeout);
      this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'tsq' }).then(
        (section: unknown) => {
          if (done) return;
          done = true;
          timeout.dispose();
          resolve(toLanguageSettings(section));
        },
        (e: unknown) => {
          if (done) return;
          done = true;
          timeout.dispose();
          this.perDocument.delete(uri);
          this.logError(formatError('workspace/configuration failed', e));
          resolve({});
        },
      );
    });
  }
}
