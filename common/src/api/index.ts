/**
 * `AnalyticsServiceClient`: the typed HTTP client of the Analytics Service (both APIs of
 * docs/service-interface.md), for the extension, the tests, the benchmarks and the demo. Free of `vscode`.
 * ```ts
 * const client = new AnalyticsServiceClient({ url: 'https://host', loadUrl: 'https://host:8442', username, getPassword });
 * const result = await client.searchData({ queryString: '[origin] [delay]', dataSourceGuid: id }, { signal });
 * await client.close();
 * ```
 * Errors: every call throws a `ServiceError` subclass (errors.ts) with the HTTP status and the service's
 * own text, never a password. Every call takes an `AbortSignal` (`opts.signal`).
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { createDispatcher, HttpSession, type HttpTimeouts, type RequestLogInfo } from './session';
import {
  PublicApi,
  type CallOptions,
  type CellValue,
  type Dependents,
  type DependencyOf,
  type ListObjectHeadersParams,
  type MetadataDetails,
  type MetadataType,
  type ObjectHeader,
  type PinboardDataParams,
  type PinboardVizData,
  type SearchDataParams,
  type SearchDataResult,
  type SyncPrincipalsParams,
  type VizHeader,
} from './publicApi';
import { LoadApi, type LoadDefinition, type LoadStatus, type PollOptions, type StartLoadResult, type UploadOptions } from './loadApi';
import { BearerTokens, loadBearerLogin, probeApiVersion, RateLimiter, rateLimitHooks, type ApiVersionSetting, type BearerOptions, type RateLimitOptions } from './serviceToday';
import { PublicApiV2 } from './publicApiV2';
import { OperationUnavailableError } from './errors';
import { v1Absence, v2Absence, type BothGenerationsOperation, type PublicOperationName } from './operations';
import type { Principal } from './principals';
import type { ExportedTmlObject, ImportedTmlObject, TmlAsyncImportPolicy, TmlBatchType, TmlExportRef, TmlImportPolicy, TmlImportTask } from './tml';
import type { AnswerSql, CreateInputTableParams, MetadataRef, ReportTarget, SharePrincipal, ShareMode } from './publicApiV2';
import type { OrgList } from './orgs';

export * from './errors';
export type { RequestLogInfo, TransportOptions, QueryValue, HttpTimeouts, DeadlineClass } from './session';
export { DEFAULT_HTTP_TIMEOUTS, callDeadlines, deadlineClassOf } from './session';
export * from './publicApi';
export * from './loadApi';
export * from './serviceToday';
export * from './publicApiV2';
export * from './operations';
export * from './principals';
export * from './tml';
export * from './orgs';

/**
 * Options of `AnalyticsServiceClient`. Give `password` or `getPassword`, unless `bearer` gives a token
 * or a secret key.
 */
