/**
 * `tsq orgs`: the Orgs the user may act in and the one the connection runs in (common/src/api/orgs.ts;
 * v1 `GET session/orgs`, v2 the `orgs` of `auth/session/user`), as a text table or JSON. `--org` on any
 * command (or a connection's `org`) chooses where that command runs.
 */
import type { AnalyticsServiceClient, OrgList } from '../../common/src/api';
import { textTable, write } from './output';
import type { LIST_FORMATS } from './objects';

/** Lists the Orgs and writes them to stdout (the current one marked `*`). Returns the list. */
export async function runOrgsCommand(client: AnalyticsServiceClient, opts: { format: (typeof LIST_FORMATS)[number]; signal: AbortSignal }): Promise<OrgList> {
  const list = await client.listOrgs({ signal: opts.signal });
  if (opts.format === 'json') {
    await write(process.stdout, `${JSON.stringify({ current: list.current ?? null, orgs: list.orgs }, null, 2)}\n`);
  } else {
    await write(process.stdout, textTable(['CURRENT', 'ID', 'NAME'], list.orgs.map((o) => [o.id === list.current?.id ? '*' : '', String(o.id), o.name])));
  }
  return list;
}
