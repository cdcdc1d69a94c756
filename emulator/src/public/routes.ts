/**
 * The public API (docs/service-interface.md §4.2) under `/callosum/v1/tspublic/v1/…` and `/tspublic/v1/…`
 * (docs/service-notes.md §0).
 * - Parameters come from the query string and, on POST, from the body in every encoding the docs'
 *   examples use: form-encoded, `multipart/form-data` (file parts read as text), JSON, or no body under
 *   any type (`*\/*` on materialization/refreshview); another non-empty body is a 415. JSON-array
 *   parameters also accept a comma-separated list. `X-Requested-By` is not required (a leniency).
 * - Every route but `session/login` needs a session (`JSESSIONID` cookie or `Authorization: Bearer`),
 *   else 401 with the documented text (docs/service-interface.md §7); missing privileges give 403.
 * - Errors are the JSON bodies of docs/service-notes.md §1.6, §5.1 (errors.ts).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Sessions } from '../auth';
import type { AnswerBook, MetadataStore, LogicalTable } from '../metadataStore';
import type { EmulatorUser } from '../context';
import type { Engine } from '../engine';
import { ApiError, badRequest, errorBody, FORBIDDEN_TEXT, publicErrorReply, UNAUTHORIZED_TEXT } from '../errors';
import { QueryError } from '../searchdata/compile';
import type { PageRequest, SearchService } from '../searchdata/run';
import { registerAdminRoutes } from './admin';
import { registerTmlV1Routes, TmlService } from '../tml/routes';
import { listObjectHeaders } from './headers';
import { columnSources } from '../dataModel';
import { columnById, columnDependentsByType, dependentsByType } from '../dependents';
import { objectHeader, userOf } from './params';
import { registerSessionOrgsV1, userInOrg } from '../orgs';
import { visualizationSource } from '../searchdata/formulaColumns';
import { bool, formValues, has, int, str, stringList } from '../requestValues';

/** Largest file part of a multipart body (a `principals` list of user/sync): 16 MiB. */
const MAX_FILE_PART = 16 * 1024 * 1024;

/** What the public API needs from the core. */
export interface PublicApiDeps {
  catalog: MetadataStore;
  engine: Engine;
  search: SearchService;
  sessions: Sessions;
  verifyPassword(username: string, password: string): Promise<EmulatorUser | undefined>;
  now(): Date;
  loopback: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The user of the session (set for every public API route but login). */
    tsUser?: EmulatorUser;
    tsSessionId?: string;
  }
}

/**
 * The paging parameters of searchdata and pinboarddata (docs/service-interface.md §4.2): `batchsize`
 * -1 or a positive count, `pagenumber` -1 or 1-based ("pageNumber = 0 is not a valid value",
 * https://developers.thoughtspot.com/docs/api-response-pagination), `offset` -1 or a row offset,
 * `formattype` COMPACT or FULL.
 * @throws ApiError 400 naming the parameter with a malformed value
 */
function pageRequest(req: FastifyRequest): PageRequest {
  const f = (str(formValues(req), 'formattype') ?? 'COMPACT').toUpperCase();
  if (f !== 'COMPACT' && f !== 'FULL') throw badRequest(`Invalid value for formattype: ${f} (COMPACT or FULL)`);
  const batchsize = int(formValues(req), 'batchsize', -1);
  const pagenumber = int(formValues(req), 'pagenumber', -1);
  const offset = int(formValues(req), 'offset', -1);
  if (batchsize === 0 || batchsize < -1) throw badRequest(`Invalid value for batchsize: ${batchsize} (-1 for the default page size, or 1 or more)`);
  if (pagenumber === 0 || pagenumber < -1) throw badRequest(`Invalid value for pagenumber: ${pagenumber} (-1, or 1 or more: page numbers start at 1)`);
  if (offset < -1) throw badRequest(`Invalid value for offset: ${offset} (-1, or 0 or more)`);
  return { batchsize, pagenumber, offset, formattype: f };
}

