/**
 * Worksheet and Model TML of the emulator's models (dataModel.ts): export as worksheet TML (`tables`,
 * `joins`, `table_paths`, `formulas`, `worksheet_columns`: the one form that writes two paths to one table,
 * thoughtspot/developer-docs modify-tml.adoc "Worksheets"), import of a worksheet or model TML
 * (`modelDefinitionOf`, checked by `checkModelDefinition` against the catalog's tables). An import over
 * the GUID of a model changes it (MODIFY needed); without one, or with `create_new`, it creates one.
 */
import { randomUUID } from 'node:crypto';
import { memberPathText, modelDefinitionOf, ModelTmlError, type ModelDefinition } from '../../../common/src/tml/modelTml';
import type { EmulatorUser } from '../context';
import { buildModel, ModelDefinitionError } from '../dataModel';
import { PRIMARY_ORG_ID, type LogicalTable, type MetadataStore } from '../metadataStore';

/** A worksheet or model TML that validated: what an import writes. */
export interface ValidModel {
  model: true;
  guid?: string;
  existing?: LogicalTable;
  name: string;
  description?: string;
  /** The LOGICAL_TABLE it builds (its header the existing one's, or new). */
  table: LogicalTable;
}

/**
 * Checks a worksheet or model TML document for an import by `user`. Throws `invalid(message)` for a
 * document that cannot be read, a definition with problems (each named with its place in the TML), a GUID
 * of another object or one the user may not change.
 */
export function validateModelTml(catalog: MetadataStore, user: EmulatorUser, doc: Record<string, unknown>, guid: string | undefined, now: number, invalid: (message: string) => Error): ValidModel {
  let def: ModelDefinition;
  try {
    def = modelDefinitionOf(doc);
  } catch (e) {
    if (e instanceof ModelTmlError) throw invalid(`${memberPathText(e.path)}: ${e.message}.`);
    throw e;
  }
  const found = guid ? catalog.objectByGuid(guid) : undefined;
  let existing: LogicalTable | undefined;
  if (found) {
    const t = catalog.dataSource(guid!);
    if (!t?.model) throw invalid(`guid ${guid} is the ${found.type} ${found.name}, not a model: a GUID names one object, of one type.`);
    if (!catalog.canModify(user, t)) throw invalid(`You may not change the model ${t.name} (${guid}): importing over it needs MODIFY (Edit).`);
    existing = t;
  }
  const header = existing
    ? { id: existing.id, name: def.name, author: existing.author, created: existing.created, modified: now, modifiedBy: user.id, tags: existing.tags, sharedWith: existing.sharedWith, ...(existing.sharedWithModify ? { sharedWithModify: existing.sharedWithModify } : {}), isAutoCreated: false, ...(existing.orgId !== undefined ? { orgId: existing.orgId } : {}) }
    // a new model belongs to the Org the import runs in (nothing crosses an Org)
    : { id: guid ?? randomUUID(), name: def.name, author: user.id, created: now, modified: now, modifiedBy: user.id, tags: [], sharedWith: [], isAutoCreated: false, ...(user.orgId !== PRIMARY_ORG_ID ? { orgId: user.orgId } : {}) };
  for (const t of def.tables) {
    const table = catalog.state.tables.find((x) => x.subtype === 'ONE_TO_ONE_LOGICAL' && (x.id === t.fqn?.toLowerCase() || x.name.toLowerCase() === t.name.toLowerCase()));
    if (table && !catalog.canRead(user, table)) throw invalid(`You may not read the table ${table.name}.`);
  }
  try {
    return { model: true, guid, existing, name: def.name, ...(def.description !== undefined ? { description: def.description } : {}), table: buildModel(catalog, def, header) };
  } catch (e) {
    if (e instanceof ModelDefinitionError) throw invalid(`${e.message}.`);
    throw e;
  }
}

/** Writes a validated model: replaces the model of its GUID, or adds it. */
export function writeModel(catalog: MetadataStore, v: ValidModel): LogicalTable {
  const at = catalog.state.tables.findIndex((t) => t.id === v.table.id);
  if (at >= 0) catalog.state.tables[at] = v.table;
  else catalog.state.tables.push(v.table);
  return v.table;
}

/** The worksheet TML of a model: its tables (by name, with `fqn` when asked), joins, table paths, formulas and columns. */
export function modelTml(t: LogicalTable, catalog: MetadataStore, fqn: boolean): Record<string, unknown> {
  const m = t.model!;
  return {
    guid: t.id,
    worksheet: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      tables: m.tables.map((x) => {
        const name = catalog.dataSource(x.guid)?.name ?? x.id;
        return { ...(name !== x.id ? { id: x.id } : {}), name, ...(fqn ? { fqn: x.guid } : {}) };
      }),
      joins: m.joins.map((j) => ({ name: j.name, source: j.source, destination: j.destination, type: j.type, on: j.on })),
      table_paths: m.tablePaths.map((p) => ({ id: p.id, table: p.table, join_path: [p.joinPath.length ? { join: p.joinPath } : {}] })),
      ...(m.formulas.length ? { formulas: m.formulas.map((f) => ({ id: f.id, name: f.name, expr: f.expr, ...(f.properties ? { properties: f.properties } : {}) })) } : {}),
      worksheet_columns: t.columns.map((c) => {
        const path = m.tablePaths.find((p) => p.id === c.tablePath);
        const table = path && catalog.dataSource(m.tables.find((x) => x.id.toLowerCase() === path.table.toLowerCase())?.guid ?? '');
        const source = table?.columns.find((x) => x.physicalName === c.physicalName)?.name ?? c.physicalName;
        return {
          name: c.name,
          ...(c.formulaId !== undefined ? { formula_id: c.formulaId } : { column_id: `${c.tablePath}::${source}` }),
          ...(c.description !== undefined ? { description: c.description } : {}),
          properties: { column_type: c.kind, ...(c.kind === 'MEASURE' ? { aggregation: c.aggregation } : {}), ...(c.synonyms.length ? { synonyms: c.synonyms } : {}) },
        };
      }),
    },
  };
}
