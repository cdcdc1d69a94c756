/**
 * The formulas of an answer (`answer.formulas[].expr` of an Answer TML, and of each Liveboard
 * visualization's answer) in the editor, `tsq check` and `tsq tml validate`: each `expr` checked by the
 * formula checker (common/src/formula/checker.ts) against the columns of the answer's `tables` and its
 * other formulas, the diagnostics placed on the characters of the YAML string; completion of functions
 * and columns inside an `expr`, hover with a function's reference entry, and the did-you-mean quick fixes;
 * completion, hover and quick fixes inside a worksheet or model's `formulas[].expr` too (its diagnostics
 * are modelTmlCheck.ts's). `withFormulas` lays this over a TML kind's checker (tmlService.ts).
 *
 * Pure: no `vscode`, no LSP server, no HTTP (the catalog is the language service's).
 */
import { isMap, isScalar, isSeq, type Scalar, type YAMLMap } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeActionKind, CompletionItemKind, MarkupKind, type CodeAction, type CodeActionContext, type CompletionItem, type CompletionList, type Diagnostic, type Hover } from 'vscode-languageserver-types';
import type { Column } from '../model';
import type { CancellationLike, LanguageService, LanguageSettings } from '../languageService/types';
import { checkFormulaSet, formulaTypeOf, type CheckedFormula } from '../formula/checker';
import { CALLABLE_FUNCTION_NAMES, FORMULA_FUNCTION_BY_NAME, functionMarkdown } from '../formula/functions';
import { formulaNodes, lexFormula } from '../formula/parser';
import { FORMULA_CODES } from '../formula/diagnostics';
import { diag, escapeFor, nodeRange, rangeOf, readAnswerTml, readTmlDocument, scalarOffsets, TML_CODES, type AnswerParts, type AnswerTmlFile } from './answerTml';
import { readLiveboardTml, tmlKindOf } from './liveboardTml';
import { tmlKindOfUri } from './kinds';
import type { TmlChecker } from './tmlService';
import { modelDefinitionOf, ModelTmlError, type ModelDefinition } from './modelTml';
import { modelFormulaColumns, modelFormulaEntries } from './modelFormulas';
import { catalogColumns } from './modelTmlCheck';
import { memberOf } from '../guards';

/** One answer of a TML document: its mapping, what it names, and its path in messages. */
interface AnswerIn {
  answer: YAMLMap;
  parts: AnswerParts;
  path: string;
}

/** A TML document read for its answers' formulas. */
interface FormulaDocument {
  file: Pick<AnswerTmlFile, 'text' | 'lines' | 'doc' | 'exceeded'>;
  answers: AnswerIn[];
}

/** A column an expression may name, for completion and hover: its name and what it is (type, kind, or a formula's expression). */
interface NamedColumn {
  name: string;
  detail: string;
}

/**
 * A mapping whose `formulas[].expr` the editor completes and hovers: an answer, or the body of a
 * worksheet or model; `columns` those a formula of entry `entry` may name (the others' formulas by name).
 */
interface FormulaHost {
  owner: YAMLMap;
  columns(service: LanguageService, entry: number, token?: CancellationLike): Promise<NamedColumn[]>;
}

/** A TML document read for the formulas the editor completes and hovers in. */
interface FormulaHosts {
  file: FormulaDocument['file'];
  hosts: FormulaHost[];
}

/** The answers of a TML document: the `answer` of an Answer TML, or each visualization's of a Liveboard. */
function readAnswers(uri: string, text: string): FormulaDocument {
  if ((tmlKindOfUri(uri) ?? tmlKindOf(text)) === 'liveboard') {
    const file = readLiveboardTml(text);
    return { file, answers: file.visualizations.flatMap((v) => (v.answer ? [{ answer: v.answer, parts: v, path: `${v.path}.answer` }] : [])) };
  }
  const file = readAnswerTml(text);
  const root = file.doc.contents;
  const answer = isMap(root) ? root.get('answer', true) : undefined;
  return { file, answers: isMap(answer) ? [{ answer, parts: file, path: 'answer' }] : [] };
}

/** The `expr` scalars of an answer's `formulas`, by entry (undefined where an entry has none). */
function exprScalars(answer: YAMLMap): (Scalar | undefined)[] {
  const formulas = answer.get('formulas', true);
  if (!isSeq(formulas)) return [];
  return formulas.items.filter(isMap).map((f) => {
    const e = f.get('expr', true);
    return isScalar(e) && typeof e.value === 'string' ? e : undefined;
  });
}

