/**
 * The emulator's metadata: data sources (LOGICAL_TABLEs and their LOGICAL_COLUMNs), answers and
 * pinboards with their visualizations, tags, users and groups with their privileges. Kept in memory and
 * written to `<dataDir>/catalog.json` after every change, so it survives restarts (the file keeps its
 * name, so that existing data directories still load). Named the metadata store so that "catalog" keeps
 * one meaning in this repository (docs/architecture.md, glossary).
 *
 * Object shapes follow docs/service-notes.md §3.1 (object headers) and 3.2 (`metadata/details`).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ColumnDataType } from '../../common/src/model';
import type { ModelFormula, ModelJoin, ModelTablePath } from '../../common/src/tml/modelTml';
import type { EmulatorUser, Privilege } from './context';

/** Every privilege a group can hold (the `Privilege` type of the context, as a list for validation). */
export const PRIVILEGES: readonly Privilege[] = ['ADMINISTRATION', 'DATAMANAGEMENT', 'USERDATAUPLOADING', 'DATADOWNLOADING', 'AUTHORING', 'SHAREWITHALL'];

/** Default aggregation of a column (`defaultAggrType` of docs/service-notes.md §3.2). */
export type DefaultAggr = 'SUM' | 'AVERAGE' | 'MIN' | 'MAX' | 'COUNT' | 'COUNT_DISTINCT' | 'STD_DEVIATION' | 'VARIANCE' | 'NONE';

/** The header members every metadata object shares (docs/service-interface.md §2.4; times in epoch milliseconds, users by GUID). */
export interface Header {
  id: string;
  name: string;
  description?: string;
  /** GUID of the user who owns the object (moved by `user/transfer/ownership`). */
  author: string;
  created: number;
  modified: number;
  modifiedBy: string;
  /** Tag GUIDs. */
  tags: string[];
  /** GUIDs of the groups and users the object is shared with `READ_ONLY` (they may read it). */
  sharedWith: string[];
  /**
   * GUIDs of the groups and users the object is shared with `MODIFY` ("Edit" in the service's UI: they may
   * read and change it, https://developers.thoughtspot.com/docs/access-control-sharing); none in
   * `sharedWith`. Absent is none (catalogs written before share modes).
   */
  sharedWithModify?: string[];
  isAutoCreated: boolean;
  /** The Org the object belongs to (absent: Primary, 0); nothing crosses an Org (orgs.ts). */
  orgId?: number;
}

/** A LOGICAL_COLUMN of a data source; `physicalName` is the column of the DuckDB table it reads. */
export interface LogicalColumn {
  id: string;
  name: string;
  dataType: ColumnDataType;
  kind: 'ATTRIBUTE' | 'MEASURE';
  aggregation: DefaultAggr;
  description?: string;
  synonyms: string[];
  physicalName: string;
  /** A model's column: the table path it reads (`physicalName` is then that path's table's column; `LogicalTable.model`). */
  tablePath?: string;
  /** A model's formula column: the id of its formula (`LogicalTable.model.formulas`); `physicalName` is then empty. */
  formulaId?: string;
  /**
   * A formula column (an answer's `formulas`, emulator/src/searchdata/formulaColumns.ts): its expression,
   * computed by searchdata (formulaSql.ts), and whether it aggregates (then per group of the search).
   */
  formula?: { expr: string; aggregate: boolean };
}

/**
 * What a model (a worksheet over several tables) adds to its LOGICAL_TABLE, in the words of worksheet TML
 * (common/src/tml/modelTml.ts `ModelDefinition`): its tables (`guid` the table's GUID), joins, table
 * paths and formulas.
 */
export interface StoredModel {
  tables: { id: string; guid: string }[];
  joins: ModelJoin[];
  tablePaths: ModelTablePath[];
  formulas: ModelFormula[];
}

/**
 * A LOGICAL_TABLE: a table (`ONE_TO_ONE_LOGICAL`, one per DuckDB table) or a worksheet over one table's
 * columns (`WORKSHEET`). `tableId` is the table's own GUID for a table, the base table's for a worksheet.
 */
