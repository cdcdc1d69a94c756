/**
 * `tsq query FILE.tsq --sql`: prints the SQL the service runs behind the file's query. REST API v2
 * gives the SQL of a saved Answer only (`metadata/answer/sql`, OpenAPI `fetchAnswerSqlQuery`; also
 * `metadata/liveboard/sql`), none of an ad-hoc search (its `searchdata` answers rows only): so the file's
 * `@answer 'GUID'` line (common/src/tml/answerLink.ts) names the Answer whose SQL is shown, and a file
 * without one is refused, saying so (docs/service-notes.md §13).
 */
import { readFile } from 'node:fs/promises';
import { sqlTextOf, type AnalyticsServiceClient } from '../../common/src/api';
import { answerLinkOf } from '../../common/src/tml/answerLink';
import { terminalLines } from '../../common/src/terminalText';
import { UsageError } from './exitCodes';
import { info, write } from './output';

/**
 * Prints on stdout the SQL of the Answer `file` is linked to, each statement the service lists followed
 * by a blank line between them; resolves to how many there were.
 * @throws UsageError when the file cannot be read or has no `@answer` line; ServiceError as every call
 */
export async function runQuerySqlCommand(client: AnalyticsServiceClient, file: string, signal?: AbortSignal): Promise<number> {
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`Cannot read ${file}: ${e.code ?? e.message}`);
  });
  const link = answerLinkOf(text);
  if (!link) {
    throw new UsageError(`${file} has no @answer 'GUID' line: the service gives the SQL of a saved Answer only (REST API v2 metadata/answer/sql), none of an ad-hoc search. Save the query as an Answer (tsq tml import) and link the file to it with an @answer line.`);
  }
  const answer = await client.answerSql(link.guid, { signal });
  info(`the SQL of the Answer ${answer.metadata_name} (${answer.metadata_id}), as the service runs it`);
  await write(process.stdout, `${terminalLines(sqlTextOf(answer))}\n`);
  return answer.sql_queries.length;
}
