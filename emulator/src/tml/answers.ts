/**
 * TML of the emulator's objects (docs/service-interface.md §11): export of answers (read and write), of
 * liveboards (read only; an import answers ERROR, VALIDATE_ONLY checks each visualization), of tables
 * and worksheets (read only, for their columns) and of models (models.ts, read and write), import of answers with the documented
 * policies, and an answer's SQL. Both API generations call this one module (routes.ts); the shapes come
 * from thoughtspot/developer-docs `tml-api.adoc` (v1), `tml-import.adoc` and the OpenAPI document of
 * thoughtspot/rest-api-sdk (v2), the Answer TML from https://docs.thoughtspot.com/cloud/latest/tml-answers
 * and thoughtspot/thoughtspot_tml `tests/data/DUMMY.answer.tml`.
 */
import { randomUUID } from 'node:crypto';
import { parse as parseYaml, type Document } from 'yaml';
import { readBoundedYaml, TML_LIMITS } from '../../../common/src/tml/boundedYaml';
import { tokenForm } from '../../../common/src/tml/tokenForm';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import { isGuid } from '../guid';
import type { AnswerBook, LogicalTable, MetadataStore, Visualization } from '../metadataStore';
import { QueryError, type SqlParam } from '../searchdata/compile';
import type { SearchService } from '../searchdata/run';
import { serviceJson, serviceYaml } from './exportText';
import { findPrincipalExport } from './principals';
import { modelTml, validateModelTml, writeModel, type ValidModel } from './models';
import { withFormulaColumns } from '../searchdata/formulaColumns';
import { isRecord } from '../../../common/src/guards';

/** `import_policy` values (OpenAPI `ImportMetadataTMLRequest`; v1 has the first three). */
export const IMPORT_POLICIES = ['PARTIAL', 'ALL_OR_NONE', 'VALIDATE_ONLY', 'PARTIAL_OBJECT'] as const;
/** An import policy (docs/service-interface.md §11.2). */
export type ImportPolicy = (typeof IMPORT_POLICIES)[number];

/** The text of an object that is neither YAML nor JSON (tml-import.adoc's example response). */
export const INVALID_SYNTAX_TEXT = 'Invalid YAML/JSON syntax in file.';
/** The text of a Liveboard TML imported other than VALIDATE_ONLY: the emulator exports liveboards, read only. */
export const LIVEBOARD_READ_ONLY_TEXT = 'Liveboard TML cannot be imported into the emulator: its liveboards are read only (VALIDATE_ONLY checks one).';
/** The text of a valid object of a failed ALL_OR_NONE import: it was not written either. */
export const NOT_IMPORTED_TEXT = 'Not imported: another object of this ALL_OR_NONE import failed, so none was imported.';

/** The status of one object of an export or import (`status_code` OK, WARNING or ERROR). */
export interface TmlStatus {
  status_code: 'OK' | 'WARNING' | 'ERROR';
  error_message?: string;
}

/** One exported object: `info` (name, filename, status, type, id) and `edoc`, the TML text (tml-api.adoc). */
export interface ExportedTml {
  info: { name: string; filename: string; status: TmlStatus; type: string; id: string };
  edoc: string;
}

/** One object's answer of an import: its status and, when it names an object, its header (tml-api.adoc). */
export interface ImportedTml {
  response: {
    status: TmlStatus;
    header?: { id_guid?: string; name: string; description?: string; author_guid?: string; owner_guid?: string; metadata_type: 'QUESTION_ANSWER_BOOK' | 'PINBOARD_ANSWER_BOOK' | 'LOGICAL_TABLE' };
  };
}

/**
 * The members an exported answer holds, in the order the service writes them (thoughtspot_tml
 * `DUMMY.answer.tml`, the exported liveboards of developer-docs `tml.adoc`): a member the emulator adds
 * goes after the last of those before it that the answer holds; every other member keeps its place.
 */
const ANSWER_MEMBER_ORDER = ['name', 'description', 'tables', 'formulas', 'search_query', 'answer_columns', 'table', 'chart', 'display_mode'];
/** The `client_state_v2` of an answer's `table` as the service writes it for a table it has not restyled. */
const TABLE_CLIENT_STATE_V2 = '{"tableVizPropVersion": "V1"}';
/** Top-level members of a TML file that name another object type (tml.adoc's list of object TMLs). */
const OTHER_TYPES = ['liveboard', 'pinboard', 'table', 'worksheet', 'model', 'view', 'sql_view', 'connection', 'collection', 'monitor_alert'];


