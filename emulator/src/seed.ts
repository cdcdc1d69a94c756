/**
 * Seeding: the `--seed DIR` folder (`DIR/model.json`, format in emulator/model.schema.json and
 * emulator/README.md) and the built-in `--demo` seed (emulator/src/demo.ts) are applied the same way.
 *
 * Seeding only adds what is missing: an object whose stable GUID (guid.ts) is already in the catalog
 * is left as it is, and a table that already exists in DuckDB keeps its rows. So committed loads,
 * changed passwords and privileges persist across restarts with the same `--seed`/`--demo`.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { ColumnDataType } from '../../common/src/model';
import { COLUMN_DATA_TYPES } from '../../common/src/model';
import { hashPassword } from './auth';
import type { AnswerBook, MetadataStore, DefaultAggr, Header, LogicalColumn, StoredUser } from './metadataStore';
import { PRIMARY_ORG_ID, PRIVILEGES } from './metadataStore';
import type { Privilege } from './context';
import type { Engine } from './engine';
import { DUCKDB_TYPE, dataTypeOfDuckDb, isNumeric, quoteIdent, quoteLiteral, sqlTableName } from './engine';
import { stableGuid } from './guid';
import { validateSeedModel } from './seedSchema';
import { modelDefinitionOf } from '../../common/src/tml/modelTml';
import { buildModel } from './dataModel';
import { withFormulaColumns } from './searchdata/formulaColumns';
import { messageOf } from '../../common/src/guards';

/** A column of a seed table. `kind` defaults to MEASURE for numeric types, ATTRIBUTE otherwise. */
export interface SeedColumn {
  name: string;
  dataType: ColumnDataType;
  kind?: 'ATTRIBUTE' | 'MEASURE';
  /** Default aggregation of a MEASURE (default SUM); NONE for attributes. */
  aggregation?: DefaultAggr;
  description?: string;
  synonyms?: string[];
}

/** Members shared by every seed object that has a header. */
export interface SeedObject {
  name: string;
  description?: string;
  /** Tag names. */
  tags?: string[];
  /** Names of the groups and users the object is shared with READ_ONLY (they may read it). */
  sharedWith?: string[];
  /** Names of the groups and users the object is shared with MODIFY (they may also change it: `Header.sharedWithModify`). */
  sharedWithModify?: string[];
  /** User name of the author (default: the first user of an administrator group). */
  author?: string;
  /** Name of the Org the object belongs to (declared in `SeedModel.orgs`, or Primary, the default). */
  org?: string;
}

/** A table (LOGICAL_TABLE, subtype ONE_TO_ONE_LOGICAL). Columns are inferred from `csv` when omitted. */
export interface SeedTable extends SeedObject {
  database: string;
  schema?: string;
  columns?: SeedColumn[];
  /** CSV file (with a header row) relative to the seed folder. */
  csv?: string;
  /** Internal (demo only, never read from model.json): a DuckDB SELECT giving the rows. */
  select?: string;
}

/** A worksheet over one table's columns; a column entry is a column name or a renaming. */
export interface SeedWorksheet extends SeedObject {
  /** The table: its name, or `database.schema.table`. */
  table: string;
  /** Columns of the worksheet (default: all of the table's). */
  columns?: (string | { name: string; column?: string; kind?: 'ATTRIBUTE' | 'MEASURE'; aggregation?: DefaultAggr; description?: string; synonyms?: string[] })[];
}

/**
 * A model over several tables, in the members of worksheet TML (common/src/tml/modelTml.ts): `tables`
 * (each a `name`, or `database.schema.table`, with an optional `id` the joins and paths name), `joins`
 * (`name`, `source`, `destination`, `type`, `on: "[source::column] = [destination::column]"`),
 * `table_paths` (`id`, `table`, `join_path: [{join: [names…]}]`), `formulas` (`id`, `name`, `expr`) and
 * `columns` (`name`, `column_id: <table_path>::<column>` or `formula_id`, `description`, `properties`).
 */
export interface SeedDataModel extends SeedObject {
  tables: { name: string; id?: string }[];
  joins?: { name: string; source: string; destination: string; type?: 'INNER' | 'LEFT_OUTER' | 'RIGHT_OUTER' | 'OUTER'; on: string }[];
  table_paths?: { id: string; table: string; join_path?: { join?: string[] }[] }[];
  formulas?: { id: string; name: string; expr: string; properties?: { column_type?: 'ATTRIBUTE' | 'MEASURE'; aggregation?: DefaultAggr } }[];
  columns: { name: string; column_id?: string; formula_id?: string; description?: string; properties?: { column_type?: 'ATTRIBUTE' | 'MEASURE'; aggregation?: DefaultAggr; synonyms?: string[] } }[];
}

