/**
 * The request filters of REST API v2 `users/search` and `groups/search` beyond names (OpenAPI
 * `SearchUsersRequest`, `SearchUserGroupsRequest` of thoughtspot/rest-api-sdk
 * `api-spec/openapiSpecv3-2_0.json`): privileges, visibility, account type and status, Orgs, roles,
 * group type and sub-groups. Each is a predicate over the emulator's stored principals; the readings the
 * document leaves open are in docs/service-notes.md ("users/search and groups/search filters").
 */
import type { MetadataStore, StoredGroup, StoredUser } from '../metadataStore';
import { ApiError } from '../errors';
import { str, stringList } from '../requestValues';

/** One of `allowed`, upper-cased, or undefined when absent. @throws ApiError 400 naming the member */
function oneOf(b: Record<string, unknown>, name: string, allowed: readonly string[]): string | undefined {
  const v = str(b, name)?.toUpperCase();
  if (v !== undefined && !allowed.includes(v)) throw new ApiError(400, `Invalid value for ${name}: ${v} (${allowed.join(', ')}).`);
  return v;
}

/** `SearchUsersRequest.account_type` values; the emulator's users are LOCAL_USER. */
const ACCOUNT_TYPES = ['LOCAL_USER', 'LDAP_USER', 'SAML_USER', 'OIDC_USER', 'REMOTE_USER'];
/** `SearchUsersRequest.account_status` values; the emulator's users are ACTIVE. */
const ACCOUNT_STATUSES = ['ACTIVE', 'INACTIVE', 'EXPIRED', 'LOCKED', 'PENDING', 'SUSPENDED'];
/** `visibility` values of both requests. */
const VISIBILITIES = ['SHARABLE', 'NON_SHARABLE'];
/** `SearchUserGroupsRequest.type` values; the emulator's groups are LOCAL_GROUP. */
const GROUP_TYPES = ['LOCAL_GROUP', 'LDAP_GROUP', 'TEAM_GROUP', 'TENANT_GROUP'];

/**
 * The Org ids `org_identifiers` (ids or names) names, or undefined when absent (every Org); an unknown
 * Org names none, so it matches nothing.
 */
function orgIdsOf(b: Record<string, unknown>, catalog: MetadataStore): number[] | undefined {
  return stringList(b, 'org_identifiers')?.flatMap((o) => {
    const org = catalog.org(o);
    return org ? [org.id] : [];
  });
}

/** Whether `role_identifiers` is absent: the emulator has no roles (roles/search lists none), so a role filter matches nothing. */
function noRoleFilter(b: Record<string, unknown>): boolean {
  const roles = stringList(b, 'role_identifiers');
  return roles === undefined || roles.length === 0;
}

/** A group's GUID or name matches one of `ids` (lower-cased). */
function groupNamed(g: StoredGroup, ids: readonly string[]): boolean {
  return ids.includes(g.id) || ids.includes(g.name.toLowerCase());
}

/**
 * The `users/search` filters `privileges` (the user has each one listed, through its groups),
 * `visibility`, `account_type`, `account_status`, `org_identifiers` and `role_identifiers`, as one
 * predicate. A filter on a member the caller cannot see (another user's privileges, account type or status:
 * `sees` false, admin.ts `seesAllOf`) matches only what it can see. @throws ApiError 400 for a value the document does not list
 */
export function userFilter(b: Record<string, unknown>, catalog: MetadataStore, sees: (userId: string) => boolean): (u: StoredUser) => boolean {
  const privileges = stringList(b, 'privileges')?.map((p) => p.toUpperCase());
  const visibility = oneOf(b, 'visibility', VISIBILITIES);
  const type = oneOf(b, 'account_type', ACCOUNT_TYPES);
  const status = oneOf(b, 'account_status', ACCOUNT_STATUSES);
  const orgs = orgIdsOf(b, catalog);
  const roles = noRoleFilter(b);
  const hidden = privileges !== undefined || type !== undefined || status !== undefined;
  return (u) => {
    if (!roles || (orgs !== undefined && !catalog.orgsOfUser(u).some((o) => orgs.includes(o)))) return false;
    if (visibility !== undefined && (u.visibility ?? 'SHARABLE') !== visibility) return false;
    if (hidden && !sees(u.id)) return false;
    if (type !== undefined && type !== 'LOCAL_USER') return false;
    if (status !== undefined && status !== 'ACTIVE') return false;
    const has: ReadonlySet<string> | undefined = catalog.user(u.id)?.privileges;
    return privileges === undefined || privileges.every((p) => has?.has(p) === true);
  };
}

/**
 * The `groups/search` filters `type`, `visibility`, `sub_group_identifiers` (the group has one of them
 * as a sub-group), `org_identifiers` and `role_identifiers`, as one predicate; and what `include_users`
 * and `include_sub_groups` (both default true) keep in each answer. @throws ApiError 400 for a value the
 * document does not list
 */
export function groupFilter(b: Record<string, unknown>, catalog: MetadataStore): { keep: (g: StoredGroup) => boolean; include: { users: boolean; subGroups: boolean } } {
  const type = oneOf(b, 'type', GROUP_TYPES);
  const visibility = oneOf(b, 'visibility', VISIBILITIES);
  const subs = stringList(b, 'sub_group_identifiers')?.map((s) => s.toLowerCase());
  const subIds = subs === undefined ? undefined : catalog.state.groups.filter((g) => groupNamed(g, subs)).map((g) => g.id);
  const orgs = orgIdsOf(b, catalog);
  const roles = noRoleFilter(b);
  const flag = (name: string): boolean => {
    const v = b[name];
    if (v === undefined || v === null) return true;
    if (typeof v !== 'boolean') throw new ApiError(400, `Invalid value for ${name}: expected true or false.`);
    return v;
  };
  return {
    keep: (g) =>
      (orgs === undefined || orgs.includes(catalog.orgOf(g))) &&
      roles &&
      (type === undefined || type === 'LOCAL_GROUP') &&
      (visibility === undefined || (g.visibility ?? 'SHARABLE') === visibility) &&
      (subIds === undefined || (g.subGroups ?? []).some((x) => subIds.includes(x))),
    include: { users: flag('include_users'), subGroups: flag('include_sub_groups') },
  };
}