/** What an object failed on, as the ERROR status of its import. */
class TmlInvalid extends Error {}

/** A validated Answer TML: what an import writes. */
interface ValidAnswer {
  guid?: string;
  existing?: AnswerBook;
  name: string;
  description?: string;
  dataSource: LogicalTable;
  query: string;
  /** Every member of the `answer` as imported. */
  kept: Record<string, unknown>;
  /** The text the answer was imported from (its written styles come back on export). */
  source?: string;
}

/** A Liveboard TML that VALIDATE_ONLY found valid (nothing is written: liveboards are read only). */
interface ValidLiveboard {
  liveboard: true;
  name: string;
}

/** The Answer TML service of the emulator over its metadata store and searchdata compiler. */
export class TmlService {
  constructor(
    private readonly catalog: MetadataStore,
    private readonly search: SearchService,
    private readonly now: () => Date,
  ) {}

  /**
   * The TML of one object by GUID, or by name with `type` (`ANSWER`, `LOGICAL_TABLE`, `USER`,
   * `USER_GROUP`: a user's or group's TML as tml/principals.ts writes it). An unknown object is an ERROR status (the export goes on with the others); one the user may not read is a 403.
   * @param format YAML or JSON text in `edoc`
   * @param fqn add each data source's GUID as `fqn` (`export_fqn`)
   */
  exportOne(user: EmulatorUser, identifier: string, type: string | undefined, format: 'YAML' | 'JSON', fqn: boolean): ExportedTml {
    const key = identifier.toLowerCase();
    // a type narrows the lookup to its books: an answer and a liveboard may share a name
    const bookType = type === 'ANSWER' || type === 'QUESTION_ANSWER_BOOK' ? 'QUESTION_ANSWER_BOOK' : type === 'LIVEBOARD' || type === 'PINBOARD_ANSWER_BOOK' ? 'PINBOARD_ANSWER_BOOK' : undefined;
    const wantTable = type === undefined || type === 'LOGICAL_TABLE';
    // only the user's Org is looked in: an object of another Org is unknown there
    const inOrg = this.catalog.state.books.filter((b) => this.catalog.orgOf(b) === user.orgId);
    const books = type === undefined ? inOrg : inOrg.filter((b) => b.type === bookType);
    const book = books.find((b) => b.id === key) ?? (type ? books.find((b) => b.name.toLowerCase() === key) : undefined);
    const table = !book && wantTable ? this.catalog.dataSource(key) ?? (type ? this.catalog.state.tables.find((t) => t.name.toLowerCase() === key && this.catalog.orgOf(t) === user.orgId) : undefined) : undefined;
    const text = (doc: Record<string, unknown>, source?: string): string => (format === 'JSON' ? serviceJson(doc) : serviceYaml(doc, source));
    if (book) {
      if (!this.catalog.canRead(user, book)) throw new ApiError(403, FORBIDDEN_TEXT);
      if (book.type === 'PINBOARD_ANSWER_BOOK') return { info: { name: book.name, filename: `${book.name}.liveboard.tml`, status: { status_code: 'OK' }, type: 'liveboard', id: book.id }, edoc: text(this.liveboardTml(book, fqn)) };
      return { info: { name: book.name, filename: `${book.name}.answer.tml`, status: { status_code: 'OK' }, type: 'answer', id: book.id }, edoc: text(this.answerTml(book, fqn), book.tmlSource) };
    }
    if (table) {
      if (!this.catalog.canRead(user, table)) throw new ApiError(403, FORBIDDEN_TEXT);
      const kind = table.subtype === 'WORKSHEET' ? 'worksheet' : 'table';
      return { info: { name: table.name, filename: `${table.name}.${kind}.tml`, status: { status_code: 'OK' }, type: kind, id: table.id }, edoc: text(table.model ? modelTml(table, this.catalog, fqn) : tableTml(table, this.catalog)) };
    }
    const principal = type === undefined || type === 'USER' || type === 'USER_GROUP' ? findPrincipalExport(this.catalog, user, identifier, type, format) : undefined;
    if (principal) return principal;
    return failedExport(identifier, identifier, type?.toLowerCase() ?? 'unknown', `No object with ${type && !isGuid(identifier) ? `name ${identifier} of type ${type}` : `id ${identifier}`}.`);
  }

