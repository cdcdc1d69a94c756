/**
 * The TML routes of both API generations over one `TmlService` (answers.ts; docs/service-interface.md §11.2):
 *
 * | v1 (`/tspublic/v1/…`, form or JSON parameters) | v2 (`/api/rest/2.0/…`, JSON) |
 * |---|---|
 * | `POST metadata/tml/export`: `export_ids`, `formattype` (YAML), `export_fqn` → `{object: [{info, edoc}]}` | `POST metadata/tml/export`: `metadata: [{identifier, type?}]`, `edoc_format` (JSON), `export_fqn` → `[{info, edoc}]` |
 * | `POST metadata/tml/import`: `import_objects`, `import_policy` (PARTIAL), `force_create` → `{object: [{response}]}` | `POST metadata/tml/import`: `metadata_tmls`, `import_policy` (PARTIAL), `create_new` → `[{response}]` |
 * | — | `POST metadata/answer/sql`: `metadata_identifier` → `SqlQueryResponse` |
 * | — | `POST metadata/answer/data`: `metadata_identifier`, `data_format`, `record_offset` (0), `record_size` (10; -1 all) → `AnswerDataResponse` |
 * Sources: thoughtspot/developer-docs `tml-api.adoc` (v1), `tml-import.adoc`; thoughtspot/rest-api-sdk `api-spec/openapiSpecv3-2_0.json` (v2).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EmulatorUser } from '../context';
import { ApiError, badRequest } from '../errors';
import { userOf } from '../public/params';
import { IMPORT_POLICIES, type ImportPolicy, TmlService } from './answers';
import { isOneOf, recordOr } from '../../../common/src/guards';
import { body, bool, formValues, str } from '../requestValues';

/** Most objects one export or import names (the service advises about 50 per import call; this is a guard, not that advice). */
export const MAX_TML_OBJECTS = 1000;
/** Most rows one page of an answer's data holds (`record_size: -1` included), as searchdata's. */
const MAX_ANSWER_ROWS = 100_000;

function policyOf(v: unknown): ImportPolicy {
  const p = v === undefined || v === null || v === '' ? 'PARTIAL' : String(v).toUpperCase();
  if (!isOneOf(IMPORT_POLICIES, p)) throw badRequest(`Invalid value for import_policy: ${String(v)} (${IMPORT_POLICIES.join(', ')})`);
  return p;
}

function formatOf(name: string, v: unknown, dflt: 'YAML' | 'JSON'): 'YAML' | 'JSON' {
  const f = v === undefined || v === null || v === '' ? dflt : String(v).toUpperCase();
  if (f !== 'YAML' && f !== 'JSON') throw badRequest(`Invalid value for ${name}: ${String(v)} (YAML or JSON)`);
  return f;
}

/** A list of strings given as a JSON array (v1 form parameter, or the array itself in a JSON body). Never split on commas: TML texts hold commas. */
function stringArray(name: string, raw: unknown): string[] {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw badRequest(`Invalid value for ${name}: expected a JSON array of strings`);
    }
  }
  if (!Array.isArray(v) || v.length === 0) throw badRequest(`Invalid value for ${name}: expected a non-empty JSON array`);
  if (v.length > MAX_TML_OBJECTS) throw badRequest(`Invalid value for ${name}: ${v.length} objects; at most ${MAX_TML_OBJECTS} in one call`);
  // v1 examples send objects (JSON TML) inside the array as well as strings
  return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
}