/** metadata/details of one LOGICAL_TABLE (docs/service-notes.md §3.2). */
function tableDetails(t: LogicalTable, catalog: MetadataStore): Record<string, unknown> {
  return {
    header: { ...objectHeader(t), isDeleted: false, isHidden: false, databaseStripe: t.database, schemaStripe: t.schema, tags: t.tags.map((id) => catalog.state.tags.find((x) => x.id === id)).filter(Boolean).map((x) => ({ id: x!.id, name: x!.name })) },
    type: t.subtype,
    dataSourceId: t.database,
    physicalTableGUID: t.tableId,
    logicalTableContent: { joinType: 'INNER', physicalTableName: t.tableName, worksheetType: t.subtype === 'WORKSHEET' ? 'VIEW' : 'CONTAINER', isAggregatedWorksheet: false, schemaVersion: 'V1' },
    relationships: [],
    tableFilters: [],
    columns: t.columns.map((c, i) => ({
      // a model's formula column is derived, its formula given as the model's TML writes it (docs/service-notes.md "Models")
      isDerived: c.formulaId !== undefined,
      ...(c.formulaId !== undefined ? { formula: t.model?.formulas.find((f) => f.id === c.formulaId) } : {}),
      ...columnSources(catalog, t, c),
      physicalColumnGUID: c.id,
      position: i,
      header: { id: c.id, name: c.name, owner: t.id, isDeleted: false, isHidden: false, ...(c.description !== undefined ? { description: c.description } : {}), tags: [] },
      dataType: c.dataType,
      type: c.kind,
      defaultAggrType: c.aggregation,
      physicalColumnName: c.physicalName,
      ownerName: t.name,
      ownerType: t.subtype,
      isAdditive: c.kind === 'MEASURE',
      indexType: 'DEFAULT',
      indexPriority: 1,
      synonyms: c.synonyms,
      isPrimaryKey: false,
      isAttributionDimension: true,
    })),
  };
}

/**
 * metadata/details of an answer or pinboard: its visualizations with their data source and query, also as
 * `reportContent.sheets[0].sheetContent.visualizations`, where ThoughtSpot's Python client reads a
 * pinboard's sheets (tsrestapiv1.py `get_sheets_from_metadata_details`: `storables[0]['reportContent']['sheets']`).
 * One sheet per book, `sheetType`/`sheetContentType` PINBOARD or QUESTION.
 */
function bookDetails(b: AnswerBook): Record<string, unknown> {
  const visualizations = b.visualizations.map((v) => ({ header: { id: v.id, name: v.name, owner: b.id }, dataSourceId: v.dataSource, query: v.query }));
  const kind = b.type === 'PINBOARD_ANSWER_BOOK' ? 'PINBOARD' : 'QUESTION';
  return {
    header: { ...objectHeader(b), isDeleted: false, isHidden: false },
    type: b.type,
    visualizations,
    reportContent: { sheets: [{ header: { id: b.id, name: b.name, owner: b.id }, sheetType: kind, sheetContent: { sheetContentType: kind, visualizations } }] },
  };
}

/**
 * Registers the public API under both prefixes, in one scope that reads every documented body encoding
 * (see `registerBodyEncodings`).
 */
export async function registerPublicApi(app: FastifyInstance, deps: PublicApiDeps): Promise<void> {
  await app.register(async (scope) => {
    await registerBodyEncodings(scope);
    for (const prefix of ['/callosum/v1/tspublic/v1', '/tspublic/v1']) {
      await scope.register(async (api) => routes(api, deps), { prefix });
    }
  });
}

/**
 * The body encodings of the public API, on top of the base app's form and JSON parsers (app.ts):
 * - `multipart/form-data` (@fastify/multipart): fields and file parts become body parameters; a file part
 *   is read as UTF-8 text, as user/sync's `principals` file is (https://developers.thoughtspot.com/docs/user-api#user-sync);
 * - any other type with an empty body is no body, so the refreshview example's `Content-Type: *\/*` works
 *   (https://docs.thoughtspot.com/software/7.2/materialization-api); a non-empty body of another type is
 *   415 Unsupported Media Type, answered in the service's error shape by the routes' error handler.
 */
