/**
 * Diagnostics: pulled (`textDocument/diagnostic`) when the client supports it, otherwise pushed
 * (`textDocument/publishDiagnostics`) after a per-document debounce. A failed validation is logged and
 * answers no diagnostics, clearing stale ones rather than leaving them.
 */
import type { CancellationToken, Diagnostic, Disposable, DocumentDiagnosticReport } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { FeatureContext } from './context';
import { formatError } from './runSafe';

/** What other features need of diagnostics. */
export interface DiagnosticsFeature {
  /** After a catalog or settings change: asks the client to pull again, or re-pushes every open document. */
  refresh(): void;
}

/**
 * Registers the diagnostics handlers.
 * @param validationDelay debounce of pushed diagnostics per document, in ms.
 */
export function registerDiagnostics(ctx: FeatureContext, validationDelay: number): DiagnosticsFeature {
  const { connection, documents, service } = ctx;

  /** Validates a document; a failure is logged and answers [] (clearing stale diagnostics). */
  async function validate(document: TextDocument, token?: CancellationToken): Promise<Diagnostic[]> {
    try {
      const settings = await ctx.settings.get(document.uri);
      return await service.doValidation(document, settings, token);
    } catch (e) {
      ctx.logError(formatError(`Validating ${document.uri} failed`, e));
      return [];
    }
  }

  const pendingValidation = new Map<string, Disposable>();

  function cancelPendingValidation(uri: string): void {
    pendingValidation.get(uri)?.dispose();
    pendingValidation.delete(uri);
  }

  /** Push mode: validates after `delay` ms unless the document changes again, then publishes. */
  function triggerValidation(document: TextDocument, delay = validationDelay): void {
    cancelPendingValidation(document.uri);
    pendingValidation.set(
      document.uri,
      ctx.timer.setTimeout(() => {
        pendingValidation.delete(document.uri);
        void pushDiagnostics(document);
      }, delay),
    );
  }

  async function pushDiagnostics(document: TextDocument): Promise<void> {
    const version = document.version;
    const diagnostics = await validate(document);
    const current = documents.get(document.uri);
    // Publish only if the document is still open at the version validated (a newer one is queued).
    if (!current || current.version !== version) return;
    connection.sendDiagnostics({ uri: document.uri, version, diagnostics }).catch((e: unknown) => ctx.logError(formatError('publishDiagnostics failed', e)));
  }

  documents.onDidChangeContent((change) => {
    if (!ctx.client.pullDiagnostics) triggerValidation(change.document);
  });

  documents.onDidClose((event) => {
    cancelPendingValidation(event.document.uri);
    if (!ctx.client.pullDiagnostics) connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] }).catch(() => undefined);
  });

  connection.languages.diagnostics.on((params, token) =>
    ctx.runSafeAsync<DocumentDiagnosticReport>(
      async () => {
        const document = documents.get(params.textDocument.uri);
        return { kind: 'full', items: document ? await validate(document, token) : [] };
      },
      { kind: 'full', items: [] },
      `Diagnostics of ${params.textDocument.uri}`,
      token,
    ),
  );

  return {
    refresh(): void {
      if (ctx.client.pullDiagnostics) {
        if (ctx.client.diagnosticRefreshSupport) connection.languages.diagnostics.refresh().catch((e: unknown) => ctx.logError(formatError('workspace/diagnostic/refresh failed', e)));
      } else {
        for (const document of documents.all()) triggerValidation(document, 0);
      }
    },
  };
}