export interface LogicalTable extends Header {
  subtype: 'ONE_TO_ONE_LOGICAL' | 'WORKSHEET';
  tableId: string;
  database: string;
  schema: string;
  /** The table name of the target (for a worksheet: the base table's). */
  tableName: string;
  /** Quoted DuckDB name, `"<database>.<schema>"."<table>"` (see emulator/README.md). */
  sqlName: string;
  columns: LogicalColumn[];
  /** A model over several tables (seed `models`, worksheet or model TML import); absent for a table and a one-table worksheet. */
  model?: StoredModel;
  /**
   * Set on an input table (REST API v2 `input-tables/create`, emulator/src/v2/inputTables.ts): the model it
   * is linked to, the names of the columns it took from the model, and the `allowed_values` of its columns.
   */
  inputTable?: { modelId: string; referencedColumns: string[]; allowedValues: Record<string, string[]> };
}

/** A visualization of an answer or pinboard: a name, a data source (GUID) and a `.tsq` query. */
export interface Visualization {
  id: string;
  name: string;
  dataSource: string;
  query: string;
  /** A liveboard visualization's own formulas: its answer's TML `formulas` (columns of its search, searchdata/formulaColumns.ts). */
  formulas?: unknown[];
}

/** An answer (`QUESTION_ANSWER_BOOK`) or a pinboard (`PINBOARD_ANSWER_BOOK`). */
export interface AnswerBook extends Header {
  type: 'QUESTION_ANSWER_BOOK' | 'PINBOARD_ANSWER_BOOK';
  visualizations: Visualization[];
  /** The members of an answer's `answer` as imported (emulator/src/tml/); older stores hold `table`, `chart`, `display_mode` and `formulas` only. */
  tml?: Record<string, unknown>;
  /** The Answer TML text the answer was last imported from: its export keeps the styles written there. */
  tmlSource?: string;
}

/** A tag (`TAG`). */
export type Tag = Header;

/** A stored user: the password is kept only as an scrypt hash (`salt` and `hash` hex). */
export interface StoredUser {
  id: string;
  name: string;
  displayName: string;
  mail?: string;
  salt: string;
  hash: string;
  /** Group GUIDs. */
  groups: string[];
  /** Whether objects can be shared with the user (v2 `visibility`, users/create and update); absent is SHARABLE. */
  visibility?: 'SHARABLE' | 'NON_SHARABLE';
  /** The Orgs the user belongs to (absent: Primary alone); the first is where a login lands unless it names one. */
  orgs?: number[];
  /** True while the password is a built-in demo password (refused on non-loopback addresses). */
  demoPassword?: boolean;
  created: number;
  modified: number;
}

/** A stored group (`USER_GROUP`) and the privileges it grants its users. */
export interface StoredGroup {
  id: string;
  name: string;
  displayName: string;
  /** Set by v2 `groups/{group_identifier}/update` (`description`). */
  description?: string;
  /** Whether objects can be shared with the group (v2 `visibility`; absent is SHARABLE, v1's DEFAULT). */
  visibility?: 'SHARABLE' | 'NON_SHARABLE';
  /**
   * GUIDs of the groups assigned to this one (v2 `sub_group_identifiers`): their members have this group's
   * privileges too ("if you're a member of a sub-group, you would automatically have the privileges of
   * the parent group", https://docs.thoughtspot.com/cloud/latest/groups-privileges).
   */
  subGroups?: string[];
  privileges: Privilege[];
  /** The Org the group belongs to (absent: Primary, 0); its privileges count only there. */
  orgId?: number;
  created: number;
  modified: number;
}

/**
 * An Org of the tenant (OpenAPI `OrgResponse` of thoughtspot/rest-api-sdk: an integer id, a name, a
 * description, a status). Primary (id 0) always exists and is not stored.
 */
export interface StoredOrg {
  id: number;
  name: string;
  description?: string;
  created: number;
  modified: number;
}