  /**
   * The `answer` member of a visualization as the service exports it: its name, its data source
   * (`tables`), its `search_query` in the token form (common/src/tml/tokenForm.ts), the columns it gives
   * (`answer_columns`, and `table` unless the answer has its own), over the members it was imported with
   * (`stored`, kept in their order: the presentation, formulas, and members the emulator does not read).
   */
  private answerBody(name: string, description: string | undefined, viz: Visualization | undefined, stored: Record<string, unknown>, fqn: boolean): Record<string, unknown> {
    const ds = viz ? this.catalog.dataSource(viz.dataSource) : undefined;
    const withFormulas = ds && withFormulaColumns(ds, stored.formulas);
    let columns: string[] = [];
    try {
      if (withFormulas && viz) columns = this.search.compile(withFormulas, viz.query).columnNames;
    } catch {
      // an answer whose query no longer compiles (a column dropped) still exports its text
    }
    const answerColumns = answerColumnsOf(columns, stored.answer_columns);
    const owned: Record<string, unknown> = {
      name,
      ...(description !== undefined ? { description } : {}),
      tables: ds ? [this.tableEntry(stored.tables, ds, fqn)] : [],
      search_query: viz ? tokenForm(viz.query, withFormulas?.columns) : '',
      answer_columns: answerColumns,
      ...(stored.table === undefined ? { table: { table_columns: answerColumns.map((c) => ({ column_id: c.name, show_headline: false })), ordered_column_ids: columns, client_state: '', client_state_v2: TABLE_CLIENT_STATE_V2 } } : {}),
      ...(stored.display_mode === undefined ? { display_mode: 'TABLE_MODE' } : {}),
    };
    return inServiceOrder(stored, owned);
  }

  /**
   * The `tables` entry of an exported answer: the entry it was imported with while that still names its
   * data source (its `id`, `name`, `obj_id` as written), else the data source's name as `id` and `name`;
   * `fqn`, the data source's GUID, after `name` when the export asks for it (`export_fqn`), never otherwise.
   */
  private tableEntry(stored: unknown, ds: LogicalTable, fqn: boolean): Record<string, unknown> {
    const ref = Array.isArray(stored) && isRecord(stored[0]) ? stored[0] : undefined;
    let same = false;
    try {
      same = ref !== undefined && this.resolve(ref, 'answer', this.catalog.orgOf(ds)).id === ds.id;
    } catch {
      // the entry no longer names a data source: the data source's own names replace it
    }
    const entries = Object.entries(same && ref ? ref : { id: ds.name, name: ds.name }).filter(([k]) => k !== 'fqn');
    if (fqn) {
      const at = entries.findIndex(([k]) => k === 'name');
      entries.splice(at < 0 ? entries.length : at + 1, 0, ['fqn', ds.id]);
    }
    return Object.fromEntries(entries);
  }

  /**
   * The Answer TML of a stored answer (its first visualization: an answer has one): `guid` first, the
   * other top-level members it was imported with (`obj_id`), then `answer`.
   */
  answerTml(book: AnswerBook, fqn: boolean): Record<string, unknown> {
    let source: unknown;
    try {
      source = book.tmlSource !== undefined ? parseYaml(book.tmlSource, { maxAliasCount: TML_LIMITS.aliases }) : undefined;
    } catch {
      source = undefined;
    }
    const top: Record<string, unknown> = { guid: book.id };
    if (isRecord(source)) for (const [k, v] of Object.entries(source)) if (k !== 'guid' && k !== 'answer') top[k] = v;
    const stored = isRecord(source) && isRecord(source.answer) ? source.answer : book.tml ?? {};
    top.answer = this.answerBody(book.name, book.description, book.visualizations[0], stored, fqn);
    return top;
  }