async function registerBodyEncodings(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: MAX_FILE_PART, files: 10, parts: 100 },
    onFile: async (part) => {
      (part as unknown as { value: string }).value = (await part.toBuffer()).toString('utf8');
    },
  });
  scope.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    const err = new Error(`Unsupported Media Type ${req.headers['content-type'] ?? ''}: send parameters in the query string or as a form (application/x-www-form-urlencoded), multipart/form-data or JSON body`) as Error & { statusCode: number };
    err.statusCode = 415;
    done(err, undefined);
  });
}

/** The routes of one prefix: error and not-found handlers in the service's shape, the session check, and each feature. */
async function routes(api: FastifyInstance, deps: PublicApiDeps): Promise<void> {
  const { catalog, sessions } = deps;

  api.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (err instanceof QueryError) return reply.code(400).send(errorBody(400, [err.message]));
    // no engine text or SQL in a body: 500s answer the service's message and an incident id (errors.ts)
    const { status, body } = publicErrorReply(err, req);
    return reply.code(status).send(body);
  });
  api.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody(404, [`No such operation: ${req.method} ${req.url.split('?')[0]}`])));

  api.addHook('preHandler', async (req: FastifyRequest) => {
    if (req.routeOptions.url?.endsWith('/session/login')) return;
    let sid = req.cookies?.JSESSIONID;
    const auth = req.headers.authorization;
    if (!sid && auth && /^bearer /i.test(auth)) sid = auth.slice(7).trim();
    const s = sessions.get(sid);
    const user = s ? catalog.user(s.userId, s.orgId) : undefined;
    if (!s || !user) throw new ApiError(401, UNAUTHORIZED_TEXT);
    req.tsUser = user;
    req.tsSessionId = s.id;
  });

  registerSessionRoutes(api, deps);
  registerSessionOrgsV1(api, deps);
  registerMetadataRoutes(api, deps);
  registerDataRoutes(api, deps);
  registerAdminRoutes(api, deps);
  registerTmlV1Routes(api, new TmlService(deps.catalog, deps.search, deps.now));
}

/** `session/login` and `session/logout` (https://developers.thoughtspot.com/docs/api-auth-session). */
function registerSessionRoutes(api: FastifyInstance, deps: PublicApiDeps): void {
  const { sessions } = deps;
  /** session/login (docs/service-notes.md §5.1): form username, password, rememberme, orgid; sets JSESSIONID and clientId (HttpOnly). */
  api.post('/session/login', async (req, reply) => {
    const username = str(formValues(req), 'username');
    const password = str(formValues(req), 'password');
    const remember = bool(formValues(req), 'rememberme', false);
    const verified = username && password ? await deps.verifyPassword(username, password) : undefined;
    if (!verified) throw new ApiError(401, UNAUTHORIZED_TEXT, ['Login failure: wrong user name or password']);
    // `orgid`: the Org the session runs in (default: the user's, emulator/src/orgs.ts)
    const user = userInOrg(deps.catalog, verified, str(formValues(req), 'orgid'), 'orgid');
    const s = sessions.open(user.id, user.orgId);
    const maxAge = remember ? 14 * 24 * 3600 : undefined;
    reply.setCookie('JSESSIONID', s.id, { path: '/', httpOnly: true, sameSite: 'lax', maxAge });
    reply.setCookie('clientId', s.clientId, { path: '/', httpOnly: true, sameSite: 'lax', maxAge });
    // 204 "Successful login", no body (https://developers.thoughtspot.com/docs/api-auth-session)
    return reply.code(204).send();
  });

  /** session/logout: ends the session (204). */
  api.post('/session/logout', async (req, reply) => {
    sessions.close(req.tsSessionId!);
    reply.clearCookie('JSESSIONID', { path: '/' });
    reply.clearCookie('clientId', { path: '/' });
    return reply.code(204).send();
  });
}