/**
 * An answer or a pinboard: visualizations that are a name, a data source (name or GUID), a `.tsq` query and
 * the formulas of its answer (Answer TML `formulas`), columns the query may name.
 */
export interface SeedBook extends SeedObject {
  visualizations: { name: string; dataSource: string; query: string; formulas?: NonNullable<SeedDataModel['formulas']> }[];
}

/** The seed folder's `model.json`. */
export interface SeedModel {
  /** Orgs besides Primary; an id not given is derived from the name (`stableOrgId`). */
  orgs?: { name: string; id?: number; description?: string }[];
  tables?: SeedTable[];
  worksheets?: SeedWorksheet[];
  models?: SeedDataModel[];
  answers?: SeedBook[];
  pinboards?: SeedBook[];
  tags?: (string | { name: string; description?: string; org?: string })[];
  groups?: { name: string; displayName?: string; privileges?: Privilege[]; org?: string }[];
  users?: { name: string; displayName?: string; password: string; mail?: string; groups?: string[]; orgs?: string[] }[];
}

/** Options of `applySeed`. */
export interface ApplySeedOptions {
  /** Folder that `csv` paths are relative to. */
  baseDir?: string;
  /** Marks the users' passwords as demo passwords (refused on non-loopback addresses). */
  demo?: boolean;
  /** Clock for created/modified (epoch ms). */
  now: number;
}

/**
 * Reads `DIR/model.json` and checks it against emulator/model.schema.json (`validateSeedModel`).
 * Throws an Error naming the problem for a missing file, a file that is not JSON, or a model the schema refuses.
 */
export function readSeedFolder(dir: string): SeedModel {
  const file = join(dir, 'model.json');
  let model: unknown;
  try {
    model = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read the seed model ${file}: ${messageOf(e)}`, { cause: e });
  }
  validateSeedModel(model, file);
  return model as SeedModel;
}

function check(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(`seed: ${msg}`);
}

/**
 * Adds the model's groups and users (passwords hashed), or, when there is no user at all, the built-in
 * administrator tsadmin / admin. Returns the user who authors what the seed adds (an administrator).
 * Throws an Error naming the group or user for an unknown privilege or group.
 */
async function seedPrincipals(catalog: MetadataStore, model: SeedModel, opts: ApplySeedOptions): Promise<StoredUser> {
  const st = catalog.state;
  const now = opts.now;
  for (const o of model.orgs ?? []) {
    const id = o.id ?? stableOrgId(o.name);
    check(!catalog.org(o.name) || catalog.org(o.name)!.id === id, `org ${o.name}: the name is taken`);
    check(!catalog.org(id) || catalog.org(id)!.name.toLowerCase() === o.name.toLowerCase(), `org ${o.name}: the id ${id} is another Org's`);
    if (!catalog.org(id)) (st.orgs ??= []).push({ id, name: o.name, ...(o.description !== undefined ? { description: o.description } : {}), created: now, modified: now });
  }
  for (const g of model.groups ?? []) {
    check(g.name, 'a group needs a name');
    for (const p of g.privileges ?? []) check(PRIVILEGES.includes(p), `group ${g.name}: unknown privilege ${p}`);
    const id = stableGuid('group', g.name);
    const orgId = seedOrgId(catalog, g.org, `group ${g.name}`);
    if (!st.groups.some((x) => x.id === id)) st.groups.push({ id, name: g.name, displayName: g.displayName ?? g.name, privileges: [...(g.privileges ?? [])], ...(orgId ? { orgId } : {}), created: now, modified: now });
  }
  for (const u of model.users ?? []) {
    check(u.name && typeof u.password === 'string', 'a user needs a name and a password');
    const id = stableGuid('user', u.name);
    if (st.users.some((x) => x.id === id)) continue;
    const groups = (u.groups ?? []).map((n) => {
      const g = catalog.groupByName(n);
      check(g, `user ${u.name}: unknown group ${n}`);
      return g.id;
    });
    const orgs = u.orgs?.map((o) => seedOrgId(catalog, o, `user ${u.name}`));
    st.users.push({ id, name: u.name, displayName: u.displayName ?? u.name, mail: u.mail, ...(await hashPassword(u.password)), groups, ...(orgs ? { orgs } : {}), demoPassword: opts.demo || undefined, created: now, modified: now });
  }
  if (st.users.length === 0) {
    // A seed without users still needs someone to log in: the built-in administrator tsadmin / admin.
    const gid = stableGuid('group', 'Administrator');
    if (!st.groups.some((g) => g.id === gid)) st.groups.push({ id: gid, name: 'Administrator', displayName: 'Administrator', privileges: ['ADMINISTRATION'], created: now, modified: now });
    st.users.push({ id: stableGuid('user', 'tsadmin'), name: 'tsadmin', displayName: 'Administrator', ...(await hashPassword('admin')), groups: [gid], demoPassword: true, created: now, modified: now });
  }
  return st.users.find((u) => catalog.user(u.id)?.privileges.has('ADMINISTRATION')) ?? st.users[0]!;
}

