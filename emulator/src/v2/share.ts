/**
 * REST API v2 `POST security/metadata/share` (OpenAPI `shareMetadata` of thoughtspot/rest-api-sdk,
 * `api-spec/openapiSpecv3-2_0.json`; https://developers.thoughtspot.com/docs/access-control-sharing):
 * shares objects with users and groups READ_ONLY or MODIFY, or takes a share back with NO_ACCESS. The
 * share mode it sets is what `MetadataStore.canRead` and `canModify` read, so a TML import over an object
 * shared READ_ONLY is refused (emulator/src/tml/answers.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { EmulatorUser } from '../context';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import { SHARE_MODES, type Header, type ShareMode } from '../metadataStore';
import type { V2Deps } from './routes';
import { isOneOf, isRecord } from '../../../common/src/guards';
import { body, str } from '../requestValues';

/** The members `shareMetadata` takes. */
const SHARE_MEMBERS = ['metadata_type', 'metadata_identifiers', 'metadata', 'permissions', 'visualization_identifiers', 'emails', 'message', 'enable_custom_url', 'notify_on_share', 'has_lenient_discoverability'] as const;

/** The object types of `metadata_type` and `metadata[].type` and the objects each names in the emulator. */
const OBJECT_TYPES: Record<string, 'table' | 'QUESTION_ANSWER_BOOK' | 'PINBOARD_ANSWER_BOOK'> = { LOGICAL_TABLE: 'table', ANSWER: 'QUESTION_ANSWER_BOOK', LIVEBOARD: 'PINBOARD_ANSWER_BOOK' };


/**
 * Registers `security/metadata/share` in the v2 scope (its hook sets `req.v2User`).
 *
 * | member | what the emulator does |
 * |---|---|
 * | `metadata_identifiers` (GUIDs or names) with `metadata_type`, or `metadata` [{`identifier`, `type`}] | the objects: answers, liveboards, tables and worksheets (`ANSWER`, `LIVEBOARD`, `LOGICAL_TABLE`) |
 * | `permissions` [{`principal`: {`identifier`, `type` USER or USER_GROUP}, `share_mode`}] | each principal's share, replacing the one it had |
 * | `visualization_identifiers`, `emails`, `message`, `notify_on_share`, `has_lenient_discoverability`, `enable_custom_url` | accepted, no effect (the emulator sends no mail) |
 *
 * Needs edit access to every object ("Requires edit access to the metadata object": `canModify`), else 403
 * and nothing changes; an object the caller may not read is an unknown object (400). Only an administrator shares with a NON_SHARABLE group ("A user with administrator
 * privileges can share any content to any user or group regardless of their visibility"). Answers 204.
 */