/**
 * The columns of every data source of an answer's `tables`, or undefined when any is unknown now (or
 * named by `obj_id` only, which the catalog cannot look up): then no column of a formula is judged.
 */
async function sourceColumns(service: LanguageService, parts: AnswerParts, token?: CancellationLike): Promise<Column[] | undefined> {
  const tables = parts.tables ?? [];
  if (!service.catalog || tables.length === 0 || tables.some((t) => t.byObjId)) return undefined;
  const answers = await Promise.all(tables.map((t) => service.catalog!.getColumns(t.ref, token)));
  return answers.every((a) => a) ? answers.flatMap((a) => a!.columns) : undefined;
}

/** The formulas of an answer checked together (`checkFormulaSet`), in the order of its `formulas`. */
function checkAnswerFormulas(parts: AnswerParts, columns: Column[] | undefined): CheckedFormula[] {
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  return checkFormulaSet((parts.formulaEntries ?? []).map((e) => ({ id: text(e.id), name: text(e.name), expr: typeof e.expr === 'string' ? e.expr : '' })), columns);
}

/**
 * The diagnostics of every `formulas[].expr` of one answer, each placed on the characters of its YAML
 * string (codes `formula.*`, common/src/formula/diagnostics.ts; a did-you-mean's names in
 * `data.suggestions`), and a schema error for an entry with no `expr`. Codes of
 * `settings.disabledDiagnostics` are left out.
 */
async function answerFormulaDiagnostics(service: LanguageService, file: FormulaDocument['file'], a: AnswerIn, settings: LanguageSettings, token?: CancellationLike): Promise<Diagnostic[]> {
  const scalars = exprScalars(a.answer);
  if (scalars.length === 0) return [];
  const checked = checkAnswerFormulas(a.parts, await sourceColumns(service, a.parts, token));
  const formulas = a.answer.get('formulas', true);
  const entries = isSeq(formulas) ? formulas.items.filter(isMap) : [];
  const out: Diagnostic[] = [];
  scalars.forEach((node, i) => {
    if (!node) {
      out.push(diag(nodeRange(file, entries[i]), `${a.path}.formulas[${i}].expr is missing: a formula needs an expression.`, TML_CODES.schema));
      return;
    }
    const value = String(node.value);
    const map = scalarOffsets(file.text, node, value);
    const at = (o: number): number => map[Math.min(Math.max(o, 0), value.length)]!;
    for (const d of checked[i]?.diagnostics ?? []) {
      const range = rangeOf(file, at(d.start), at(Math.max(d.end, d.start)));
      out.push({ ...diag(range, d.message, d.code), ...(d.suggestions ? { data: { suggestions: d.suggestions } } : {}) });
    }
  });
  const disabled = new Set(settings.disabledDiagnostics ?? []);
  return out.filter((d) => !disabled.has(String(d.code)));
}

/** The diagnostics of the formulas of every answer of a TML document (none when the YAML itself is broken). */
export async function validateTmlFormulas(service: LanguageService, uri: string, text: string, settings: LanguageSettings = {}, token?: CancellationLike): Promise<Diagnostic[]> {
  const doc = readAnswers(uri, text);
  if (doc.file.exceeded || doc.file.doc.errors.length) return [];
  const out: Diagnostic[] = [];
  for (const a of doc.answers) out.push(...(await answerFormulaDiagnostics(service, doc.file, a, settings, token)));
  return out;
}

/** The `expr` at file offset `offset`: its host, entry index, scalar, the value's offset map and the index in the value. */
interface ExprAt {
  host: FormulaHost;
  entry: number;
  node: Scalar;
  value: string;
  map: number[];
  index: number;
}

/** The formula expression whose YAML string holds `offset`, or undefined. */
function exprAt(doc: FormulaHosts, offset: number): ExprAt | undefined {
  for (const host of doc.hosts) {
    for (const [entry, node] of exprScalars(host.owner).entries()) {
      const r = node?.range;
      if (!node || !r || offset < r[0] || offset > r[1]) continue;
      const value = String(node.value);
      const map = scalarOffsets(doc.file.text, node, value);
      if (offset < map[0]! || offset > map[value.length]!) continue;
      let index = 0;
      while (index < value.length && map[index]! < offset) index++;
      return { host, entry, node, value, map, index };
    }
  }
  return undefined;
}

