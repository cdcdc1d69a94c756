/**
 * The one routing of TML documents through the language service: each kind of `TML_KINDS`
 * (common/src/tml/kinds.ts) with its checker (diagnostics, completion and hover of its embedded
 * `search_query`s: common/src/tml/answerTml.ts, liveboardTml.ts), and `withTml`, the language service
 * that sends a document to its kind's checker by the file's suffix. The language server
 * (server/src/server.ts) and `tsq check` (cli/src/check.ts) both use `withTml`.
 *
 * Pure: no `vscode`, no LSP server, no HTTP.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CompletionList, Diagnostic, Hover, Position } from 'vscode-languageserver-types';
import type { CancellationLike, LanguageService, LanguageSettings } from '../languageService/types';
import { completeAnswerTml, hoverAnswerTml, validateAnswerTml } from './answerTml';
import { tmlKindOfUri, type TmlKind } from './kinds';
import { completeLiveboardTml, hoverLiveboardTml, tmlKindOf, validateLiveboardTml } from './liveboardTml';

/** What the language service does with a TML document of one kind: its diagnostics, and completion and hover inside its `search_query`s. */
export interface TmlChecker {
  validate(service: LanguageService, uri: string, text: string, settings?: LanguageSettings): Promise<Diagnostic[]>;
  complete(service: LanguageService, document: TextDocument, position: Position, settings?: LanguageSettings, token?: CancellationLike): Promise<CompletionList>;
  hover(service: LanguageService, document: TextDocument, position: Position, settings?: LanguageSettings, token?: CancellationLike): Promise<Hover | null>;
}

/** The checker of each TML kind (a kind added to `TML_KINDS` does not compile without one). */
export const TML_CHECKERS: Record<TmlKind, TmlChecker> = {
  answer: { validate: validateAnswerTml, complete: completeAnswerTml, hover: hoverAnswerTml },
  liveboard: { validate: validateLiveboardTml, complete: completeLiveboardTml, hover: hoverLiveboardTml },
};

/** The checker of a document by its URI's suffix (`tmlKindOfUri`), or undefined for a `.tsq` document. */
export function tmlCheckerOf(uri: string): TmlChecker | undefined {
  const kind = tmlKindOfUri(uri);
  return kind && TML_CHECKERS[kind];
}

/**
 * The diagnostics of a TML file as `tsq tml validate` checks it locally: by the checker of its suffix
 * (`tmlKindOfUri`, as `tsq check` and the editor route it), or, for a file named otherwise, of the
 * object its text holds (`tmlKindOf`: a liveboard by `liveboard` or `pinboard`, else an answer).
 */
export function validateTml(service: LanguageService, uri: string, text: string, settings: LanguageSettings = {}): Promise<Diagnostic[]> {
  return TML_CHECKERS[tmlKindOfUri(uri) ?? tmlKindOf(text)].validate(service, uri, text, settings);
}

/**
 * The language service with TML documents (`*.answer.tml`, `*.liveboard.tml`: `TML_KINDS`) routed to
 * their kind's checker: diagnostics, completion and hover; the `.tsq`-only features (semantic tokens,
 * formatting, code actions, symbols, queries) answer nothing for them. Other documents go to `service`
 * unchanged. The one wrapper the server and `tsq check` use.
 */
export function withTml(service: LanguageService): LanguageService {
  const tml = (d: TextDocument): TmlChecker | undefined => tmlCheckerOf(d.uri);
  return {
    ...(service.catalog ? { catalog: service.catalog } : {}),
    parseDocument: (d) => service.parseDocument(tml(d) ? TextDocument.create(d.uri, 'tsq', d.version, '') : d),
    doComplete: (d, p, s, t) => tml(d)?.complete(service, d, p, s, t) ?? service.doComplete(d, p, s, t),
    doResolve: (item, t) => service.doResolve(item, t),
    doValidation: (d, s, t) => tml(d)?.validate(service, d.uri, d.getText(), s) ?? service.doValidation(d, s, t),
    doHover: (d, p, s, t) => tml(d)?.hover(service, d, p, s, t) ?? service.doHover(d, p, s, t),
    getSemanticTokens: (d) => (tml(d) ? { data: [] } : service.getSemanticTokens(d)),
    format: (d, r, o) => (tml(d) ? [] : service.format(d, r, o)),
    getCodeActions: async (d, r, c, s, t) => (tml(d) ? [] : service.getCodeActions(d, r, c, s, t)),
    findDocumentSymbols: (d) => (tml(d) ? [] : service.findDocumentSymbols(d)),
    getQueries: (d, s) => (tml(d) ? [] : service.getQueries(d, s)),
  };
}