/**
 * Applies a seed model to the catalog and the engine (adds what is missing, see the module comment).
 * Throws an Error naming the object for an invalid model (unknown data type, privilege, group, table…).
 */
export async function applySeed(catalog: MetadataStore, engine: Engine, model: SeedModel, opts: ApplySeedOptions): Promise<void> {
  const st = catalog.state;
  const now = opts.now;
  const admin = await seedPrincipals(catalog, model, opts);

  // a tag is one Org's: the same name in two Orgs is two tags (Primary's keeps the GUID it always had)
  const tagId = (name: string, orgId: number): string => {
    const id = orgId === PRIMARY_ORG_ID ? stableGuid('tag', name) : stableGuid('tag', String(orgId), name);
    if (!st.tags.some((t) => t.id === id)) st.tags.push({ id, name, author: admin.id, created: now, modified: now, modifiedBy: admin.id, tags: [], sharedWith: [], isAutoCreated: false, ...(orgId ? { orgId } : {}) });
    return id;
  };
  for (const t of model.tags ?? []) {
    const name = typeof t === 'string' ? t : t.name;
    const id = tagId(name, typeof t === 'string' ? PRIMARY_ORG_ID : seedOrgId(catalog, t.org, `tag ${name}`));
    if (typeof t !== 'string' && t.description) st.tags.find((x) => x.id === id)!.description = t.description;
  }
  const header = (o: SeedObject, id: string): Header => {
    const orgId = seedOrgId(catalog, o.org, o.name);
    const author = o.author ? catalog.userByName(o.author) : admin;
    check(author, `${o.name}: unknown author ${o.author}`);
    const principals = (member: 'sharedWith' | 'sharedWithModify'): string[] =>
      (o[member] ?? []).map((n) => {
        const p = catalog.groupByName(n) ?? catalog.userByName(n);
        check(p, `${o.name}: ${member} names unknown group or user ${n}`);
        return p.id;
      });
    const sharedWithModify = principals('sharedWithModify');
    const sharedWith = principals('sharedWith');
    const both = (o.sharedWith ?? []).find((_, i) => sharedWithModify.includes(sharedWith[i]!));
    check(both === undefined, `${o.name}: ${both} is in both sharedWith and sharedWithModify; name it once, in the member of its share mode`);
    return {
      id,
      name: o.name,
      ...(o.description !== undefined ? { description: o.description } : {}),
      author: author.id,
      created: now,
      modified: now,
      modifiedBy: author.id,
      tags: (o.tags ?? []).map((t) => tagId(t, orgId)),
      sharedWith,
      ...(sharedWithModify.length > 0 ? { sharedWithModify } : {}),
      isAutoCreated: false,
      ...(orgId ? { orgId } : {}),
    };
  };

  for (const t of model.tables ?? []) {
    check(t.name && t.database, 'a table needs a database and a name');
    const schema = t.schema ?? 'engine_default_schema';
    const id = stableGuid('table', t.database, schema, t.name);
    if (st.tables.some((x) => x.id === id)) continue;
    const columns = await createTable(engine, t, schema, opts.baseDir);
    const sqlName = sqlTableName(t.database, schema, t.name);
    st.tables.push({
      ...header(t, id),
      subtype: 'ONE_TO_ONE_LOGICAL',
      tableId: id,
      database: t.database,
      schema,
      tableName: t.name,
      sqlName,
      columns: columns.map((c) => logicalColumn(id, c, c.name)),
    });
  }

  for (const w of model.worksheets ?? []) {
    const id = stableGuid('worksheet', w.name);
    if (st.tables.some((x) => x.id === id)) continue;
    const wOrg = seedOrgId(catalog, w.org, `worksheet ${w.name}`);
    const base = st.tables.find((t) => t.subtype === 'ONE_TO_ONE_LOGICAL' && catalog.orgOf(t) === wOrg && (t.name.toLowerCase() === w.table.toLowerCase() || `${t.database}.${t.schema}.${t.tableName}`.toLowerCase() === w.table.toLowerCase()));
    check(base, `worksheet ${w.name}: unknown table ${w.table}`);
    const entries = w.columns ?? base.columns.map((c) => c.name);
    const columns = entries.map((e) => {
      const spec = typeof e === 'string' ? { name: e } : e;
      const src = base.columns.find((c) => c.name.toLowerCase() === (spec.column ?? spec.name).toLowerCase());
      check(src, `worksheet ${w.name}: table ${base.name} has no column ${spec.column ?? spec.name}`);
      return logicalColumn(id, { ...src, ...spec, dataType: src.dataType, kind: spec.kind ?? src.kind, aggregation: spec.aggregation ?? (spec.kind ? undefined : src.aggregation), description: spec.description ?? src.description, synonyms: spec.synonyms ?? src.synonyms }, src.physicalName);
    });
    checkUniqueNames(w.name, columns);
    st.tables.push({ ...header(w, id), subtype: 'WORKSHEET', tableId: base.id, database: base.database, schema: base.schema, tableName: base.tableName, sqlName: base.sqlName, columns });
  }

  seedModels(catalog, model.models ?? [], header);

  seedBooks(catalog, model, header);
  catalog.save();
}