/** `columns` as named for completion and hover, then the formulas of `formulas` but entry `entry` (by name, with their expressions). */
function namedColumns(columns: readonly Column[], formulas: readonly { name?: unknown; id?: unknown; expr?: unknown }[], entry: number): NamedColumn[] {
  const others = formulas.flatMap((e, i) => (i !== entry && typeof (e.name ?? e.id) === 'string' ? [{ name: String(e.name ?? e.id), detail: `formula: ${String(e.expr ?? '')}` }] : []));
  return [...columns.map((c) => ({ name: c.name, detail: `${c.dataType} ${c.kind.toLowerCase()} (${formulaTypeOf(c.dataType)})` })), ...others];
}

/** The host of an answer: its data sources' columns, then its other formulas. */
function answerHost(a: AnswerIn): FormulaHost {
  return { owner: a.answer, columns: async (service, entry, token) => namedColumns((await sourceColumns(service, a.parts, token)) ?? [], a.parts.formulaEntries ?? [], entry) };
}

/**
 * The host of a worksheet or model body: the model's `column_id` columns (typed by the catalog's
 * columns of its tables, modelFormulas.ts `modelFormulaColumns`), then its other formulas by the name of
 * the column that shows each; none but the functions while the definition does not read (`ModelTmlError`).
 */
function modelHost(body: YAMLMap, js: unknown): FormulaHost {
  return {
    owner: body,
    async columns(service, entry, token) {
      let def: ModelDefinition;
      try {
        def = modelDefinitionOf(js);
      } catch (e) {
        if (e instanceof ModelTmlError) return [];
        throw e;
      }
      const columnsOf = await catalogColumns(service, def.tables, token);
      return namedColumns(modelFormulaColumns(def, columnsOf), modelFormulaEntries(def), entry);
    },
  };
}

/** The formula hosts of a TML document: a worksheet or model's body, else its answers (`readAnswers`). */
function formulaHostsOf(uri: string, text: string): FormulaHosts {
  const kind = tmlKindOfUri(uri) ?? tmlKindOf(text);
  if (kind !== 'worksheet' && kind !== 'model') {
    const doc = readAnswers(uri, text);
    return { file: doc.file, hosts: doc.answers.map(answerHost) };
  }
  const file = readTmlDocument(text);
  const root = file.doc.contents;
  const body = isMap(root) ? root.get(kind, true) : undefined;
  return { file, hosts: isMap(body) && !file.exceeded ? [modelHost(body, file.doc.toJS())] : [] };
}

/**
 * Completion inside a formula's `expr`: after an open `[`, the columns (the data sources' and the
 * answer's other formulas), closing the bracket; elsewhere the functions of the catalogue and the
 * columns as `[name]`, each replacing the word before the cursor. Edits on the YAML string, escaped for its quoting.
 */
async function completeExpr(service: LanguageService, document: TextDocument, at: ExprAt, token?: CancellationLike): Promise<CompletionList> {
  const before = at.value.slice(0, at.index);
  const open = before.lastIndexOf('[');
  const inColumn = open > before.lastIndexOf(']');
  const from = inColumn ? open : at.index - (/[\p{L}\p{N}_]*$/u.exec(before)?.[0].length ?? 0);
  const range = { start: document.positionAt(at.map[from]!), end: document.positionAt(at.map[at.index]!) };
  const edit = (label: string, newText: string, kind: CompletionItemKind, detail: string, doc?: string): CompletionItem => ({
    label, kind, detail, textEdit: { range, newText: escapeFor(at.node.type, newText) }, ...(doc ? { documentation: { kind: MarkupKind.Markdown, value: doc } } : {}),
  });
  const columns = (await at.host.columns(service, at.entry, token)).map((c) => edit(`[${c.name}]`, `[${c.name}]`, CompletionItemKind.Field, c.detail));
  if (inColumn) return { isIncomplete: false, items: columns };
  const functions = CALLABLE_FUNCTION_NAMES.map((n) => {
    const f = FORMULA_FUNCTION_BY_NAME.get(n)!;
    return edit(n, `${n} ( `, CompletionItemKind.Function, f.signature, functionMarkdown(f));
  });
  return { isIncomplete: false, items: [...functions, ...columns] };
}