  /**
   * The Liveboard TML of a stored pinboard (https://docs.thoughtspot.com/cloud/latest/tml-liveboards;
   * thoughtspot/thoughtspot_tml `tests/data/DUMMY.liveboard.tml`): `liveboard.name`, `description`,
   * `visualizations` (each an `id` `Viz_<n>`, its `answer` as in an Answer TML, and `viz_guid`, the
   * visualization's GUID) and `layout.tiles` (each visualization a tile of a two-column grid: `x`, `y`,
   * `width`, `height` in the grid's units). Read only: the emulator does not import liveboards.
   */
  liveboardTml(book: AnswerBook, fqn: boolean): Record<string, unknown> {
    const vizId = (i: number): string => `Viz_${i + 1}`;
    return {
      guid: book.id,
      liveboard: {
        name: book.name,
        ...(book.description !== undefined ? { description: book.description } : {}),
        visualizations: book.visualizations.map((viz, i) => ({ id: vizId(i), answer: this.answerBody(viz.name, undefined, viz, viz.formulas ? { formulas: viz.formulas } : {}, fqn), viz_guid: viz.id })),
        layout: { tiles: book.visualizations.map((_, i) => ({ visualization_id: vizId(i), x: (i % 2) * 6, y: Math.floor(i / 2) * 6, height: 6, width: 6 })) },
      },
    };
  }

