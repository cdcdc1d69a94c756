/**
 * REST API v2 operations on metadata objects and tags: `metadata/delete`,
 * `security/metadata/fetch-permissions`, `metadata/liveboard/sql` and `tags/create|assign|unassign`,
 * `tags/{tag_identifier}/delete`, over the catalog v1 reads too (a deleted answer is gone from v1
 * listobjectheaders). Shapes from the OpenAPI document of thoughtspot/rest-api-sdk
 * (`api-spec/openapiSpecv3-2_0.json`); the table is on `registerObjectsV2`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import { stableGuid } from '../guid';
import type { AnswerBook, Header, LogicalTable, MetadataStore } from '../metadataStore';
import { withParams } from '../tml/answers';
import type { V2Deps } from './routes';
import { visualizationSource } from '../searchdata/formulaColumns';
import { recordOr } from '../../../common/src/guards';
import { pathParam } from '../public/params';
import { body, bool, str, stringList } from '../requestValues';

/** The v2 object types (`metadata[].type`) of the objects the emulator has, and what each names. */
const KINDS = { LIVEBOARD: 'PINBOARD_ANSWER_BOOK', ANSWER: 'QUESTION_ANSWER_BOOK', LOGICAL_TABLE: 'table' } as const;
type Kind = keyof typeof KINDS;

/** Whether `t` is one of the v2 types of KINDS. */
function isKind(t: string): t is Kind {
  return Object.hasOwn(KINDS, t);
}

/** Whether an object of the catalog is an answer or a liveboard (a book has a `type`, a table has none). */
export function isBook(o: Header): o is AnswerBook {
  return 'type' in o;
}

/** Whether an object of the catalog is a table or a worksheet (it has no `type`). */
function isTable(o: Header): o is LogicalTable {
  return !('type' in o);
}

/** The v2 type of an object of the catalog. */
function kindOf(o: Header): Kind {
  return isBook(o) ? (o.type === 'PINBOARD_ANSWER_BOOK' ? 'LIVEBOARD' : 'ANSWER') : 'LOGICAL_TABLE';
}

/**
 * The objects of a `metadata` list (`[{identifier, type?}]`, GUIDs or names) that `user` may read; one it
 * may not read is not there for it (as in metadata/search). @throws ApiError 400 naming the entry
 */
export function objectsOf(catalog: MetadataStore, user: EmulatorUser, raw: unknown, member = 'metadata'): Header[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new ApiError(400, `Missing parameter ${member}: a list of {identifier, type}.`);
  return raw.map((m) => {
    const e = recordOr(m);
    const id = str(e, 'identifier');
    if (id === undefined) throw new ApiError(400, `Invalid value for ${member}: each entry needs an identifier (a GUID or a name).`);
    const t = str(e, 'type')?.toUpperCase();
    if (t !== undefined && !isKind(t)) throw new ApiError(400, `Invalid value for ${member} type: ${t} (the emulator has ${Object.keys(KINDS).join(', ')}).`);
    const st = catalog.state;
    const pool: Header[] = [...(t === undefined || t === 'LOGICAL_TABLE' ? st.tables : []), ...st.books.filter((b) => t === undefined || b.type === KINDS[t])].filter((o) => catalog.canRead(user, o));
    const k = id.toLowerCase();
    const o = pool.find((x) => x.id === k) ?? pool.find((x) => x.name.toLowerCase() === k);
    if (!o) throw new ApiError(400, `Invalid value for ${member}: no object ${id}${t ? ` of type ${t}` : ''}.`);
    return o;
  });
}

/** What still uses a data source: worksheets over it and the answers and liveboards with a visualization on it. */
function dependentsOf(catalog: MetadataStore, t: LogicalTable, going: ReadonlySet<string>): string[] {
  const st = catalog.state;
  const sheets = st.tables.filter((x) => x.id !== t.id && x.subtype === 'WORKSHEET' && x.tableId === t.id && !going.has(x.id));
  const books = st.books.filter((b) => !going.has(b.id) && b.visualizations.some((v) => v.dataSource === t.id));
  return [...sheets, ...books].map((x) => x.name);
}