export interface AnalyticsServiceClientOptions {
  /** Base URL of the service, e.g. `https://analytics.example.com` (the public API lives under `/callosum/v1/tspublic/v1`). */
  url: string;
  /** Base URL of the data-load API when it has its own port (a real cluster: port 8442, docs/service-notes.md §4.1); default `url`. */
  loadUrl?: string;
  username: string;
  /** The password; prefer `getPassword` so that it is read from a secret store only when a login needs it. */
  password?: string;
  /** Returns the password at each login (e.g. from VS Code's SecretStorage). */
  getPassword?: () => string | Promise<string>;
  /** PEM file of an extra certificate authority for the service's TLS certificate. */
  caFile?: string;
  /** PEM text of an extra certificate authority (alternative to `caFile`). */
  ca?: string | Buffer;
  /** Verify TLS certificates (default true). */
  rejectUnauthorized?: boolean;
  /** Keep load calls on `loadUrl` even when StartLoad names another node (clusters behind an external load balancer; docs/service-notes.md §4.4). */
  ignoreNodeRedirect?: boolean;
  /**
   * Hosts (names, or URLs whose host counts) beyond those of `url` and `loadUrl` that a StartLoad
   * `node_address` may send the cycle to: the data-load login and the bearer go there. Give only hosts the
   * person approved (a user-level connection's `loadNodes`); a node on any other host is refused
   * (`UnapprovedNodeError`, loadApi.ts).
   */
  loadNodes?: readonly string[];
  /** Called after every HTTP exchange with its method, path, status and time (no secrets). */
  onRequest?: (info: RequestLogInfo) => void;
  /** An undici dispatcher to use instead of the client's own (its TLS options then apply). */
  dispatcher?: Dispatcher;
  /** Deadlines of every call in seconds (connect, first byte, idle body); see `HttpTimeouts` in session.ts. */
  timeouts?: HttpTimeouts;
  /**
   * Which public API generation to speak (serviceToday.ts): `v1` (default here; the seed's API, cookie
   * session unless `bearer` is given), `v2` (REST API v2 with a bearer token from the password), or
   * `auto` (asks the service once; v1 where both answer, v2 where v1 answers 404).
   */
  apiVersion?: ApiVersionSetting;
  /** Sign in with a bearer token: a given one, or one from a trusted-authentication secret key (serviceToday.ts). */
  bearer?: BearerOptions;
  /** The connection's rate limiter (default 100 requests per second, burst 10); false: none. */
  rateLimit?: RateLimitOptions | false;
  /** Epoch milliseconds now, for token renewal (default `Date.now`; tests drive it). */
  clock?: () => number;
  /**
   * The Org every call runs in, by id (digits) or name (orgs.ts): the v1 session enters it after its
   * login, v2 tokens are asked for it. Absent: the user's own (the service's default). A token the person
   * gave (`bearer.getToken`) carries its own Org.
   */
  org?: string;
}

/**
 * The operations both generations implement, with the signatures of `PublicApiV2`: `PublicApi` is held to
 * them too (`apiFor` returns either), so a difference between the two is a type error, not a runtime one.
 */
type GenerationApi = Pick<PublicApiV2, BothGenerationsOperation | 'searchAllPages'>;

/** The facade over both APIs of the Analytics Service, with one session per origin. */
export class AnalyticsServiceClient {
  /** The public API (docs/service-interface.md §4.2) on `url`. */
  readonly public: PublicApi;
  /** The data-load API (docs/service-interface.md §4.1) on `loadUrl`. */
  readonly load: LoadApi;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly publicSession: HttpSession;
  /** Every session of this client (public API, load API nodes), for `serviceBack`. */
  private readonly sessions: HttpSession[] = [];
  /** The bearer token of the connection (used with `bearer`, or on v2). */
  readonly tokens: BearerTokens;
  /** REST API v2 on `url` (used when the generation is v2). */
  readonly v2: PublicApiV2;
  private generationProbe: Promise<'v1' | 'v2'> | undefined;
  /** The passwords and secret keys this client logged in with (one, unless it was asked again), for `heldSecrets`. */
  private readonly secretsUsed = new Set<string>();