/** The id of the Primary Org, which every tenant has and where objects without an Org live. */
export const PRIMARY_ORG_ID = 0;

/** A share mode of `security/metadata/share` (access-control-sharing.adoc); NO_ACCESS removes a share. */
export type ShareMode = 'READ_ONLY' | 'MODIFY' | 'NO_ACCESS';
/** Every share mode, as a list for validation. */
export const SHARE_MODES: readonly ShareMode[] = ['READ_ONLY', 'MODIFY', 'NO_ACCESS'];

/**
 * What a GUID names in the store, in the words of TML's object types (`table`, `worksheet`, `answer`,
 * `liveboard`) and of the principals and tags (`user`, `group`, `tag`); `header` for the objects that have
 * one (data sources, answers, liveboards, tags).
 */
export interface NamedObject {
  type: 'table' | 'worksheet' | 'answer' | 'liveboard' | 'tag' | 'user' | 'group';
  name: string;
  header?: Header;
}

/** The persisted form of the metadata store (`<dataDir>/catalog.json`). */
export interface MetadataState {
  version: 1;
  tables: LogicalTable[];
  books: AnswerBook[];
  tags: Tag[];
  users: StoredUser[];
  groups: StoredGroup[];
  /** The Orgs besides Primary (absent: none). */
  orgs?: StoredOrg[];
}

/** The emulator's metadata store: the objects in memory, with look-ups by GUID and by name (case-insensitive, docs/service-interface.md §8.2). */
export class MetadataStore {
  state: MetadataState;
  private readonly file: string;