/**
 * Adds the seed's answers and pinboards that are missing: each visualization on its data source, with the
 * formulas of its answer checked against it (an answer keeps them as its TML's, a pinboard visualization as
 * its own). Throws an Error naming the book and visualization of an unknown data source or a wrong formula.
 */
function seedBooks(catalog: MetadataStore, model: SeedModel, header: (o: SeedObject, id: string) => Header): void {
  for (const [list, type] of [[model.answers, 'QUESTION_ANSWER_BOOK'], [model.pinboards, 'PINBOARD_ANSWER_BOOK']] as const) {
    for (const b of list ?? []) {
      const id = stableGuid(type === 'QUESTION_ANSWER_BOOK' ? 'answer' : 'pinboard', b.name);
      if (catalog.state.books.some((x) => x.id === id)) continue;
      const book: AnswerBook = {
        ...header(b, id),
        type,
        visualizations: (b.visualizations ?? []).map((v) => {
          const ds = catalog.dataSourceByIdOrName(v.dataSource, seedOrgId(catalog, b.org, b.name));
          check(ds, `${b.name}: visualization ${v.name} names unknown data source ${v.dataSource}`);
          if (v.formulas?.length) {
            try {
              withFormulaColumns(ds, v.formulas);
            } catch (e) {
              throw new Error(`${b.name}: visualization ${v.name}: ${messageOf(e)}`, { cause: e });
            }
          }
          // an answer's formulas are its TML's (its one visualization), a liveboard visualization's its own
          const formulas = v.formulas?.length && type === 'PINBOARD_ANSWER_BOOK' ? { formulas: v.formulas } : {};
          return { id: stableGuid('viz', id, v.name), name: v.name, dataSource: ds.id, query: v.query, ...formulas };
        }),
        ...(type === 'QUESTION_ANSWER_BOOK' && b.visualizations[0]?.formulas?.length ? { tml: { formulas: b.visualizations[0].formulas } } : {}),
      };
      catalog.state.books.push(book);
    }
  }
}

/** Adds the seed's models that are missing (dataModel.ts `buildModel`). Throws an Error naming the model and each problem of its definition. */
function seedModels(catalog: MetadataStore, models: readonly SeedDataModel[], header: (o: SeedObject, id: string) => Header): void {
  for (const m of models) {
    const id = stableGuid('worksheet', m.name);
    if (catalog.state.tables.some((x) => x.id === id)) continue;
    const { name, description, tables, joins, table_paths, formulas, columns } = m;
    const def = modelDefinitionOf({ worksheet: { name, description, tables, joins, table_paths, formulas, worksheet_columns: columns } });
    try {
      catalog.state.tables.push(buildModel(catalog, def, header(m, id)));
    } catch (e) {
      throw new Error(`seed: ${messageOf(e)}`, { cause: e });
    }
  }
}

