/**
 * `*.liveboard.tml` files: the Liveboard TML (docs/service-interface.md §11.1;
 * https://docs.thoughtspot.com/cloud/latest/tml-liveboards; thoughtspot/thoughtspot_tml
 * `tests/data/DUMMY.liveboard.tml`) read with positions: `liveboard` (or `pinboard`, its former name) with
 * `name` and `visualizations`, each an `id` and an `answer` in the Answer syntax. Each visualization's
 * `search_query` is checked by the one language service against the data sources its own `tables` names (and its `formulas`),
 * through the same embedding as an Answer TML's (common/src/tml/answerTml.ts), the diagnostics placed
 * inside the YAML string.
 *
 * Pure: no `vscode`, no LSP server, no HTTP.
 */
import { isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DiagnosticSeverity, type CompletionList, type Diagnostic, type Hover, type Position } from 'vscode-languageserver-types';
import type { CancellationLike, LanguageService, LanguageSettings } from '../languageService/types';
import { ANSWER_MEMBER_DOCS, ANSWER_TML_PAGE, answerPartsOf, checkAnswerMembers, completeEmbeddedQuery, diag, embeddedQueryAt, hoverEmbeddedQuery, keyHover, nodeRange, rangeOf, readTmlDocument, limitDiagnostic, TML_CODES, validateEmbeddedQuery, checkGuid, type AnswerParts, type AnswerTmlFile, type EmbeddedQueryAt, nodeOf } from './answerTml';
import { keysOf } from '../guards';

/** The Liveboard TML page, whose parameter list the member descriptions below follow. */
export const LIVEBOARD_TML_PAGE = 'https://docs.thoughtspot.com/cloud/latest/tml-liveboards';

/**
 * The top-level members of a Liveboard TML, each with what the docs say of it (tml-liveboards;
 * `pinboard` is the name before 8.9.0.cl, tml-syntax-liveboard): the one declaration
 * `LIVEBOARD_TOP_LEVEL`, the shape check and the hover derive from.
 */
export const LIVEBOARD_TOP_LEVEL_DOCS = {
  guid: 'The GUID of the Liveboard, the string at the end of its URL: an import with it updates that Liveboard; one without it, or with `guid: null` (as clusters export a Liveboard for a new home), creates a new one.',
  obj_id: 'The Liveboard\'s own identifier, set by its users and unique in its Org (intro-thoughtspot-objects: `org_id` + `obj_id` is as good as the GUID): exported beside or instead of `guid`, so that the file imports into another Org or instance.',
  liveboard: 'The Liveboard: its `name`, `description`, `visualizations`, `filters` and `layout`.',
  pinboard: 'The name of `liveboard` before 8.9.0.cl: older files still import; a file with `liveboard` does not import into 8.8.0.cl or earlier.',
} as const;

/**
 * The members of `liveboard`, each with what the docs say of it (tml-liveboards, tml-syntax-liveboard;
 * `tables`, `parameters` and `parameter_overrides` as thoughtspot/thoughtspot_tml's Liveboard type has
 * them). `style` and `schedules` are accepted unchecked, as before: the page does not describe them.
 */
export const LIVEBOARD_MEMBER_DOCS = {
  name: 'The name of the Liveboard.',
  description: 'The text that describes the Liveboard (optional, may span lines).',
  tables: 'The data sources the Liveboard reads (each visualization names its own in `answer.tables`).',
  visualizations: 'The visualizations of the Liveboard (tables, charts and headlines): each an `id`, an `answer` in the Answer syntax, and its `viz_guid`.',
  filters: 'The Liveboard filters: each a `column` (the primary filter column first, then linked ones), an `oper` (in, not in, between, =, !=, <, <=, >, >=), its `values`, and the `excluded_visualizations`.',
  parameters: 'The Parameters the Liveboard defines.',
  parameter_overrides: 'The values the Liveboard sets its Parameters to when they differ from the defaults (`override_value`).',
  layout: 'How the visualizations are laid out: `tabs`, each with a `name` and `tiles`, each tile a `visualization_id` with `x`, `y`, `height` and `width` (or a `size`).',
  ordered_chips: 'The order of the filter and Parameter chips shown above the Liveboard: each a `name` (a filter\'s column, or `<data source>::<Parameter>`) and a `type` (FILTER or PARAMETER). [As exported; the Liveboard TML page does not describe it.]',
  views: 'The personalized views of the Liveboard the exporting user can see: each a `view_guid`, `name`, `is_public`, `view_filters` and `view_parameters`. Private views are exported too: remove them before an import elsewhere.',
  style: 'Accepted without checks: the Liveboard TML page does not describe this member.',
  schedules: 'Accepted without checks: the Liveboard TML page does not describe this member.',
} as const;