  /** @throws TypeError when `url` or `loadUrl` is not an absolute http(s) URL, or neither password option is given. */
  constructor(private readonly options: AnalyticsServiceClientOptions) {
    for (const u of [options.url, options.loadUrl]) {
      if (u === undefined) continue;
      let ok: boolean;
      try {
        ok = /^https?:$/.test(new URL(u).protocol);
      } catch {
        ok = false;
      }
      if (!ok) throw new TypeError(`the service URL must be an absolute http(s) URL, got "${u}"`);
    }
    if (options.password === undefined && !options.getPassword && !options.bearer?.getToken && !options.bearer?.getSecretKey) throw new TypeError('a password, a getPassword function, a token or a secret key is needed');
    this.dispatcher = createDispatcher(options);
    this.ownsDispatcher = !options.dispatcher;
    const password = async () => {
      const p = options.getPassword ? await options.getPassword() : (options.password as string);
      this.secretsUsed.add(p);
      return p;
    };
    const getSecretKey = options.bearer?.getSecretKey;
    const bearer: BearerOptions = getSecretKey
      ? {
          ...options.bearer,
          getSecretKey: async () => {
            const key = await getSecretKey();
            this.secretsUsed.add(key);
            return key;
          },
        }
      : (options.bearer ?? {});
    const hasPassword = options.password !== undefined || options.getPassword !== undefined;
    this.publicSession = new HttpSession(
      options.url,
      this.dispatcher,
      async (s, signal) => {
        if (await this.usesBearer(signal)) return this.tokens.acquire(signal);
        await PublicApi.login(s, options.username, await password(), signal);
        if (options.org !== undefined) await PublicApi.enterOrg(s, options.username, options.org, signal);
      },
      options.onRequest,
      options.timeouts,
    );
    this.sessions.push(this.publicSession);
    const tokenOrg = options.org === undefined ? undefined : { wanted: options.org, idFor: (probe: string, signal?: AbortSignal) => PublicApiV2.orgIdOf(this.publicSession, options.username, options.org!, probe, signal) };
    this.tokens = new BearerTokens(this.publicSession, options.username, hasPassword ? password : undefined, bearer, options.clock, tokenOrg);
    this.v2 = new PublicApiV2(this.publicSession);
    // one limiter per connection, shared by its public and load sessions
    const rate = options.rateLimit === false ? undefined : options.rateLimit;
    const limiter = options.rateLimit === false ? undefined : new RateLimiter(rate?.perSecond ?? 100, rate?.burst ?? 10);
    const limitHooks = rateLimitHooks(limiter, rate?.maxWaitMs);
    this.publicSession.hooks = { ...limitHooks, authHeaders: async (signal) => ((await this.usesBearer(signal)) ? this.tokens.headers(signal) : {}) };
    // With a token or a secret key, the data-load API gets the same bearer instead of a password login
    // (loadBearerLogin); without one, its own Login with the password (docs/service-interface.md §4.1).
    const loadBearer = !!(options.bearer?.getToken || options.bearer?.getSecretKey);
    const loadSession = (origin: string) => {
      let logins = 0;
      const login = loadBearer
        ? (_ls: HttpSession, signal?: AbortSignal) => loadBearerLogin(this.tokens, origin, logins++, signal)
        : async (ls: HttpSession, signal?: AbortSignal) => LoadApi.login(ls, options.username, await password(), signal);
      const s = new HttpSession(origin, this.dispatcher, login, options.onRequest, options.timeouts);
      s.hooks = loadBearer ? { ...limitHooks, authHeaders: (signal) => this.tokens.headers(signal) } : limitHooks;
      this.sessions.push(s);
      return s;
    };
    this.public = new PublicApi(this.publicSession);
    const approvedNodeHosts = [options.url, ...(options.loadUrl ? [options.loadUrl] : []), ...(options.loadNodes ?? [])];
    this.load = new LoadApi(loadSession(options.loadUrl ?? options.url), loadSession, options.ignoreNodeRedirect, approvedNodeHosts);
  }

  /**
   * Every credential this client holds now: the passwords and secret keys it logged in with, the bearer token (given, or
   * obtained with the password or a secret key) and the values of its sessions' cookies of 8 characters or
   * more (the session logins; shorter ones are settings, not secrets). For redaction of text that leaves the
   * process (the agent tools, common/src/agent/data.ts `redact`); never logged.
   */
  heldSecrets(): string[] {
    const out = new Set([...this.secretsUsed].filter((s) => s !== ''));
    if (this.tokens.current) out.add(this.tokens.current);
    for (const s of this.sessions) for (const v of s.cookieValues()) if (v.length >= 8) out.add(v);
    return [...out];
  }

  /** The public API's base URL. */
  get url(): string {
    return this.options.url;
  }

  /**
   * The generation this client speaks: the `apiVersion` option, or for `auto` the answer of one probe
   * (`probeApiVersion`, asked once; a failed probe is asked again next time).
   */
  async apiGeneration(signal?: AbortSignal): Promise<'v1' | 'v2'> {
    const v = this.options.apiVersion ?? 'v1';
    if (v !== 'auto') return v;
    this.generationProbe ??= probeApiVersion(this.publicSession, signal).catch((e: unknown) => {
      this.generationProbe = undefined;
      throw e;
    });
    return this.generationProbe;
  }