/** `metadata/listobjectheaders`, `listvizheaders` and `details` (https://developers.thoughtspot.com/docs/metadata-api). */
function registerMetadataRoutes(api: FastifyInstance, deps: PublicApiDeps): void {
  const { catalog } = deps;
  api.get('/metadata/listobjectheaders', async (req) => listObjectHeaders(req, catalog));

  /** listvizheaders?id=<answer or pinboard> (docs/service-interface.md §4.2): visualization headers, `owner` = the book. */
  api.get('/metadata/listvizheaders', async (req) => {
    const user = userOf(req);
    const id = str(formValues(req), 'id');
    if (!id) throw badRequest('Missing parameter id');
    const b = catalog.book(id);
    if (!b) throw badRequest(`No answer or pinboard with id ${id}`);
    if (!catalog.canRead(user, b)) throw new ApiError(403, FORBIDDEN_TEXT);
    return b.visualizations.map((v) => ({ id: v.id, name: v.name, author: b.author, created: b.created, modified: b.modified, modifiedBy: b.modifiedBy, owner: b.id }));
  });

  /**
   * dependency/listdependents (https://developers.thoughtspot.com/docs/dependent-objects-api): form `type`
   * LOGICAL_TABLE (`id` data-source GUIDs) or LOGICAL_COLUMN (`id` column GUIDs), `id` a JSON array,
   * `batchsize` (-1 all; the emulator's default is all); `{guid: {v1 type: [header]}}`
   * (emulator/src/dependents.ts). The page asks edit access of the caller; the emulator asks view access, as
   * v2 metadata/search does (docs/service-notes.md).
   */
  api.post('/dependency/listdependents', async (req) => {
    const user = userOf(req);
    const type = (str(formValues(req), 'type') ?? 'LOGICAL_TABLE').toUpperCase();
    if (type !== 'LOGICAL_TABLE' && type !== 'LOGICAL_COLUMN') throw badRequest(`dependency/listdependents: type ${type} is not supported by the emulator (LOGICAL_TABLE, LOGICAL_COLUMN)`);
    const ids = stringList(formValues(req), 'id', { nonEmpty: true });
    if (!ids) throw badRequest('Missing parameter id (a JSON array of GUIDs)');
    const limit = int(formValues(req), 'batchsize', -1);
    const header = (o: LogicalTable | AnswerBook) => ({ ...objectHeader(o), ...('subtype' in o ? { type: o.subtype } : {}) });
    const out: Record<string, unknown> = {};
    for (const id of ids) {
      const found = type === 'LOGICAL_COLUMN' ? columnById(catalog, id.toLowerCase()) : undefined;
      const t = type === 'LOGICAL_COLUMN' ? found?.table : catalog.dataSource(id);
      if (!t) throw badRequest(`Invalid object ID ${id}`);
      if (!catalog.canRead(user, t)) throw new ApiError(403, FORBIDDEN_TEXT);
      out[found ? found.column.id : t.id] = found ? columnDependentsByType(t, found.column, catalog, user, limit, header) : dependentsByType(t, catalog, user, limit, header);
    }
    return out;
  });

  /** metadata/details?type=LOGICAL_TABLE&id=[…] (docs/service-notes.md §3.2); also answers and pinboards. */
  api.get('/metadata/details', async (req) => {
    const user = userOf(req);
    const type = (str(formValues(req), 'type') ?? 'LOGICAL_TABLE').toUpperCase();
    const ids = stringList(formValues(req), 'id', { nonEmpty: true });
    if (!ids) throw badRequest('Missing parameter id (a JSON array of GUIDs)');
    // known and checked, without effect on what the emulator shows (it has no hidden objects or versions)
    bool(formValues(req), 'showhidden');
    bool(formValues(req), 'dropquestiondetails');
    int(formValues(req), 'version', -1);
    const storables = ids.map((id) => {
      if (type === 'LOGICAL_TABLE') {
        const t = catalog.dataSource(id);
        if (!t) throw badRequest(`No LOGICAL_TABLE with id ${id}`);
        if (!catalog.canRead(user, t)) throw new ApiError(403, FORBIDDEN_TEXT);
        return tableDetails(t, catalog);
      }
      if (type === 'QUESTION_ANSWER_BOOK' || type === 'PINBOARD_ANSWER_BOOK') {
        const b = catalog.book(id);
        if (!b || b.type !== type) throw badRequest(`No ${type} with id ${id}`);
        if (!catalog.canRead(user, b)) throw new ApiError(403, FORBIDDEN_TEXT);
        return bookDetails(b);
      }
      throw badRequest(`metadata/details: type ${type} is not supported by the emulator (LOGICAL_TABLE, QUESTION_ANSWER_BOOK, PINBOARD_ANSWER_BOOK)`);
    });
    return { storables, debugInfo: {} };
  });
}