/** Hover inside a formula's `expr`: a function or operator's reference entry, or a column's type. */
async function hoverExpr(service: LanguageService, file: FormulaDocument['file'], at: ExprAt, token?: CancellationLike): Promise<Hover | null> {
  const token0 = lexFormula(at.value).find((t) => t.kind !== 'ws' && at.index >= t.start && at.index <= t.start + t.text.length);
  if (!token0) return null;
  const range = rangeOf(file, at.map[token0.start]!, at.map[token0.start + token0.text.length]!);
  if (token0.kind === 'column') {
    const name = token0.text.slice(1, -1).split('::').pop()!.trim();
    const col = (await at.host.columns(service, at.entry, token)).find((c) => c.name.toLowerCase() === name.toLowerCase());
    return col ? { contents: { kind: MarkupKind.Markdown, value: `**[${col.name}]** — ${col.detail}` }, range } : null;
  }
  const parsed = checkFormulaSet([{ expr: at.value }], [])[0]!.parsed;
  const call = [...formulaNodes(parsed.ast)].find((n) => n.kind === 'call' && at.index >= n.start && at.index <= n.nameEnd);
  const word = call?.kind === 'call' ? call.name : token0.text;
  const f = FORMULA_FUNCTION_BY_NAME.get(word.toLowerCase()) ?? (['then', 'else'].includes(word.toLowerCase()) ? FORMULA_FUNCTION_BY_NAME.get('if') : undefined);
  return f ? { contents: { kind: MarkupKind.Markdown, value: functionMarkdown(f) }, range } : null;
}

/**
 * `checker` with completion and hover inside a formula's `expr` (of an answer, or of a worksheet or
 * model: `formulaHostsOf`); elsewhere the checker's own. Its diagnostics are the checker's.
 */
export function withFormulaEditing(checker: TmlChecker): TmlChecker {
  return {
    ...checker,
    async complete(service, document, position, settings, token) {
      const at = exprAt(formulaHostsOf(document.uri, document.getText()), document.offsetAt(position));
      return at ? completeExpr(service, document, at, token) : checker.complete(service, document, position, settings, token);
    },
    async hover(service, document, position, settings, token) {
      const doc = formulaHostsOf(document.uri, document.getText());
      const at = exprAt(doc, document.offsetAt(position));
      return at ? hoverExpr(service, doc.file, at, token) : checker.hover(service, document, position, settings, token);
    },
  };
}

/**
 * `checker` with the formulas of its answers: its diagnostics and those of every `expr`
 * (`validateTmlFormulas`, unless the file's YAML is broken), and `withFormulaEditing`'s completion and hover.
 */
export function withFormulas(checker: TmlChecker): TmlChecker {
  const editing = withFormulaEditing(checker);
  return {
    ...editing,
    async validate(service, uri, text, settings = {}) {
      const own = await checker.validate(service, uri, text, settings);
      if (own.some((d) => d.code === TML_CODES.syntax || d.code === TML_CODES.tooLarge)) return own;
      return [...own, ...(await validateTmlFormulas(service, uri, text, settings))];
    },
  };
}

/** The codes of the formula diagnostics whose `data.suggestions` a quick fix writes in. */
const FIXABLE = new Set<string>([FORMULA_CODES.unknownFunction, FORMULA_CODES.unknownColumn]);

/**
 * The quick fixes of formula diagnostics of `context` in a TML document: for an unknown function or
 * column, "Replace with …" each name of its `data.suggestions` (the first preferred), the text escaped
 * for the YAML string of its `expr` (`escapeFor`): an answer's, or a worksheet or model's
 * (`formulas[].expr`). Diagnostics outside an `expr` get none.
 */
export function formulaCodeActions(document: TextDocument, context: CodeActionContext): CodeAction[] {
  const fixable = context.diagnostics.filter((d) => FIXABLE.has(String(d.code)));
  if (!fixable.length) return [];
  const doc = formulaHostsOf(document.uri, document.getText());
  return fixable.flatMap((d) => {
    const node = exprAt(doc, document.offsetAt(d.range.start))?.node;
    const suggestions = memberOf(d.data, 'suggestions');
    const names = Array.isArray(suggestions) ? suggestions.filter((s): s is string => typeof s === 'string' && s !== '') : [];
    if (!node) return [];
    return names.map((name, i): CodeAction => ({
      title: `Replace with ${name}`, kind: CodeActionKind.QuickFix, diagnostics: [d], ...(i === 0 ? { isPreferred: true } : {}),
      edit: { changes: { [document.uri]: [{ range: d.range, newText: escapeFor(node.type, name) }] } },
    }));
  });
}