  /** True when calls carry a bearer token: one was given (token or secret key), or the generation is v2. */
  private async usesBearer(signal?: AbortSignal): Promise<boolean> {
    if (this.options.bearer?.getToken || this.options.bearer?.getSecretKey) return true;
    return (await this.apiGeneration(signal)) === 'v2';
  }

  /** Logs in on the public API now (otherwise the first call does). @throws AuthenticationError on 401. */
  async login(opts: CallOptions = {}): Promise<void> {
    await this.publicSession.relogin(opts.signal);
  }

  /** Sign-out: revokes the bearer token (`auth/token/revoke`) when the client holds one it obtained, else `session/logout` on the public API. */
  async logout(opts: CallOptions = {}): Promise<void> {
    if (this.tokens.hasToken) {
      await this.tokens.revoke(opts.signal);
      this.publicSession.forget();
      return;
    }
    return this.public.logout(opts);
  }

  /**
   * Tells every session of this client that the service answers again (a health check saw it back):
   * calls still waiting on connections taken during the outage are sent again when repeatable, or fail at
   * once otherwise (`HttpSession.serviceBack`). Never throws.
   */
  serviceBack(): void {
    for (const s of this.sessions) s.serviceBack();
  }

  /** Logs out (or revokes the client's own token) when signed in (errors ignored) and closes the connections. */
  async close(): Promise<void> {
    try {
      await this.logout({ signal: AbortSignal.timeout(2000) });
    } catch {
      // closing anyway
    }
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  // ---- public API (docs/service-interface.md §4.2; on v2 §10): the operations of SERVICE_OPERATIONS (operations.ts) ----

  /**
   * The generation to call `name` on: this client's (`apiGeneration`), or v2 for an operation the table
   * gives no v1 call (`v1.none`; sent on REST API v2 with this client's sign-in, as the service has it).
   * @throws OperationUnavailableError when the service speaks v2 only and `SERVICE_OPERATIONS` says v2 has no such operation (nothing is sent).
   */
  async generationFor(name: PublicOperationName, signal?: AbortSignal): Promise<'v1' | 'v2'> {
    const g = await this.apiGeneration(signal);
    const absent = v2Absence(name);
    if (g === 'v2' && absent !== undefined) throw new OperationUnavailableError(name, absent);
    return v1Absence(name) !== undefined ? 'v2' : g;
  }

  /**
   * The API to send `name` on, chosen once for every operation both generations implement: v2
   * (`PublicApiV2`) when `generationFor` says so, else v1 (`PublicApi`). Both implement `GenerationApi`,
   * so the compiler holds them to one signature per operation. The only generation switch of the facade
   * (test/unit/operations.test.ts fails on another).
   * @throws OperationUnavailableError as `generationFor`.
   */
  private async apiFor(name: BothGenerationsOperation, signal?: AbortSignal): Promise<GenerationApi> {
    return (await this.generationFor(name, signal)) === 'v2' ? this.v2 : this.public;
  }

  /** The Orgs the user may act in and the one the calls run in (orgs.ts): v1 `GET session/orgs`, v2 the `orgs` of `auth/session/user`. */
  async listOrgs(opts?: CallOptions): Promise<OrgList> {
    return (await this.apiFor('listOrgs', opts?.signal)).listOrgs(opts);
  }

  /** The Org this client was told to run in (`org` option), as given; undefined: the user's own. */
  get org(): string | undefined {
    return this.options.org;
  }

  /** See `PublicApi.listObjectHeaders` (v2: `PublicApiV2.listObjectHeaders`, same shapes). */
  async listObjectHeaders(params: ListObjectHeadersParams = {}, opts?: CallOptions): Promise<ObjectHeader[]> {
    return (await this.apiFor('listObjectHeaders', opts?.signal)).listObjectHeaders(params, opts);
  }
  /** See `PublicApi.listVizHeaders`. */
  async listVizHeaders(id: string, opts?: CallOptions): Promise<VizHeader[]> {
    return (await this.apiFor('listVizHeaders', opts?.signal)).listVizHeaders(id, opts);
  }
  /** See `PublicApi.metadataDetails` (on v2: LOGICAL_TABLE only, through metadata/search). */
  async metadataDetails(type: MetadataType, ids: string[], opts?: CallOptions & { showHidden?: boolean }): Promise<MetadataDetails> {
    // v2's metadata/search gives the columns of tables only: other types are asked on v1 whatever the generation
    return (type === 'LOGICAL_TABLE' ? await this.apiFor('metadataDetails', opts?.signal) : this.public).metadataDetails(type, ids, opts);
  }
  /** See `PublicApi.pinboardData` (on v2: metadata/liveboard/data, same shape). */
  async pinboardData(params: PinboardDataParams, opts?: CallOptions): Promise<Record<string, PinboardVizData<CellValue[] | Record<string, CellValue>>>> {
    return (await (await this.apiFor('pinboardData', opts?.signal)).pinboardData(params, opts)) as Record<string, PinboardVizData<CellValue[] | Record<string, CellValue>>>;
  }
  /** See `PublicApi.searchData`. */
  searchData(params: SearchDataParams & { formatType: 'FULL' }, opts?: CallOptions): Promise<SearchDataResult<Record<string, CellValue>>>;
  searchData(params: SearchDataParams, opts?: CallOptions): Promise<SearchDataResult>;
  async searchData(params: SearchDataParams, opts?: CallOptions): Promise<SearchDataResult<unknown>> {
    return (await this.apiFor('searchData', opts?.signal)).searchData(params, opts);
  }
  /** Every page of a search, as an async generator. See `PublicApi.searchAllPages`. */
  async *searchAllPages(params: Omit<SearchDataParams, 'batchSize' | 'pageNumber' | 'offset'> & { pageSize?: number }, opts?: CallOptions): AsyncGenerator<SearchDataResult<unknown>> {
    yield* (await this.apiFor('searchData', opts?.signal)).searchAllPages(params, opts);
  }
  /** All users and groups: v1 `user/list`, v2 `users/search` and `groups/search`. See `PublicApi.listPrincipals`. */
  async listPrincipals(opts?: CallOptions): Promise<Principal[]> {
    return (await this.apiFor('listPrincipals', opts?.signal)).listPrincipals(opts);
  }
  /** Synchronizes principals: v1 `user/sync`, v2 `users/import` (users only). See `PublicApi.syncPrincipals`, `PublicApiV2.syncPrincipals`. */
  async syncPrincipals(params: SyncPrincipalsParams, opts?: CallOptions): Promise<unknown> {
    return (await this.apiFor('syncPrincipals', opts?.signal)).syncPrincipals(params, opts);
  }
  /** A user's password: v1 `user/updatepassword`, v2 `users/change-password`. */
  async updatePassword(params: { name: string; currentPassword: string; newPassword: string }, opts?: CallOptions): Promise<void> {
    return (await this.apiFor('updatePassword', opts?.signal)).updatePassword(params, opts);
  }
  /** One user's objects to another: v1 `user/transfer/ownership`, v2 `security/metadata/assign`. */
  async transferOwnership(params: { fromUserName: string; toUserName: string; objectIds?: string[] }, opts?: CallOptions): Promise<void> {
    return (await this.apiFor('transferOwnership', opts?.signal)).transferOwnership(params, opts);
  }
  /** A privilege to groups: v1 `group/addprivilege`, v2 `groups/{id}/update` (operation ADD). */
  async addGroupPrivilege(params: { privilege: string; groupNames: string[] }, opts?: CallOptions): Promise<void> {
    return (await this.apiFor('addGroupPrivilege', opts?.signal)).addGroupPrivilege(params, opts);
  }
  /** A privilege off groups: v1 `group/removeprivilege`, v2 `groups/{id}/update` (operation REMOVE). */
  async removeGroupPrivilege(params: { privilege: string; groupNames: string[] }, opts?: CallOptions): Promise<void> {
    return (await this.apiFor('removeGroupPrivilege', opts?.signal)).removeGroupPrivilege(params, opts);
  }
  /**
   * Exports objects' TML, one `{info, edoc}` per reference in order: v1 `metadata/tml/export` (by GUID
   * only), v2 `metadata/tml/export` (a name with its type too). See `PublicApi.exportTml`, `PublicApiV2.exportTml`.
   */
  async exportTml(refs: TmlExportRef[], options: { format?: 'YAML' | 'JSON'; fqn?: boolean } = {}, opts?: CallOptions): Promise<ExportedTmlObject[]> {
    return (await this.apiFor('exportTml', opts?.signal)).exportTml(refs, options, opts);
  }
  /** Deletes objects: v2 `metadata/delete` on either generation (`generationFor`). See `PublicApiV2.deleteMetadata`. */
  async deleteMetadata(objects: MetadataRef[], opts?: CallOptions): Promise<void> {
    await this.generationFor('deleteMetadata', opts?.signal);
    return this.v2.deleteMetadata(objects, opts);
  }
  /** Shares objects with users and groups: v2 `security/metadata/share` on either generation. See `PublicApiV2.shareMetadata`. */
  async shareMetadata(objects: MetadataRef[], principals: SharePrincipal[], shareMode: ShareMode, opts?: CallOptions): Promise<void> {
    await this.generationFor('shareMetadata', opts?.signal);
    return this.v2.shareMetadata(objects, principals, shareMode, opts);
  }
  /** A page of the Org's users, groups or roles as TML: v2 `metadata/tml/export/batch` on either generation (v1 has none: `generationFor`). See `PublicApiV2.exportTmlBatch`. */
  async exportTmlBatch(type: TmlBatchType, offset: number, size: number, options: { format?: 'YAML' | 'JSON' } = {}, opts?: CallOptions): Promise<ExportedTmlObject[]> {
    await this.generationFor('exportTmlBatch', opts?.signal);
    return this.v2.exportTmlBatch(type, offset, size, options, opts);
  }
  /** Starts an import task: v2 `metadata/tml/async/import` on either generation (v1 has none). See `PublicApiV2.importTmlAsync`. */
  async importTmlAsync(texts: string[], policy: TmlAsyncImportPolicy, options: { createNew?: boolean } = {}, opts?: CallOptions): Promise<TmlImportTask> {
    await this.generationFor('importTmlAsync', opts?.signal);
    return this.v2.importTmlAsync(texts, policy, options, opts);
  }
  /** An import task's state: v2 `metadata/tml/async/status` on either generation (v1 has none). See `PublicApiV2.importTaskStatus`. */
  async importTaskStatus(taskId: string, options: { withResponse?: boolean } = {}, opts?: CallOptions): Promise<TmlImportTask | undefined> {
    await this.generationFor('importTaskStatus', opts?.signal);
    return this.v2.importTaskStatus(taskId, options, opts);
  }
  /**
   * Imports (or with `VALIDATE_ONLY` only validates) TML texts, one result per text in order; `createNew`
   * creates new objects even where a `guid` names one. v1 and v2 `metadata/tml/import`. See `PublicApi.importTml`.
   */
  async importTml(texts: string[], policy: TmlImportPolicy, options: { createNew?: boolean } = {}, opts?: CallOptions): Promise<ImportedTmlObject[]> {
    return (await this.apiFor('importTml', opts?.signal)).importTml(texts, policy, options, opts);
  }
  /** What depends on a data source, or on one column with `of` LOGICAL_COLUMN (by GUID): v1 `dependency/listdependents` or v2 `metadata/search` with `include_dependent_objects`. See `PublicApi.listDependents`, `PublicApiV2.listDependents`. */
  async listDependents(id: string, opts?: CallOptions, of?: DependencyOf): Promise<Dependents> {
    return (await this.apiFor('listDependents', opts?.signal)).listDependents(id, opts, of);
  }
  /** The custom calendars' names: v2 `calendars/search` on either generation (v1 has none: `generationFor`). See `PublicApiV2.searchCalendars`. */
  async searchCalendars(opts?: CallOptions): Promise<string[]> {
    await this.generationFor('searchCalendars', opts?.signal);
    return this.v2.searchCalendars(opts);
  }
  /** A report as CSV text: v2 `report/answer` or `report/liveboard` on either generation (v1 has none: `generationFor`). See `PublicApiV2.exportReport`. */
  async exportReport(target: ReportTarget, opts?: CallOptions): Promise<string> {
    await this.generationFor('exportReport', opts?.signal);
    return this.v2.exportReport(target, opts);
  }
  /** An answer's SQL: v2 `metadata/answer/sql` on either generation (v1 has none: `generationFor`). See `PublicApiV2.answerSql`. */
  async answerSql(identifier: string, opts?: CallOptions): Promise<AnswerSql> {
    await this.generationFor('answerSql', opts?.signal);
    return this.v2.answerSql(identifier, opts);
  }
  /** An input table linked to a model: v2 `input-tables/create` on either generation (v1 has none). See `PublicApiV2.createInputTable`. */
  async createInputTable(params: CreateInputTableParams, opts?: CallOptions): Promise<string> {
    await this.generationFor('createInputTable', opts?.signal);
    return this.v2.createInputTable(params, opts);
  }
  /** Replaces an input table's rows: v2 `input-tables/{id}/update` on either generation. See `PublicApiV2.updateInputTable`. */
  async updateInputTable(id: string, columns: string[], rows: string[][], opts?: CallOptions): Promise<number> {
    await this.generationFor('updateInputTable', opts?.signal);
    return this.v2.updateInputTable(id, columns, rows, opts);
  }
  /** Deletes an input table: v2 `input-tables/{id}/delete` on either generation. See `PublicApiV2.deleteInputTable`. */
  async deleteInputTable(id: string, opts?: CallOptions): Promise<void> {
    await this.generationFor('deleteInputTable', opts?.signal);
    return this.v2.deleteInputTable(id, opts);
  }
  /** v1 `materialization/refreshview/{id}`; on a v2-only service `OperationUnavailableError` (v2 has none). */
  async refreshMaterializedView(id: string, opts?: CallOptions): Promise<unknown> {
    await this.generationFor('refreshMaterializedView', opts?.signal);
    return this.public.refreshMaterializedView(id, opts);
  }

  // ---- data-load API (docs/service-interface.md §4.1) ----

  /** Whether the service has a data-load API (`LoadApi.present`: an unauthenticated ping that 404s where there is none). */
  hasDataLoadApi(opts?: CallOptions): Promise<boolean> {
    return this.load.present(opts);
  }
  /** `ping` of the load API. */
  ping(opts?: CallOptions): Promise<string> {
    return this.load.ping(opts);
  }
  /** StartLoad. See `LoadApi.startLoad`. */
  startLoad(definition: LoadDefinition, opts?: CallOptions): Promise<StartLoadResult> {
    return this.load.startLoad(definition, opts);
  }
  /** Load (one chunk, streamed, never re-sent). See `LoadApi.uploadChunk`. */
  uploadChunk(cycleId: string, data: Readable | AsyncIterable<Uint8Array> | Buffer | Uint8Array | string, opts?: UploadOptions): Promise<string> {
    return this.load.uploadChunk(cycleId, data, opts);
  }
  /** CommitLoad (never re-sent). */
  commitLoad(cycleId: string, opts?: CallOptions): Promise<string> {
    return this.load.commit(cycleId, opts);
  }
  /** AbortLoad. */
  abortLoad(cycleId: string, opts?: CallOptions): Promise<string> {
    return this.load.abort(cycleId, opts);
  }
  /** Status of a cycle, counts as numbers. */
  loadStatus(cycleId: string, opts?: CallOptions): Promise<LoadStatus> {
    return this.load.status(cycleId, opts);
  }
  /** The bad records file of a cycle. */
  badRecords(cycleId: string, opts?: CallOptions): Promise<string> {
    return this.load.badRecords(cycleId, opts);
  }
  /** The load parameters of a cycle. */
  inputSummary(cycleId: string, opts?: CallOptions): Promise<Record<string, unknown>> {
    return this.load.inputSummary(cycleId, opts);
  }
  /** Polls until DONE (resolves) or a failed status (throws `LoadFailedError`). See `LoadApi.pollLoadStatus`. */
  pollLoadStatus(cycleId: string, opts?: PollOptions): Promise<LoadStatus> {
    return this.load.pollLoadStatus(cycleId, opts);
  }
}