/** The members of one visualization, each with what the docs say of it (tml-liveboards). */
export const VISUALIZATION_MEMBER_DOCS = {
  id: 'The id of the visualization: what `layout` tiles name as `visualization_id` and filters as `excluded_visualizations`.',
  answer: 'The visualization, in the Answer syntax: `name`, `tables`, `search_query` (checked, completed and hovered as a `.tsq` query), `answer_columns`, `table`, `chart`, `display_mode`. A note tile has `note_tile` instead.',
  note_tile: 'A note tile: text, not an answer (`html_parsed_string`, its HTML). A visualization is an `answer` or a `note_tile`.',
  viz_guid: 'The GUID of the visualization: it tells it apart from another visualization of the same name (the second GUID of its Copy link URL).',
  display_headline_column: 'For a headline, the column the headline comes from.',
} as const;

/** The top-level members of a Liveboard TML (tml-liveboards). */
export const LIVEBOARD_TOP_LEVEL = keysOf(LIVEBOARD_TOP_LEVEL_DOCS);
/** The members of `liveboard` (tml-liveboards). */
export const LIVEBOARD_MEMBERS = keysOf(LIVEBOARD_MEMBER_DOCS);
/** The members of one visualization (tml-liveboards; `viz_guid` as in DUMMY.liveboard.tml). */
export const VISUALIZATION_MEMBERS = keysOf(VISUALIZATION_MEMBER_DOCS);

/** One visualization of a Liveboard TML: its `id`, its `answer` mapping and what that names. */
export interface LiveboardVisualization extends AnswerParts {
  id?: string;
  /** Where it is in the file: `liveboard.visualizations[i]`. */
  path: string;
  answer?: YAMLMap;
  node: Node;
}

/** A Liveboard TML read from its text. */
export interface LiveboardTmlFile extends Pick<AnswerTmlFile, 'text' | 'doc' | 'lines' | 'exceeded' | 'guid'> {
  /** `liveboard` or `pinboard`, whichever the file holds. */
  member?: 'liveboard' | 'pinboard';
  name?: string;
  visualizations: LiveboardVisualization[];
}

/** Parses a Liveboard TML text with positions. Never throws: syntax errors are in `doc.errors`. */
export function readLiveboardTml(text: string): LiveboardTmlFile {
  const file: LiveboardTmlFile = { ...readTmlDocument(text), visualizations: [] };
  const root = file.doc.contents;
  if (!isMap(root)) return file;
  const guid = root.get('guid');
  if (typeof guid === 'string') file.guid = guid;
  file.member = root.has('liveboard') ? 'liveboard' : root.has('pinboard') ? 'pinboard' : undefined;
  const board = file.member && root.get(file.member, true);
  if (!isMap(board)) return file;
  const name = board.get('name');
  if (typeof name === 'string') file.name = name;
  const vizs = board.get('visualizations', true);
  if (!isSeq(vizs)) return file;
  vizs.items.forEach((item, i) => {
    const path = `${file.member}.visualizations[${i}]`;
    if (!isMap(item)) {
      file.visualizations.push({ path, node: nodeOf(item) ?? vizs });
      return;
    }
    const id = item.get('id');
    const answer = item.get('answer', true);
    file.visualizations.push({ path, node: item, ...(typeof id === 'string' ? { id } : {}), ...(isMap(answer) ? { answer, ...answerPartsOf(answer) } : {}) });
  });
  return file;
}

/** The warnings of the keys of `map` not in `known`, named as members of `path`. */
function unknownMembers(file: LiveboardTmlFile, map: YAMLMap, known: readonly string[], path: string): Diagnostic[] {
  return map.items
    .map((item) => ({ key: isScalar(item.key) ? String(item.key.value) : '', node: nodeOf(item.key) }))
    .filter((k) => !known.includes(k.key))
    .map((k) => diag(nodeRange(file, k.node), `Unknown member ${k.key} of ${path}.`, TML_CODES.unknownMember, DiagnosticSeverity.Warning));
}