/**
 * Registers these routes in the v2 scope:
 *
 * | route | operationId | privilege | answer |
 * |---|---|---|---|
 * | `POST metadata/delete` | `deleteMetadata` | edit access to each object | 204; answers, liveboards, worksheets; a table or worksheet that another object still uses is refused (400 naming them), and so is a table (its rows are the emulator's DuckDB tables) |
 * | `POST security/metadata/fetch-permissions` | `fetchPermissionsOnMetadata` | view access | `{metadata_permission_details: [{metadata_id, metadata_name, metadata_type, metadata_owner, metadata_author, principal_permission_info}]}`, shaped as the document's example |
 * | `POST metadata/liveboard/sql` | `fetchLiveboardSqlQuery` | view access | `SqlQueryResponse`: each visualization's SQL, as metadata/answer/sql |
 * | `POST tags/create` | `createTag` | ADMINISTRATION | `Tag` |
 * | `POST tags/assign`, `tags/unassign` | `assignTag`, `unassignTag` | edit access to each object | 204 |
 * | `POST tags/{tag_identifier}/delete` | `deleteTag` | ADMINISTRATION | 204; the tag leaves every object |
 */
export function registerObjectsV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  api.post('/metadata/delete', async (req, reply: FastifyReply) => {
    const user = req.v2User!;
    const b = body(req);
    bool(b, 'delete_disabled_objects', false);
    const objects = objectsOf(catalog, user, b.metadata);
    if (objects.some((o) => !catalog.canModify(user, o))) throw new ApiError(403, FORBIDDEN_TEXT);
    const going = new Set(objects.map((o) => o.id));
    for (const o of objects) {
      if (!isTable(o)) continue;
      const t = o;
      if (t.subtype !== 'WORKSHEET') throw new ApiError(400, `Cannot delete the table ${t.name}: the emulator's tables are its DuckDB tables (delete worksheets, answers and liveboards).`);
      const users = dependentsOf(catalog, t, going);
      if (users.length) throw new ApiError(400, `Cannot delete ${t.name}: ${users.join(', ')} still use${users.length === 1 ? 's' : ''} it.`);
    }
    const st = catalog.state;
    st.tables = st.tables.filter((t) => !going.has(t.id));
    st.books = st.books.filter((x) => !going.has(x.id));
    catalog.save();
    return reply.code(204).send();
  });

  api.post('/security/metadata/fetch-permissions', async (req) => {
    const user = req.v2User!;
    const b = body(req);
    const objects = objectsOf(catalog, user, b.metadata);
    return { metadata_permission_details: objects.map((o) => permissionsOf(catalog, o)) };
  });

  api.post('/metadata/liveboard/sql', async (req) => {
    const user = req.v2User!;
    const b = body(req);
    const id = str(b, 'metadata_identifier', true)!;
    const [board] = objectsOf(catalog, user, [{ identifier: id, type: 'LIVEBOARD' }], 'metadata_identifier').filter(isBook);
    const wanted = stringList(b, 'visualization_identifiers')?.map((v) => v.toLowerCase());
    const vizs = wanted === undefined ? board!.visualizations : board!.visualizations.filter((v) => wanted.includes(v.id) || wanted.includes(v.name.toLowerCase()));
    if (wanted !== undefined && vizs.length !== wanted.length) throw new ApiError(400, `Invalid value for visualization_identifiers: liveboard ${board!.name} does not have them all.`);
    const sql_queries = vizs.map((v) => {
      const ds = catalog.dataSource(v.dataSource);
      if (!ds) throw new ApiError(400, `Visualization ${v.name}: its data source no longer exists.`);
      if (!catalog.canRead(user, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
      const c = deps.search.compile(visualizationSource(ds, v), v.query);
      return { metadata_id: v.id, metadata_name: v.name, sql_query: withParams(c.sql, c.params) };
    });
    return { metadata_id: board!.id, metadata_name: board!.name, metadata_type: 'LIVEBOARD', sql_queries };
  });
  registerTags(api, deps);
}

/** One object's entry of fetch-permissions: its author, then each user and group it is shared with. */
function permissionsOf(catalog: MetadataStore, o: Header): Record<string, unknown> {
  const ref = (id: string): { id: string; name: string } => ({ id, name: catalog.storedUser(id)?.name ?? catalog.state.groups.find((g) => g.id === id)?.name ?? id });
  const users: Record<string, unknown>[] = [];
  const groups: Record<string, unknown>[] = [];
  const entry = (id: string, permission: string): void => {
    const isUser = catalog.storedUser(id) !== undefined;
    (isUser ? users : groups).push({ principal_id: id, principal_name: ref(id).name, permission, shared_permission: permission === 'MODIFY' && id === o.author ? 'NO_ACCESS' : permission, group_permission: [] });
  };
  entry(o.author, 'MODIFY');
  for (const id of o.sharedWithModify ?? []) if (id !== o.author) entry(id, 'MODIFY');
  for (const id of o.sharedWith) if (id !== o.author) entry(id, 'READ_ONLY');
  const info = [
    ...(groups.length ? [{ principal_type: 'USER_GROUP', principal_sub_type: 'LOCAL_GROUP', principal_permissions: groups }] : []),
    ...(users.length ? [{ principal_type: 'USER', principal_sub_type: 'LOCAL_USER', principal_permissions: users }] : []),
  ];
  return { metadata_id: o.id, metadata_name: o.name, metadata_type: kindOf(o), metadata_owner: { id: o.id, name: o.name }, metadata_author: ref(o.author), principal_permission_info: info };
}

/** tags/create, tags/assign, tags/unassign, tags/{tag_identifier}/delete. */
function registerTags(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;
  const tagOf = (idOrName: string): Header => {
    const k = idOrName.toLowerCase();
    const t = catalog.state.tags.find((x) => x.id === k) ?? catalog.state.tags.find((x) => x.name.toLowerCase() === k);
    if (!t) throw new ApiError(400, `Invalid value for tag_identifiers: no tag ${idOrName}.`);
    return t;
  };
  const admin = (user: EmulatorUser): void => {
    if (!user.privileges.has('ADMINISTRATION')) throw new ApiError(403, FORBIDDEN_TEXT);
  };
  api.post('/tags/create', async (req) => {
    const user = req.v2User!;
    admin(user);
    const b = body(req);
    const name = str(b, 'name', true)!;
    if (str(b, 'color') !== undefined) throw new ApiError(400, 'color is not supported by the emulator: its tags have no color.');
    if (catalog.state.tags.some((t) => t.name.toLowerCase() === name.toLowerCase())) throw new ApiError(400, `Invalid value for name: a tag ${name} already exists.`);
    const now = deps.now().getTime();
    const tag: Header = { id: stableGuid('tag', name), name, author: user.id, created: now, modified: now, modifiedBy: user.id, tags: [], sharedWith: [], isAutoCreated: false };
    catalog.state.tags.push(tag);
    catalog.save();
    return { id: tag.id, name, deleted: false, hidden: false, external: false, deprecated: false, creation_time_in_millis: now, modification_time_in_millis: now, author_id: user.id, modifier_id: user.id, owner_id: tag.id };
  });
  const retag = (assign: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const user = req.v2User!;
    const b = body(req);
    const tags = (stringList(b, 'tag_identifiers') ?? []).map(tagOf);
    if (tags.length === 0) throw new ApiError(400, 'Missing parameter tag_identifiers.');
    const objects = objectsOf(catalog, user, b.metadata);
    if (objects.some((o) => !catalog.canModify(user, o))) throw new ApiError(403, FORBIDDEN_TEXT);
    for (const o of objects) o.tags = assign ? [...new Set([...o.tags, ...tags.map((t) => t.id)])] : o.tags.filter((id) => !tags.some((t) => t.id === id));
    catalog.save();
    return reply.code(204).send();
  };
  api.post('/tags/assign', retag(true));
  api.post('/tags/unassign', retag(false));
  api.post('/tags/:tag_identifier/delete', async (req, reply: FastifyReply) => {
    admin(req.v2User!);
    const tag = tagOf(pathParam(req, 'tag_identifier'));
    const st = catalog.state;
    st.tags = st.tags.filter((t) => t.id !== tag.id);
    for (const o of [...st.tables, ...st.books]) o.tags = o.tags.filter((id) => id !== tag.id);
    catalog.save();
    return reply.code(204).send();
  });
}