  /**
   * Imports Answer TML texts (YAML or JSON) under a policy; one result per text, in order. `PARTIAL`
   * (and `PARTIAL_OBJECT`) writes every object that validates, `ALL_OR_NONE` writes nothing when one
   * fails, `VALIDATE_ONLY` writes nothing. An object whose `guid` names an answer updates it, if the user
   * may change it (`target`: MODIFY, and the GUID's object an answer); without one (or with `createNew`) a
   * new answer is created. Throws 403 without DATAMANAGEMENT or ADMINISTRATION, 400 when a text is over a
   * limit of the TML reader (`TML_LIMITS`).
   */
  importAll(user: EmulatorUser, texts: string[], policy: ImportPolicy, createNew: boolean): ImportedTml[] {
    if (!user.privileges.has('DATAMANAGEMENT') && !user.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
    // every text read first, within the one TML reader's limits (common/src/tml/boundedYaml.ts): a text
    // over one refuses the whole request before any is checked, so it costs little and blocks no one
    const docs = texts.map((text, i) => {
      const read = readBoundedYaml(text);
      if (read.exceeded) throw new ApiError(400, `Invalid value for TML object ${i + 1} of ${texts.length}: it has ${read.exceeded.message}.`);
      return read.doc;
    });
    const seen = new Set<string>();
    const checked = docs.map((read, i): ValidAnswer | ValidLiveboard | ValidModel | TmlInvalid => {
      try {
        const v = this.validate(user, read, createNew, policy);
        if (!('liveboard' in v) && !('model' in v)) v.source = texts[i];
        if ('guid' in v && v.guid) {
          if (seen.has(v.guid)) throw new TmlInvalid(`guid ${v.guid} appears twice in this import.`);
          seen.add(v.guid);
        }
        return v;
      } catch (e) {
        if (e instanceof TmlInvalid) return e;
        throw e;
      }
    });
    const failed = checked.some((c) => c instanceof TmlInvalid);
    const write = policy !== 'VALIDATE_ONLY' && !(policy === 'ALL_OR_NONE' && failed);
    const out = checked.map((c): ImportedTml => {
      if (c instanceof TmlInvalid) return { response: { status: { status_code: 'ERROR', error_message: c.message } } };
      if (policy === 'ALL_OR_NONE' && failed) return { response: { status: { status_code: 'ERROR', error_message: NOT_IMPORTED_TEXT }, header: { name: c.name, metadata_type: 'model' in c ? 'LOGICAL_TABLE' : 'QUESTION_ANSWER_BOOK' } } };
      if ('liveboard' in c) return { response: { status: { status_code: 'OK' }, header: { name: c.name, metadata_type: 'PINBOARD_ANSWER_BOOK' } } };
      if ('model' in c) {
        const t = write ? writeModel(this.catalog, c) : c.existing;
        if (write) this.search.invalidate(c.table.id);
        return { response: { status: { status_code: 'OK' }, header: { ...(t ? { id_guid: t.id, author_guid: t.author, owner_guid: t.id } : {}), name: c.name, ...(c.description !== undefined ? { description: c.description } : {}), metadata_type: 'LOGICAL_TABLE' } } };
      }
      const book = write ? this.write(user, c) : c.existing;
      const header = { ...(book ? { id_guid: book.id, author_guid: book.author, owner_guid: book.id } : {}), name: c.name, ...(c.description !== undefined ? { description: c.description } : {}), metadata_type: 'QUESTION_ANSWER_BOOK' as const };
      return { response: { status: { status_code: 'OK' }, header } };
    });
    if (write && checked.some((c) => !(c instanceof TmlInvalid) && !('liveboard' in c))) this.catalog.save();
    return out;
  }

  /**
   * Checks one TML text, read by `readBoundedYaml`; throws TmlInvalid with the reason (a YAML error too). An Answer TML is checked whole; a
   * Liveboard TML only under VALIDATE_ONLY (each visualization's answer as an Answer TML's), since the
   * emulator's liveboards are read only.
   */
  private validate(user: EmulatorUser, read: Document, createNew: boolean, policy: ImportPolicy): ValidAnswer | ValidLiveboard | ValidModel {
    let doc: unknown;
    try {
      if (read.errors.length) throw read.errors[0];
      doc = read.toJS({ maxAliasCount: TML_LIMITS.aliases });
    } catch {
      throw new TmlInvalid(INVALID_SYNTAX_TEXT);
    }
    if (!isRecord(doc)) throw new TmlInvalid(INVALID_SYNTAX_TEXT);
    const answer = doc.answer;
    const board = doc.liveboard ?? doc.pinboard;
    if (!isRecord(answer) && isRecord(board)) return this.validateLiveboard(user, doc, board, policy, createNew);
    if (!isRecord(answer) && (isRecord(doc.worksheet) || isRecord(doc.model))) return validateModelTml(this.catalog, user, doc, createNew ? undefined : guidOf(doc), this.now().getTime(), (m) => new TmlInvalid(m));
    if (!isRecord(answer)) {
      const other = OTHER_TYPES.find((t) => t in doc);
      throw new TmlInvalid(other ? `Only answer TML can be imported into the emulator, not ${other}; worksheet and model TML are imported as models.` : 'The TML names no object: expected the member answer.');
    }
    const guid = createNew ? undefined : guidOf(doc);
    const existing = guid ? this.target(user, guid, 'answer') : undefined;
    const body = this.validateAnswerBody(user, answer, 'answer');
    return { guid, existing, ...body };
  }

  /**
   * The object an import over `guid` would change, when the user may change it: undefined when no object
   * has that GUID (the import creates one with it). A GUID names one object of one type, so a TML of
   * another type than the object's is refused; and changing an object needs MODIFY on it
   * (`MetadataStore.canModify`: its author, an administrator, or a MODIFY share), not READ_ONLY. An object
   * the user may not read is not named. The checks hold under every policy, VALIDATE_ONLY included: it
   * answers what the import would.
   * @throws TmlInvalid with the reason, the ERROR status of this object
   */
  private target(user: EmulatorUser, guid: string, type: 'answer' | 'liveboard'): AnswerBook | undefined {
    const found = this.catalog.objectByGuid(guid);
    if (!found) return undefined;
    const readable = !found.header || this.catalog.canRead(user, found.header);
    if (!readable) throw new TmlInvalid(`guid ${guid} names an object you may not change (it is not shared with you).`);
    if (found.type !== type) throw new TmlInvalid(`guid ${guid} is the ${found.type} ${found.name}, not ${type === 'answer' ? 'an answer' : 'a liveboard'}: a GUID names one object, of one type.`);
    const book = found.header as AnswerBook;
    if (!this.catalog.canModify(user, book)) throw new TmlInvalid(`You may not change the ${type} ${found.name} (${guid}): it is shared with you READ_ONLY; importing over it needs MODIFY (Edit), which its author or an administrator can give.`);
    return book;
  }

  /** A Liveboard TML: read only (LIVEBOARD_READ_ONLY_TEXT) unless VALIDATE_ONLY, which checks each visualization's answer (a note tile has none). */
  private validateLiveboard(user: EmulatorUser, doc: Record<string, unknown>, liveboard: Record<string, unknown>, policy: ImportPolicy, createNew: boolean): ValidLiveboard {
    if (policy !== 'VALIDATE_ONLY') throw new TmlInvalid(LIVEBOARD_READ_ONLY_TEXT);
    const guid = createNew ? undefined : guidOf(doc);
    if (guid) this.target(user, guid, 'liveboard');
    const name = liveboard.name;
    if (typeof name !== 'string' || name.trim() === '') throw new TmlInvalid('liveboard.name is missing: a liveboard needs a name.');
    const vizs = liveboard.visualizations;
    if (!Array.isArray(vizs)) throw new TmlInvalid('liveboard.visualizations must be a list of {id, answer}.');
    vizs.forEach((v, i) => {
      const path = `liveboard.visualizations[${i}]`;
      // a note tile (exported Liveboards hold them: `note_tile` with its HTML, no answer) has no search to check
      if (isRecord(v) && typeof v.id === 'string' && v.answer === undefined && isRecord(v.note_tile)) return;
      if (!isRecord(v) || typeof v.id !== 'string' || !isRecord(v.answer)) throw new TmlInvalid(`${path} needs id and answer (or note_tile).`);
      this.validateAnswerBody(user, v.answer, `${path}.answer (${v.id})`);
    });
    return { liveboard: true, name };
  }

  /** Checks the members of an `answer` (at `path` in the file): name, one readable data source, a search_query the compiler takes. */
  private validateAnswerBody(user: EmulatorUser, answer: Record<string, unknown>, path: string): Omit<ValidAnswer, 'guid' | 'existing'> {
    const name = answer.name;
    if (typeof name !== 'string' || name.trim() === '') throw new TmlInvalid(`${path}.name is missing: an answer needs a name.`);
    const description = answer.description;
    if (description !== undefined && typeof description !== 'string') throw new TmlInvalid(`${path}.description must be a text.`);
    const tables = answer.tables;
    if (!Array.isArray(tables) || tables.length === 0) throw new TmlInvalid(`${path}.tables is missing: name the data source of the search (a worksheet, view or table).`);
    if (tables.length > 1) throw new TmlInvalid(`${path}.tables names ${tables.length} data sources; the emulator runs an answer over one.`);
    const ref = tables[0];
    if (!isRecord(ref)) throw new TmlInvalid(`${path}.tables[0] must be an object with name (and fqn).`);
    const dataSource = this.resolve(ref, path, user.orgId);
    if (!this.catalog.canRead(user, dataSource)) throw new TmlInvalid(`You may not read the data source ${dataSource.name}.`);
    const query = answer.search_query;
    if (typeof query !== 'string' || query.trim() === '') throw new TmlInvalid(`${path}.search_query is missing: an answer needs a search.`);
    try {
      // the answer's formulas are columns of its search (searchdata/formulaColumns.ts)
      this.search.compile(withFormulaColumns(dataSource, answer.formulas), query);
    } catch (e) {
      if (e instanceof QueryError) throw new TmlInvalid(`${path === 'answer' ? '' : `${path}: `}search_query is not valid on ${dataSource.name}: ${e.message}`);
      throw e;
    }
    return { name, description, dataSource, query, kept: { ...answer } };
  }

  /** The data source an Answer TML's `tables` entry (of the answer at `path`) names: `fqn` (a GUID) first, then `name`, then `id`. */
  private resolve(ref: Record<string, unknown>, path: string, orgId: number): LogicalTable {
    for (const k of ['fqn', 'name', 'id'] as const) {
      const v = ref[k];
      if (typeof v !== 'string' || v === '') continue;
      const t = k === 'fqn' ? this.catalog.dataSource(v) : this.catalog.dataSourceByIdOrName(v, orgId);
      if (t) return t;
      if (k === 'fqn') throw new TmlInvalid(`${path}.tables[0].fqn ${v}: no worksheet, view or table has this GUID.`);
    }
    throw new TmlInvalid(`${path}.tables[0]: no worksheet, view or table named ${JSON.stringify(ref.name ?? ref.id ?? '')}.`);
  }

  /** Writes a validated answer: updates the answer of its guid, or creates one. */
  private write(user: EmulatorUser, v: ValidAnswer): AnswerBook {
    const t = this.now().getTime();
    const viz = { name: v.name, dataSource: v.dataSource.id, query: v.query };
    if (v.existing) {
      const b = v.existing;
      b.name = v.name;
      if (v.description !== undefined) b.description = v.description;
      b.visualizations = [{ id: b.visualizations[0]?.id ?? randomUUID(), ...viz }];
      b.tml = v.kept;
      b.tmlSource = v.source;
      b.modified = t;
      b.modifiedBy = user.id;
      return b;
    }
    const id = v.guid ?? randomUUID();
    const b: AnswerBook = {
      id,
      name: v.name,
      ...(v.description !== undefined ? { description: v.description } : {}),
      author: user.id,
      created: t,
      modified: t,
      modifiedBy: user.id,
      tags: [],
      sharedWith: [],
      isAutoCreated: false,
      type: 'QUESTION_ANSWER_BOOK',
      visualizations: [{ id: randomUUID(), ...viz }],
      tml: v.kept,
      ...(v.source !== undefined ? { tmlSource: v.source } : {}),
      orgId: user.orgId,
    };
    this.catalog.state.books.push(b);
    return b;
  }

  /** A stored answer by GUID or name that the user may read, with its visualization and data source. 400 unknown, 403 unreadable. */
  private readableAnswer(user: EmulatorUser, identifier: string): { book: AnswerBook; query: string; ds: LogicalTable } {
    const key = identifier.toLowerCase();
    const books = this.catalog.state.books.filter((b) => b.type === 'QUESTION_ANSWER_BOOK' && this.catalog.orgOf(b) === user.orgId);
    const book = books.find((b) => b.id === key) ?? books.find((b) => b.name.toLowerCase() === key);
    if (!book) throw new ApiError(400, `Invalid metadata_identifier: no answer ${identifier}.`);
    if (!this.catalog.canRead(user, book)) throw new ApiError(403, FORBIDDEN_TEXT);
    const viz = book.visualizations[0];
    const ds = viz && this.catalog.dataSource(viz.dataSource);
    if (!viz || !ds) throw new ApiError(400, `Answer ${book.name}: its data source no longer exists.`);
    if (!this.catalog.canRead(user, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
    try {
      return { book, query: viz.query, ds: withFormulaColumns(ds, book.tml?.formulas) };
    } catch (e) {
      if (e instanceof QueryError) throw new ApiError(400, `Answer ${book.name}: ${e.message}`);
      throw e;
    }
  }

  /**
   * `metadata/answer/data` (OpenAPI `fetchAnswerData`, `AnswerDataResponse`): the answer's rows, which are
   * searchdata of its search_query on its data source, paged as searchdata (`record_offset`, `record_size`).
   */
  async answerData(user: EmulatorUser, identifier: string, page: { format: 'COMPACT' | 'FULL'; offset: number; pageSize: number }): Promise<Record<string, unknown>> {
    const { book, query, ds } = this.readableAnswer(user, identifier);
    const r = await this.search.search(ds, query, { batchsize: page.pageSize, pagenumber: -1, offset: page.offset, formattype: page.format });
    return {
      metadata_id: book.id,
      metadata_name: book.name,
      contents: [{ available_data_row_count: r.totalRowCount, column_names: r.columnNames, data_rows: r.data, record_offset: page.offset, record_size: page.pageSize, returned_data_row_count: r.rowCount, sampling_ratio: r.samplingRatio }],
    };
  }

  /**
   * `metadata/answer/sql`: the SQL the emulator runs for an answer (by GUID or name), its parameters
   * written as literals after it in a comment. 400 for an unknown answer, 403 for one the user may not read.
   */
  answerSql(user: EmulatorUser, identifier: string): Record<string, unknown> {
    const { book, query, ds } = this.readableAnswer(user, identifier);
    const compiled = this.search.compile(ds, query);
    return {
      metadata_id: book.id,
      metadata_name: book.name,
      metadata_type: 'ANSWER',
      sql_queries: [{ metadata_id: book.id, metadata_name: book.name, sql_query: withParams(compiled.sql, compiled.params) }],
    };
  }
}

/**
 * The `answer_columns` of an exported answer: one entry per column of its search (`columns`), each the
 * entry it was imported with when one has its name (`custom_name`, `format`… kept). In the order of the
 * imported entries when they name the same columns, else by name in code-unit order, as most exported
 * files have them (docs/service-notes.md "How the service writes a search_query").
 */
function answerColumnsOf(columns: readonly string[], stored: unknown): { name: string }[] {
  const kept = (Array.isArray(stored) ? stored : []).filter((e): e is { name: string } => isRecord(e) && typeof e.name === 'string');
  const byName = new Map(kept.map((e) => [e.name, e]));
  const same = kept.length === columns.length && byName.size === columns.length && columns.every((c) => byName.has(c));
  const names = same ? kept.map((e) => e.name) : [...new Set(columns)].sort();
  return names.map((n) => byName.get(n) ?? { name: n });
}

/** `stored`'s members in their order with `owned`'s values; an owned member it lacks placed after its predecessor in ANSWER_MEMBER_ORDER. */
function inServiceOrder(stored: Record<string, unknown>, owned: Record<string, unknown>): Record<string, unknown> {
  const entries: [string, unknown][] = Object.entries(stored).map(([k, v]) => [k, k in owned ? owned[k] : v]);
  for (const [k, v] of Object.entries(owned)) {
    if (k in stored) continue;
    const before = ANSWER_MEMBER_ORDER.slice(0, Math.max(0, ANSWER_MEMBER_ORDER.indexOf(k)));
    let at = 0;
    entries.forEach(([e], i) => {
      if (before.includes(e)) at = i + 1;
    });
    entries.splice(at, 0, [k, v]);
  }
  return Object.fromEntries(entries);
}

/** The SQL text followed by its bound parameters (`-- $1 = 'SEA'`), one a line. */
export function withParams(sql: string, params: SqlParam[]): string {
  if (params.length === 0) return sql;
  const lit = (p: SqlParam): string => (typeof p === 'string' ? `'${p.replace(/'/g, "''")}'` : String(p));
  return `${sql}\n${params.map((p, i) => `-- $${i + 1} = ${lit(p)}`).join('\n')}`;
}

/** The `guid` of a TML document, lower case; undefined when it has none. @throws TmlInvalid when it is not a GUID */
function guidOf(doc: Record<string, unknown>): string | undefined {
  if (doc.guid === undefined || doc.guid === null) return undefined;
  if (typeof doc.guid !== 'string' || !isGuid(doc.guid)) throw new TmlInvalid(`guid ${JSON.stringify(doc.guid)} is not a GUID.`);
  return doc.guid.toLowerCase();
}

function failedExport(id: string, name: string, type: string, message: string): ExportedTml {
  return { info: { name, filename: '', status: { status_code: 'ERROR', error_message: message }, type, id }, edoc: '' };
}

/** The read-only TML of a table (`table`, thoughtspot_tml DUMMY.table.tml) or worksheet (`worksheet`, DUMMY.worksheet.tml). */
function tableTml(t: LogicalTable, catalog: MetadataStore): Record<string, unknown> {
  if (t.subtype === 'WORKSHEET') {
    const base = catalog.dataSource(t.tableId);
    const baseName = base?.name ?? t.tableName;
    return {
      guid: t.id,
      worksheet: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        tables: [{ name: baseName }],
        worksheet_columns: t.columns.map((c) => ({
          name: c.name,
          column_id: `${baseName}::${base?.columns.find((b) => b.physicalName === c.physicalName)?.name ?? c.physicalName}`,
          properties: { column_type: c.kind, ...(c.kind === 'MEASURE' ? { aggregation: c.aggregation } : {}), ...(c.synonyms.length ? { synonyms: c.synonyms } : {}) },
          ...(c.description !== undefined ? { description: c.description } : {}),
        })),
      },
    };
  }
  return {
    guid: t.id,
    table: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      db: t.database,
      schema: t.schema,
      db_table: t.tableName,
      columns: t.columns.map((c) => ({
        name: c.name,
        db_column_name: c.physicalName,
        properties: { column_type: c.kind, ...(c.kind === 'MEASURE' ? { aggregation: c.aggregation } : {}), ...(c.synonyms.length ? { synonyms: c.synonyms } : {}) },
        db_column_properties: { data_type: c.dataType },
        ...(c.description !== undefined ? { description: c.description } : {}),
      })),
    },
  };
}