/** Registers the v1 TML routes in the v1 public API scope (its authentication hook sets the user). */
export function registerTmlV1Routes(api: FastifyInstance, tml: TmlService): void {
  api.post('/metadata/tml/export', async (req) => {
    const user = userOf(req);
    const ids = stringArray('export_ids', formValues(req)['export_ids']);
    const format = formatOf('formattype', str(formValues(req), 'formattype'), 'YAML');
    const fqn = bool(formValues(req), 'export_fqn', false);
    bool(formValues(req), 'export_associated');
    return { object: ids.map((id) => tml.exportOne(user, id, undefined, format, fqn)) };
  });
  api.post('/metadata/tml/import', async (req) => {
    const user = userOf(req);
    const texts = stringArray('import_objects', formValues(req)['import_objects']);
    const policy = policyOf(str(formValues(req), 'import_policy'));
    if (policy === 'PARTIAL_OBJECT') throw badRequest('Invalid value for import_policy: PARTIAL_OBJECT is a REST API v2 policy (PARTIAL, ALL_OR_NONE, VALIDATE_ONLY)');
    return { object: tml.importAll(user, texts, policy, bool(formValues(req), 'force_create', false)) };
  });
}

function v2Bool(b: Record<string, unknown>, name: string): boolean {
  const v = b[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ApiError(400, `Invalid value for ${name}: expected true or false.`);
  return v;
}

/** Registers the v2 TML routes and `metadata/answer/sql` in the v2 scope (its hook sets `req.v2User`). */
export function registerTmlV2Routes(api: FastifyInstance, tml: TmlService): void {
  const userOfV2 = (req: FastifyRequest): EmulatorUser => req.v2User!;
  api.post('/metadata/tml/export', async (req) => {
    const b = body(req);
    const md = b.metadata;
    if (!Array.isArray(md) || md.length === 0) throw new ApiError(400, 'Missing parameter metadata: a list of {identifier, type}.');
    if (md.length > MAX_TML_OBJECTS) throw new ApiError(400, `Invalid value for metadata: ${md.length} objects; at most ${MAX_TML_OBJECTS} in one call.`);
    const format = formatOf('edoc_format', b.edoc_format, 'JSON');
    const fqn = v2Bool(b, 'export_fqn');
    v2Bool(b, 'export_associated');
    return md.map((m: unknown) => {
      const e = recordOr(m);
      if (typeof e.identifier !== 'string' || e.identifier === '') throw new ApiError(400, 'Invalid value for metadata: each entry needs identifier (a GUID or, with type, a name).');
      if (e.type !== undefined && e.type !== null && typeof e.type !== 'string') throw new ApiError(400, 'Invalid value for metadata type: expected a text.');
      return tml.exportOne(userOfV2(req), e.identifier, typeof e.type === 'string' ? e.type.toUpperCase() : undefined, format, fqn);
    });
  });
  api.post('/metadata/tml/import', async (req) => {
    const b = body(req);
    const texts = stringArray('metadata_tmls', b.metadata_tmls);
    return tml.importAll(userOfV2(req), texts, policyOf(b.import_policy), v2Bool(b, 'create_new'));
  });
  api.post('/metadata/answer/data', async (req) => {
    const b = body(req);
    const id = b.metadata_identifier;
    if (typeof id !== 'string' || id === '') throw new ApiError(400, 'Missing parameter metadata_identifier.');
    const format = String(b.data_format ?? 'COMPACT').toUpperCase();
    if (format !== 'COMPACT' && format !== 'FULL') throw new ApiError(400, `Invalid value for data_format: ${format} (COMPACT or FULL).`);
    const whole = (name: string, dflt: number, min: number): number => {
      const v = b[name] ?? dflt;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new ApiError(400, `Invalid value for ${name}: expected an integer of ${min} or more.`);
      return v;
    };
    const offset = whole('record_offset', 0, 0);
    const size = whole('record_size', 10, -1);
    if (size === 0) throw new ApiError(400, 'Invalid value for record_size: 0 (-1 for all rows, or 1 or more).');
    return tml.answerData(userOfV2(req), id, { format, offset, pageSize: size === -1 ? MAX_ANSWER_ROWS : Math.min(size, MAX_ANSWER_ROWS) });
  });
  api.post('/metadata/answer/sql', async (req) => {
    const b = body(req);
    const id = b.metadata_identifier;
    if (typeof id !== 'string' || id === '') throw new ApiError(400, 'Missing parameter metadata_identifier.');
    return tml.answerSql(userOfV2(req), id);
  });
}

export { TmlService };