  /** Reads `<dataDir>/catalog.json` when it exists; starts empty otherwise. Throws on a corrupt file. */
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.file = join(dataDir, 'catalog.json');
    this.state = existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as MetadataState)
      : { version: 1, tables: [], books: [], tags: [], users: [], groups: [] };
  }

  /** Writes the store atomically (temporary file, then rename). */
  save(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 1));
    renameSync(tmp, this.file);
  }

  /** A LOGICAL_TABLE (table or worksheet) by GUID. */
  dataSource(id: string): LogicalTable | undefined {
    const k = id.toLowerCase();
    return this.state.tables.find((t) => t.id === k);
  }

  /** A data source by GUID or, failing that, by name (case-insensitive; among those of `orgId` when given). */
  dataSourceByIdOrName(idOrName: string, orgId?: number): LogicalTable | undefined {
    const k = idOrName.toLowerCase();
    return this.state.tables.find((t) => t.id === k) ?? this.state.tables.find((t) => t.name.toLowerCase() === k && (orgId === undefined || this.orgOf(t) === orgId));
  }

  /** The physical table (ONE_TO_ONE_LOGICAL) of a target; schema defaults to `engine_default_schema` (docs/service-interface.md §2.2). */
  table(database: string, schema: string | undefined, name: string): LogicalTable | undefined {
    const s = (schema ?? 'engine_default_schema').toLowerCase();
    return this.state.tables.find(
      (t) => t.subtype === 'ONE_TO_ONE_LOGICAL' && t.database.toLowerCase() === database.toLowerCase() && t.schema.toLowerCase() === s && t.tableName.toLowerCase() === name.toLowerCase(),
    );
  }

  book(id: string): AnswerBook | undefined {
    return this.state.books.find((b) => b.id === id.toLowerCase());
  }

  userByName(name: string): StoredUser | undefined {
    return this.state.users.find((u) => u.name.toLowerCase() === name.toLowerCase());
  }

  storedUser(id: string): StoredUser | undefined {
    return this.state.users.find((u) => u.id === id);
  }

  groupByName(name: string): StoredGroup | undefined {
    return this.state.groups.find((g) => g.name.toLowerCase() === name.toLowerCase());
  }

  /**
   * The GUIDs of the groups `groupIds` and of every group above them (a group whose `subGroups` holds one of
   * them, and so on up), each once; a GUID of no group is left out.
   */
  groupsWithParents(groupIds: readonly string[]): string[] {
    const out = new Set<string>();
    const todo = [...groupIds];
    for (let gid = todo.pop(); gid !== undefined; gid = todo.pop()) {
      if (out.has(gid) || !this.state.groups.some((g) => g.id === gid)) continue;
      out.add(gid);
      for (const parent of this.state.groups) if (parent.subGroups?.includes(gid)) todo.push(parent.id);
    }
    return [...out];
  }

  /** Every Org, Primary first (`StoredOrg`). */
  orgs(): StoredOrg[] {
    return [{ id: PRIMARY_ORG_ID, name: 'Primary', description: 'Primary Org', created: 0, modified: 0 }, ...(this.state.orgs ?? [])];
  }

  /** An Org by id (a number, or digits) or by name (case-insensitive), or undefined. */
  org(idOrName: string | number): StoredOrg | undefined {
    const text = String(idOrName).trim();
    const all = this.orgs();
    if (/^\d+$/.test(text)) return all.find((o) => o.id === Number(text));
    return all.find((o) => o.name.toLowerCase() === text.toLowerCase());
  }

  /** The Org of an object or group (absent: Primary). */
  orgOf(x: { orgId?: number }): number {
    return x.orgId ?? PRIMARY_ORG_ID;
  }

  /** The Orgs a stored user belongs to (absent: Primary alone). */
  orgsOfUser(u: StoredUser): number[] {
    return u.orgs ?? [PRIMARY_ORG_ID];
  }

  /** The groups of one Org. */
  groupsIn(orgId: number): StoredGroup[] {
    return this.state.groups.filter((g) => this.orgOf(g) === orgId);
  }

  /** The tags of one Org. */
  tagsIn(orgId: number): Tag[] {
    return this.state.tags.filter((t) => this.orgOf(t) === orgId);
  }

  /** The users of one Org. */
  usersIn(orgId: number): StoredUser[] {
    return this.state.users.filter((u) => this.orgsOfUser(u).includes(orgId));
  }

  /** The privileges a user's groups of one Org (and the groups above them) grant, ADMINISTRATION implying every privilege. */
  private privilegesIn(u: StoredUser, orgId: number): Set<Privilege> {
    const privileges = new Set<Privilege>();
    for (const gid of this.groupsWithParents(u.groups)) {
      const g = this.state.groups.find((x) => x.id === gid);
      if (g && this.orgOf(g) === orgId) for (const p of g.privileges) privileges.add(p);
    }
    if (privileges.has('ADMINISTRATION')) for (const p of PRIVILEGES) privileges.add(p);
    return privileges;
  }

  /**
   * True when the user administers every Org: ADMINISTRATION through a group of Primary (the tenant's
   * administrator, docs.thoughtspot.com cloud/latest/orgs-overview). It may act in any Org.
   */
  administersAllOrgs(u: StoredUser): boolean {
    return this.privilegesIn(u, PRIMARY_ORG_ID).has('ADMINISTRATION');
  }

  /**
   * The Org a session of the user runs in when it names none: Primary when the user belongs to it,
   * else the first of its Orgs.
   */
  defaultOrgOf(u: StoredUser): number {
    const orgs = this.orgsOfUser(u);
    return orgs.includes(PRIMARY_ORG_ID) ? PRIMARY_ORG_ID : (orgs[0] ?? PRIMARY_ORG_ID);
  }

  /** The Orgs the user may act in: its own, or every Org for an administrator of all (`administersAllOrgs`). */
  orgsAvailableTo(u: StoredUser): StoredOrg[] {
    if (this.administersAllOrgs(u)) return this.orgs();
    const mine = this.orgsOfUser(u);
    return this.orgs().filter((o) => mine.includes(o.id));
  }

  /**
   * The user acting in one Org (default: `defaultOrgOf`), with the privileges of its groups of that Org
   * and of their parent groups as they are now (ADMINISTRATION implies every privilege); an administrator
   * of all Orgs has ADMINISTRATION in each. Undefined when there is no such user, or the user may not act
   * in that Org (`orgsAvailableTo`), or the Org does not exist.
   */
  user(id: string, orgId?: number): EmulatorUser | undefined {
    const u = this.storedUser(id);
    if (!u) return undefined;
    const org = orgId ?? this.defaultOrgOf(u);
    if (!this.orgsAvailableTo(u).some((o) => o.id === org)) return undefined;
    const privileges = this.privilegesIn(u, org);
    if (this.administersAllOrgs(u)) for (const p of PRIVILEGES) privileges.add(p);
    return { id: u.id, name: u.name, displayName: u.displayName, privileges, orgId: org };
  }

  /**
   * The one object a GUID names, whatever its type (a GUID names one object: emulator/src/tml/ refuses a
   * TML whose type is not that object's), or undefined.
   */
  objectByGuid(id: string): NamedObject | undefined {
    const k = id.toLowerCase();
    const st = this.state;
    const table = st.tables.find((t) => t.id === k);
    if (table) return { type: table.subtype === 'WORKSHEET' ? 'worksheet' : 'table', name: table.name, header: table };
    const book = st.books.find((b) => b.id === k);
    if (book) return { type: book.type === 'PINBOARD_ANSWER_BOOK' ? 'liveboard' : 'answer', name: book.name, header: book };
    const tag = st.tags.find((t) => t.id === k);
    if (tag) return { type: 'tag', name: tag.name, header: tag };
    const user = st.users.find((u) => u.id === k);
    if (user) return { type: 'user', name: user.name };
    const group = st.groups.find((g) => g.id === k);
    return group ? { type: 'group', name: group.name } : undefined;
  }

  /** The principals a user acts as in sharing: itself, its groups and every group above them. */
  private principalsOf(user: EmulatorUser): string[] {
    return [user.id, ...this.groupsWithParents(this.storedUser(user.id)?.groups ?? [])];
  }

  /**
   * True when the user may read the object: it is of the Org the user acts in, and the user is an administrator, its author, or a user or group (its own, or
   * one above it) it is shared with, READ_ONLY or MODIFY (docs/service-interface.md §5;
   * https://developers.thoughtspot.com/docs/access-control-sharing).
   */
  canRead(user: EmulatorUser, obj: Header): boolean {
    if (this.orgOf(obj) !== user.orgId) return false;
    if (this.canModify(user, obj)) return true;
    const as = this.principalsOf(user);
    return obj.sharedWith.some((s) => as.includes(s));
  }

  /**
   * True when the user may change the object (import a TML over it, share it): it is of the Org the user
   * acts in, and the user is an administrator, its
   * author, or a user or group (its own, or one above it) it is shared with MODIFY. READ_ONLY is not
   * enough ("READ_ONLY access grants view access to the shared object, whereas MODIFY provides edit
   * access", OpenAPI `shareMetadata` of thoughtspot/rest-api-sdk).
   */
  canModify(user: EmulatorUser, obj: Header): boolean {
    if (this.orgOf(obj) !== user.orgId) return false;
    if (user.privileges.has('ADMINISTRATION') || obj.author === user.id) return true;
    const as = this.principalsOf(user);
    return (obj.sharedWithModify ?? []).some((s) => as.includes(s));
  }

  /**
   * Shares an object with one principal (a user's or group's GUID) under `mode`, replacing the share it
   * had: READ_ONLY or MODIFY, or NO_ACCESS to remove it (access-control-sharing.adoc). The caller saves.
   */
  share(obj: Header, principal: string, mode: ShareMode): void {
    obj.sharedWith = obj.sharedWith.filter((s) => s !== principal);
    const modify = (obj.sharedWithModify ?? []).filter((s) => s !== principal);
    if (mode === 'READ_ONLY') obj.sharedWith.push(principal);
    if (mode === 'MODIFY') modify.push(principal);
    if (modify.length > 0) obj.sharedWithModify = modify;
    else delete obj.sharedWithModify;
  }
}