/** `searchdata` and `pinboarddata` (https://developers.thoughtspot.com/docs/search-data-api, https://docs.thoughtspot.com/software/7.2/pinboarddata). */
function registerDataRoutes(api: FastifyInstance, deps: PublicApiDeps): void {
  const { catalog, search } = deps;
  /** searchdata (docs/service-interface.md §4.2, docs/service-notes.md §1): all parameters in the query string. */
  api.post('/searchdata', async (req, reply) => {
    const user = userOf(req);
    const query = str(formValues(req), 'query_string');
    const dsId = str(formValues(req), 'data_source_guid');
    if (!query) throw badRequest('Missing parameter query_string');
    if (!dsId) throw badRequest('Missing parameter data_source_guid');
    const page = pageRequest(req);
    const ds = catalog.dataSource(dsId);
    if (!ds) throw badRequest(`Invalid data source: no worksheet, view or table with id ${dsId}`);
    if (!catalog.canRead(user, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
    const result = await search.search(ds, query, page);
    return reply.type('application/json').send(result);
  });

  /** pinboarddata (docs/service-interface.md §4.2, docs/service-notes.md §1.7): keyed by visualization id, each a search result plus its name. */
  api.post('/pinboarddata', async (req) => {
    const user = userOf(req);
    const id = str(formValues(req), 'id');
    if (!id) throw badRequest('Missing parameter id');
    const b = catalog.book(id);
    if (!b || b.type !== 'PINBOARD_ANSWER_BOOK') throw badRequest(`Invalid pinboard id ${id}`);
    if (!catalog.canRead(user, b)) throw new ApiError(403, FORBIDDEN_TEXT);
    // `vizid=[]` (or an empty value) is every visualization: ThoughtSpot's Python client always sends
    // `json.dumps(vizids)`, `[]` for all (tsrestapiv1.py `pinboarddata`), and is used against real clusters
    const listed = has(formValues(req), 'vizid') && (str(formValues(req), 'vizid') ?? '').trim() !== '' ? stringList(formValues(req), 'vizid') : undefined;
    const vizIds = listed && listed.length > 0 ? listed : undefined;
    const page = pageRequest(req);
    const vizs = vizIds ? vizIds.map((v) => b.visualizations.find((x) => x.id === v.toLowerCase()) ?? (() => { throw badRequest(`Pinboard ${b.name} has no visualization ${v}`); })()) : b.visualizations;
    const out: Record<string, unknown> = {};
    for (const v of vizs) {
      const ds = catalog.dataSource(v.dataSource);
      if (!ds) throw badRequest(`Visualization ${v.name}: its data source no longer exists`);
      if (!catalog.canRead(user, ds)) throw new ApiError(403, FORBIDDEN_TEXT);
      out[v.id] = { name: v.name, ...(await search.search(visualizationSource(ds, v), v.query, page)) };
    }
    return out;
  });
}
