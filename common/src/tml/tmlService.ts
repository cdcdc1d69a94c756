/**
 * The one routing of TML documents through the language service: each kind of `TML_KINDS`
 * (common/src/tml/kinds.ts) with its checker (diagnostics, completion and hover of its embedded
 * `search_query`s: common/src/tml/answerTml.ts, liveboardTml.ts; worksheets, models, tables: modelTmlCheck.ts), and `withTml`, the language service
 * that sends a document to its kind's checker by the file's suffix. The language server
 * (server/src/server.ts) and `tsq check` (cli/src/check.ts) both use `withTml`.
 *
 * Quick fixes in TML (`tmlCodeActions`): the `.tsq` "did you mean" of an unknown column
 * (common/src/languageService/codeActions.ts) on a column inside a `search_query` string, its text
 * escaped for the YAML scalar it is written into. Pure: no `vscode`, no LSP server, no HTTP.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, CodeActionContext, CompletionList, Diagnostic, Hover, Position, Range, TextEdit } from 'vscode-languageserver-types';
import { isScalar, parseDocument, visit, type Scalar } from 'yaml';
import { UNKNOWN_COLUMN } from '../language/diagnosticCodes';
import type { CancellationLike, LanguageService, LanguageSettings } from '../languageService/types';
import { completeAnswerTml, escapeFor, hoverAnswerTml, validateAnswerTml } from './answerTml';
import { tmlKindOfUri, type TmlKind } from './kinds';
import { formulaCodeActions, withFormulaEditing, withFormulas } from './answerFormulas';
import { completeLiveboardTml, hoverLiveboardTml, tmlKindOf, validateLiveboardTml } from './liveboardTml';
import { modelTmlChecker } from './modelTmlCheck';

/** What the language service does with a TML document of one kind: its diagnostics, and completion and hover inside its `search_query`s. */
export interface TmlChecker {
  validate(service: LanguageService, uri: string, text: string, settings?: LanguageSettings): Promise<Diagnostic[]>;
  complete(service: LanguageService, document: TextDocument, position: Position, settings?: LanguageSettings, token?: CancellationLike): Promise<CompletionList>;
  hover(service: LanguageService, document: TextDocument, position: Position, settings?: LanguageSettings, token?: CancellationLike): Promise<Hover | null>;
}

/** The checker of each TML kind (a kind added to `TML_KINDS` does not compile without one), with its formulas (answerFormulas.ts). */
export const TML_CHECKERS: Record<TmlKind, TmlChecker> = {
  answer: withFormulas({ validate: validateAnswerTml, complete: completeAnswerTml, hover: hoverAnswerTml }),
  liveboard: withFormulas({ validate: validateLiveboardTml, complete: completeLiveboardTml, hover: hoverLiveboardTml }),
  worksheet: withFormulaEditing(modelTmlChecker('worksheet')),
  model: withFormulaEditing(modelTmlChecker('model')),
  table: modelTmlChecker('table'),
};

/** The checker of a document by its URI's suffix (`tmlKindOfUri`), or undefined for a `.tsq` document. */
export function tmlCheckerOf(uri: string): TmlChecker | undefined {
  const kind = tmlKindOfUri(uri);
  return kind && TML_CHECKERS[kind];
}

/**
 * The diagnostics of a TML file as `tsq tml validate` checks it locally: by the checker of its suffix
 * (`tmlKindOfUri`, as `tsq check` and the editor route it), or, for a file named otherwise, of the
 * object its text holds (`tmlKindOf`: a liveboard by `liveboard` or `pinboard`, a worksheet, model or table by its member, else an answer).
 */
export function validateTml(service: LanguageService, uri: string, text: string, settings: LanguageSettings = {}): Promise<Diagnostic[]> {
  return TML_CHECKERS[tmlKindOfUri(uri) ?? tmlKindOf(text)].validate(service, uri, text, settings);
}

/**
 * The language service with TML documents (`*.answer.tml`, `*.liveboard.tml`: `TML_KINDS`) routed to
 * their kind's checker: diagnostics, completion, hover and the quick fixes of `tmlCodeActions`; the `.tsq`-only features (semantic tokens,
 * formatting, symbols, queries) answer nothing for them. Other documents go to `service`
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
    getCodeActions: async (d, r, c, s, t) => (tml(d) ? tmlCodeActions(service, d, r, c, s, t) : service.getCodeActions(d, r, c, s, t)),
    findDocumentSymbols: (d) => (tml(d) ? [] : service.findDocumentSymbols(d)),
    getQueries: (d, s) => (tml(d) ? [] : service.getQueries(d, s)),
  };
}

/** The YAML string scalar of `text` holding file offset `offset`, or undefined. */
function scalarAt(text: string, offset: number): Scalar | undefined {
  let found: Scalar | undefined;
  visit(parseDocument(text), {
    Scalar(_key, node) {
      if (node.range && typeof node.value === 'string' && node.range[0] <= offset && offset <= node.range[1]) {
        found = node;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * The quick fixes of a TML document: for each `tsq.unknownColumn` diagnostic of `context` (those
 * `validateEmbeddedQuery` maps onto the file, their `data.suggestions` kept) the `.tsq` service's
 * "Replace with [name]" actions, each new name escaped for the scalar it goes into (`escapeFor`: a
 * single-quoted `search_query` doubles `'`, a double-quoted one escapes `"` and `\`). A name a plain
 * scalar cannot hold as it is (one with a quote, `#`, `: ` or a line break) is not offered there.
 * An unknown function or column of a formula's `expr` gets its did-you-mean (answerFormulas.ts
 * `formulaCodeActions`). Other diagnostics get no action. Never throws.
 */
export async function tmlCodeActions(service: LanguageService, document: TextDocument, range: Range, context: CodeActionContext, settings: LanguageSettings = {}, token?: CancellationLike): Promise<CodeAction[]> {
  const out: CodeAction[] = formulaCodeActions(document, context);
  const diagnostics = context.diagnostics.filter((d) => d.code === UNKNOWN_COLUMN);
  if (!diagnostics.length) return out;
  const text = document.getText();
  for (const action of await service.getCodeActions(document, range, { ...context, diagnostics }, settings, token)) {
    const edits = action.edit?.changes?.[document.uri] as TextEdit[] | undefined;
    const scalar = edits?.[0] && scalarAt(text, document.offsetAt(edits[0].range.start));
    if (!edits || !scalar || !isScalar(scalar)) continue;
    if ((scalar.type === 'PLAIN' || scalar.type === 'BLOCK_FOLDED' || scalar.type === 'BLOCK_LITERAL') && edits.some((e) => /['"\n]|#|: /.test(e.newText))) continue;
    out.push({ ...action, edit: { changes: { [document.uri]: edits.map((e) => ({ range: e.range, newText: escapeFor(scalar.type, e.newText) })) } } });
  }
  return out;
}