export function registerShareV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog } = deps;

  /**
   * The object of an identifier (a GUID, or a name with or without a type) among those the caller may
   * read: one it may not read is not there for it, as in metadata/search. @throws ApiError 400
   */
  const objectOf = (caller: EmulatorUser, identifier: unknown, type: unknown): Header => {
    if (typeof identifier !== 'string' || identifier === '') throw new ApiError(400, 'Invalid value for metadata_identifiers: each entry is a GUID or a name.');
    const t = type === undefined || type === null ? undefined : String(type).toUpperCase();
    if (t !== undefined && !(t in OBJECT_TYPES)) throw new ApiError(400, `Invalid value for metadata_type: ${t} (${Object.keys(OBJECT_TYPES).join(', ')}).`);
    const want = t === undefined ? undefined : OBJECT_TYPES[t];
    const k = identifier.toLowerCase();
    const st = catalog.state;
    const candidates: Header[] = [...(want === undefined || want === 'table' ? st.tables : []), ...st.books.filter((b) => want === undefined || b.type === want)].filter((o) => catalog.canRead(caller, o));
    const o = candidates.find((x) => x.id === k) ?? candidates.find((x) => x.name.toLowerCase() === k);
    if (!o) throw new ApiError(400, `Invalid value for metadata_identifiers: no object ${identifier}${t ? ` of type ${t}` : ''}.`);
    return o;
  };

  api.post('/security/metadata/share', async (req, reply: FastifyReply) => {
    const caller = req.v2User!;
    const b = body(req);
    const unknown = Object.keys(b).find((k) => !isOneOf(SHARE_MEMBERS, k));
    if (unknown !== undefined) throw new ApiError(400, `Invalid parameter ${unknown}: security/metadata/share takes ${SHARE_MEMBERS.join(', ')}.`);
    const type = str(b, 'metadata_type');
    const objects: Header[] = [];
    if (b.metadata_identifiers !== undefined && b.metadata_identifiers !== null) {
      if (!Array.isArray(b.metadata_identifiers)) throw new ApiError(400, 'Invalid value for metadata_identifiers: expected a list of GUIDs or names.');
      for (const id of b.metadata_identifiers) objects.push(objectOf(caller, id, type));
    }
    if (b.metadata !== undefined && b.metadata !== null) {
      if (!Array.isArray(b.metadata)) throw new ApiError(400, 'Invalid value for metadata: expected a list of {identifier, type}.');
      for (const m of b.metadata) objects.push(objectOf(caller, isRecord(m) ? m.identifier : undefined, isRecord(m) ? m.type : undefined));
    }
    if (objects.length === 0) throw new ApiError(400, 'Missing parameter metadata_identifiers: the objects to share.');
    const perms = b.permissions;
    if (!Array.isArray(perms) || perms.length === 0) throw new ApiError(400, 'Missing parameter permissions: a list of {principal: {identifier, type}, share_mode}.');
    const shares = perms.map((p: unknown): { id: string; mode: ShareMode } => {
      const principal = isRecord(p) ? p.principal : undefined;
      const mode = isRecord(p) && typeof p.share_mode === 'string' ? p.share_mode.toUpperCase() : undefined;
      if (!isRecord(principal) || typeof principal.identifier !== 'string' || principal.identifier === '') throw new ApiError(400, 'Invalid value for permissions: each entry needs principal {identifier, type}.');
      if (mode === undefined || !isOneOf(SHARE_MODES, mode)) throw new ApiError(400, `Invalid value for permissions share_mode: ${String(isRecord(p) ? p.share_mode : undefined)} (${SHARE_MODES.join(', ')}).`);
      const ptype = principal.type === undefined || principal.type === null ? undefined : String(principal.type).toUpperCase();
      if (ptype !== undefined && ptype !== 'USER' && ptype !== 'USER_GROUP') throw new ApiError(400, `Invalid value for principal type: ${ptype} (USER or USER_GROUP).`);
      const key = principal.identifier.toLowerCase();
      const user = ptype === 'USER_GROUP' ? undefined : catalog.usersIn(caller.orgId).find((u) => u.id === key || u.name.toLowerCase() === key);
      const group = ptype === 'USER' || user ? undefined : catalog.groupsIn(caller.orgId).find((g) => g.id === key || g.name.toLowerCase() === key);
      if (!user && !group) throw new ApiError(400, `Invalid value for principal identifier: no ${ptype === 'USER' ? 'user' : ptype === 'USER_GROUP' ? 'group' : 'user or group'} ${principal.identifier}.`);
      if (group && group.visibility === 'NON_SHARABLE' && mode !== 'NO_ACCESS' && !caller.privileges.has('ADMINISTRATION')) throw new ApiError(403, `The group ${group.name} is NOT SHAREABLE: only an administrator shares with it.`);
      return { id: (user ?? group)!.id, mode };
    });
    // every object and principal was checked: refuse the whole request before any change
    if (objects.some((o) => !catalog.canModify(caller, o))) throw new ApiError(403, FORBIDDEN_TEXT);
    for (const o of objects) for (const s of shares) catalog.share(o, s.id, s.mode);
    catalog.save();
    return reply.code(204).send();
  });
}