/**
 * The shape checks of a Liveboard TML: YAML syntax, `guid` (`checkGuid`), `liveboard` with `name` and
 * `visualizations`, each with `id` and either an `answer` checked as an Answer TML's (`checkAnswerMembers`)
 * or a `note_tile` (a note tile of an exported Liveboard, with no answer). Unknown members are
 * warnings (the service adds members over releases).
 */
export function checkLiveboardShape(file: LiveboardTmlFile): Diagnostic[] {
  const limit = limitDiagnostic(file);
  if (limit) return [limit];
  const out: Diagnostic[] = file.doc.errors.map((e) => diag(rangeOf(file, e.pos[0], e.pos[1]), `Not valid YAML: ${e.message.split('\n')[0]}`, TML_CODES.syntax));
  if (out.length) return out;
  const root = file.doc.contents;
  if (!isMap(root) || !file.member) return [diag(nodeRange(file, root ?? undefined), 'A Liveboard TML is a mapping with guid and liveboard.', TML_CODES.schema)];
  out.push(...unknownMembers(file, root, LIVEBOARD_TOP_LEVEL, 'a Liveboard TML'));
  out.push(...checkGuid(file, root));
  const board = root.get(file.member, true);
  if (!isMap(board)) return [...out, diag(nodeRange(file, board ?? root), `${file.member} must be a mapping with name and visualizations.`, TML_CODES.schema)];
  out.push(...unknownMembers(file, board, LIVEBOARD_MEMBERS, file.member));
  if (!file.name) out.push(diag(nodeRange(file, board.get('name', true) ?? board), `${file.member}.name is missing: a liveboard needs a name.`, TML_CODES.schema));
  const vizs = board.get('visualizations', true);
  if (vizs !== undefined && !isSeq(vizs)) out.push(diag(nodeRange(file, vizs), `${file.member}.visualizations must be a list of {id, answer}.`, TML_CODES.schema));
  for (const v of file.visualizations) {
    if (!isMap(v.node)) {
      out.push(diag(nodeRange(file, v.node), `${v.path} must be a mapping with id and answer.`, TML_CODES.schema));
      continue;
    }
    out.push(...unknownMembers(file, v.node, VISUALIZATION_MEMBERS, v.path));
    if (!v.id) out.push(diag(nodeRange(file, v.node), `${v.path}.id is missing: the layout refers to a visualization by its id.`, TML_CODES.schema));
    if (!v.answer && !v.node.has('note_tile')) out.push(diag(nodeRange(file, v.node), `${v.path} has neither answer nor note_tile: a visualization is an answer or a note tile.`, TML_CODES.schema));
    else if (v.answer) out.push(...checkAnswerMembers(file, v.answer, `${v.path}.answer`));
  }
  return out;
}

/**
 * Every diagnostic of a Liveboard TML file: the shape (checkLiveboardShape), then each visualization's
 * `search_query` by the language service against the data source of its own `tables`, each placed on
 * the characters of its YAML string.
 */
export async function validateLiveboardTml(service: LanguageService, uri: string, text: string, settings: LanguageSettings = {}): Promise<Diagnostic[]> {
  const file = readLiveboardTml(text);
  const out = checkLiveboardShape(file);
  if (out.some((d) => d.code === TML_CODES.syntax || d.code === TML_CODES.tooLarge)) return out;
  for (const [i, v] of file.visualizations.entries()) {
    if (v.query && v.dataSource) out.push(...(await validateEmbeddedQuery(service, embeddedUri(uri, i), file, v.query, v, settings)));
  }
  return out;
}

/** The URI of the embedded `.tsq` document of visualization `i`'s search_query (one per visualization, so that none shares another's cache). */
function embeddedUri(uri: string, i: number): string {
  return `${uri}#visualizations/${i}/search_query`;
}