/** A stable Org id from its name: a positive 31-bit integer (the service's ids are `int32`), never 0 (Primary). */
export function stableOrgId(name: string): number {
  const n = parseInt(stableGuid('org', name.toLowerCase()).replace(/-/g, '').slice(0, 8), 16) & 0x7fffffff;
  return n === 0 ? 1 : n;
}

/** The id of the Org a seed entry names (absent: Primary). @throws Error naming `what` for an Org the seed does not declare */
function seedOrgId(catalog: MetadataStore, name: string | undefined, what: string): number {
  if (name === undefined) return PRIMARY_ORG_ID;
  const org = catalog.org(name);
  check(org && !/^\d+$/.test(name), `${what}: unknown org ${name} (declare it in orgs)`);
  return org.id;
}

function logicalColumn(owner: string, c: { name: string; dataType: ColumnDataType; kind?: 'ATTRIBUTE' | 'MEASURE'; aggregation?: DefaultAggr; description?: string; synonyms?: string[] }, physicalName: string): LogicalColumn {
  check(COLUMN_DATA_TYPES.includes(c.dataType), `column ${c.name}: unknown dataType ${c.dataType}`);
  check(!/[[\]]/.test(c.name), `column ${c.name}: names cannot contain [ or ] (docs/service-interface.md §8.4)`);
  const kind = c.kind ?? (isNumeric(c.dataType) ? 'MEASURE' : 'ATTRIBUTE');
  return {
    id: stableGuid('column', owner, c.name),
    name: c.name,
    dataType: c.dataType,
    kind,
    aggregation: kind === 'MEASURE' ? (c.aggregation && c.aggregation !== 'NONE' ? c.aggregation : 'SUM') : 'NONE',
    ...(c.description !== undefined ? { description: c.description } : {}),
    synonyms: c.synonyms ?? [],
    physicalName,
  };
}

function checkUniqueNames(owner: string, cols: { name: string }[]): void {
  const seen = new Set<string>();
  for (const c of cols) {
    check(!seen.has(c.name.toLowerCase()), `${owner}: column names must be unique ignoring case (docs/service-interface.md §8.3): ${c.name}`);
    seen.add(c.name.toLowerCase());
  }
}

/** Creates the DuckDB table of a seed table unless it exists; returns its columns (declared or inferred). */
async function createTable(engine: Engine, t: SeedTable, schema: string, baseDir: string | undefined): Promise<SeedColumn[]> {
  const name = sqlTableName(t.database, schema, t.name);
  const c = await engine.connect();
  try {
    await c.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(`${t.database}.${schema}`)}`);
    const exists = (await c.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE schema_name = $1 AND table_name = $2`, [`${t.database}.${schema}`, t.name])).getRows()[0]![0];
    let source: string | undefined;
    if (t.csv) {
      check(baseDir, `table ${t.name}: csv needs a seed folder`);
      const path = isAbsolute(t.csv) ? t.csv : resolve(baseDir, t.csv);
      check(!relative(resolve(baseDir), path).startsWith('..'), `table ${t.name}: csv ${t.csv} is outside the seed folder`);
      source = `SELECT * FROM read_csv(${quoteLiteral(path)}, header = true, auto_detect = true)`;
    } else if (t.select) source = t.select;
    if (!Number(exists)) {
      if (t.columns) {
        checkUniqueNames(t.name, t.columns);
        for (const col of t.columns) check(COLUMN_DATA_TYPES.includes(col.dataType), `table ${t.name}, column ${col.name}: unknown dataType ${col.dataType}`);
        await c.run(`CREATE TABLE ${name} (${t.columns.map((col) => `${quoteIdent(col.name)} ${DUCKDB_TYPE[col.dataType]}`).join(', ')})`);
        if (source) await c.run(`INSERT INTO ${name} ${source}`);
      } else {
        check(source, `table ${t.name}: give columns or a csv file`);
        await c.run(`CREATE TABLE ${name} AS ${source}`);
      }
    }
    if (t.columns) return t.columns;
    const described = (await c.runAndReadAll(`DESCRIBE ${name}`)).getRowObjectsJson() as { column_name: string; column_type: string }[];
    const cols = described.map((d) => ({ name: d.column_name, dataType: dataTypeOfDuckDb(d.column_type) }));
    checkUniqueNames(t.name, cols);
    return cols;
  } finally {
    c.closeSync();
  }
}