/** The visualization whose `search_query` string holds file offset `offset`, placed for the language service, or undefined. */
function visualizationQueryAt(service: LanguageService, document: TextDocument, file: LiveboardTmlFile, offset: number): EmbeddedQueryAt | undefined {
  for (const [i, v] of file.visualizations.entries()) {
    const at = v.query ? embeddedQueryAt(service, file.text, v.query, v, offset, embeddedUri(document.uri, i), document.version) : undefined;
    if (at) return at;
  }
  return undefined;
}

/**
 * Completion inside a visualization's `search_query` of a Liveboard TML: the language service's
 * completion of that query against the data source of the visualization's own `tables`, its edits moved
 * onto the YAML string (as `completeAnswerTml` does for an Answer TML). Elsewhere: no items.
 */
export async function completeLiveboardTml(service: LanguageService, document: TextDocument, position: Position, settings: LanguageSettings = {}, token?: CancellationLike): Promise<CompletionList> {
  const at = visualizationQueryAt(service, document, readLiveboardTml(document.getText()), document.offsetAt(position));
  return at ? completeEmbeddedQuery(document, at, settings, token) : { isIncomplete: false, items: [] };
}

/**
 * Hover in a Liveboard TML: inside a visualization's `search_query`, the language service's hover of
 * that query against its own data source (the same as in a `.tsq` file), its range on the YAML string;
 * on a key of a top-level member, a member of `liveboard`, of a visualization or of its `answer`, what
 * the docs say of it with the page (`LIVEBOARD_TOP_LEVEL_DOCS`, `LIVEBOARD_MEMBER_DOCS`,
 * `VISUALIZATION_MEMBER_DOCS`, `ANSWER_MEMBER_DOCS`). Elsewhere null.
 */
export async function hoverLiveboardTml(service: LanguageService, document: TextDocument, position: Position, settings: LanguageSettings = {}, token?: CancellationLike): Promise<Hover | null> {
  const file = readLiveboardTml(document.getText());
  const offset = document.offsetAt(position);
  const root = file.doc.contents;
  if (!isMap(root)) return null;
  const top = keyHover(file, root, offset, LIVEBOARD_TOP_LEVEL_DOCS, '', LIVEBOARD_TML_PAGE);
  if (top !== undefined) return top;
  const board = file.member && root.get(file.member, true);
  const member = isMap(board) ? keyHover(file, board, offset, LIVEBOARD_MEMBER_DOCS, `${file.member}.`, LIVEBOARD_TML_PAGE) : undefined;
  if (member !== undefined) return member;
  for (const v of file.visualizations) {
    const viz = isMap(v.node) ? keyHover(file, v.node, offset, VISUALIZATION_MEMBER_DOCS, `${v.path}.`, LIVEBOARD_TML_PAGE) : undefined;
    if (viz !== undefined) return viz;
    const inAnswer = v.answer ? keyHover(file, v.answer, offset, ANSWER_MEMBER_DOCS, `${v.path}.answer.`, ANSWER_TML_PAGE) : undefined;
    if (inAnswer !== undefined) return inAnswer;
  }
  const at = visualizationQueryAt(service, document, file, offset);
  return at ? hoverEmbeddedQuery(file, at, settings, token) : null;
}

/** The object a TML text holds, by its top-level member: a liveboard (`liveboard` or `pinboard`), a worksheet, model or table, else an answer. */
export function tmlKindOf(text: string): 'answer' | 'liveboard' | 'worksheet' | 'model' | 'table' {
  const root = readTmlDocument(text).doc.contents;
  if (!isMap(root) || root.has('answer')) return 'answer';
  if (root.has('liveboard') || root.has('pinboard')) return 'liveboard';
  return (['worksheet', 'model', 'table'] as const).find((k) => root.has(k)) ?? 'answer';
}

/** The first `search_query` node of an Answer or Liveboard TML text (where the service's own message about the file goes), or undefined. */
export function firstQueryNode(text: string): { file: Pick<AnswerTmlFile, 'lines'>; node: Node } | undefined {
  const board = readLiveboardTml(text);
  const v = board.visualizations.find((x) => x.query);
  if (v?.query) return { file: board, node: v.query.node };
  const root = board.doc.contents;
  const answer = isMap(root) ? root.get('answer', true) : undefined;
  const q = isMap(answer) ? answerPartsOf(answer).query : undefined;
  return q ? { file: board, node: q.node } : undefined;
}
