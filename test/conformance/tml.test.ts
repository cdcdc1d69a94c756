// Conformance of the TML operations (docs/service-interface.md §11): the requests as the documentation's
// examples write them (developer-docs tml-api.adoc for v1: `--data-urlencode` form bodies with
// `Accept: text/plain`; the OpenAPI document of thoughtspot/rest-api-sdk for v2), the example answer
// bodies' shapes, then the same operations through TSQ's client (common/src/api/tml.ts) on v1 and v2.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { AnalyticsServiceClient } from '../../common/src/api';
import { example, startConformance, type Conformance } from './support';

let c: Conformance;
let answerId: string;
let moviesId: string;
/** The headers of tml-api.adoc's curl examples. */
const TEXT_PLAIN_FORM = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/plain', 'X-Requested-By': 'ThoughtSpot' };

before(async () => {
  c = await startConformance();
  const headers = await c.client().listObjectHeaders({ type: 'QUESTION_ANSWER_BOOK' });
  answerId = headers.find((h) => h.name === 'Top grossing genres')!.id;
  moviesId = (await c.client().listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'movies' })).find((h) => h.name === 'movies')!.id;
});
after(async () => c?.stop());

describe('tml-api.adoc (v1)', () => {
  test('Export TML example: export_ids, formattype=JSON, export_associated=false, export_fqn=true → {object: [{info, edoc}]}', async () => {
    const body = new URLSearchParams({ export_ids: JSON.stringify([answerId]), formattype: 'JSON', export_associated: 'false', export_fqn: 'true' }).toString();
    const a = await example(c.emu.url, 'POST', '/metadata/tml/export', TEXT_PLAIN_FORM, body, c.adminCookie);
    assert.equal(a.status, 200, a.text);
    const [o] = (a.json as { object: { info: Record<string, unknown>; edoc: string }[] }).object;
    assert.deepEqual(Object.keys(o!.info).sort(), ['filename', 'id', 'name', 'status', 'type']);
    assert.deepEqual(o!.info.status, { status_code: 'OK' });
    const doc = JSON.parse(o!.edoc) as { guid: string; answer: { tables: { fqn: string }[] } };
    assert.equal(doc.guid, answerId);
    assert.equal(doc.answer.tables[0]!.fqn, moviesId);
  });
  test('Import TML example: import_objects as a JSON array of JSON objects, import_policy=PARTIAL, force_create=true → {object: [{response: {status, header}}]}', async () => {
    const tml = [{ guid: '12289fad-f230-485e-8c65-e36082eebf44', answer: { name: 'Basic Answer 1', description: 'This is basic answer with table and headline visualizations.', tables: [{ id: 'movies', name: 'movies', fqn: moviesId }], search_query: '[Major Genre] [US Gross]', answer_columns: [{ name: 'Total US Gross' }, { name: 'Major Genre' }], table: { table_columns: [{ column_id: 'Major Genre', headline_aggregation: 'COUNT_DISTINCT' }], ordered_column_ids: ['Major Genre', 'Total US Gross'] }, chart: { type: 'COLUMN', chart_columns: [{ column_id: 'Total US Gross' }], axis_configs: [{ x: ['Major Genre'], y: ['Total US Gross'] }] }, display_mode: 'TABLE_MODE' } }];
    const body = new URLSearchParams({ import_objects: JSON.stringify(tml), import_policy: 'PARTIAL', force_create: 'true' }).toString();
    const a = await example(c.emu.url, 'POST', '/metadata/tml/import', TEXT_PLAIN_FORM, body, c.adminCookie);
    assert.equal(a.status, 200, a.text);
    const [o] = (a.json as { object: { response: { status: unknown; header: Record<string, unknown> } }[] }).object;
    assert.deepEqual(o!.response.status, { status_code: 'OK' });
    assert.deepEqual(Object.keys(o!.response.header).sort(), ['author_guid', 'description', 'id_guid', 'metadata_type', 'name', 'owner_guid']);
    assert.equal(o!.response.header.metadata_type, 'QUESTION_ANSWER_BOOK');
    assert.notEqual(o!.response.header.id_guid, '12289fad-f230-485e-8c65-e36082eebf44', 'force_create: a new GUID');
  });
});

describe('through the client (common/src/api/tml.ts)', () => {
  for (const apiVersion of ['v1', 'v2'] as const) {
    test(`${apiVersion}: export, VALIDATE_ONLY of an edited copy, answerSql`, async () => {
      const client = new AnalyticsServiceClient({ url: c.emu.url, username: 'tsadmin', password: 'admin', apiVersion });
      try {
        const [o] = await client.exportTml([{ identifier: answerId }], { format: 'YAML' });
        const doc = parse(o!.edoc) as { answer: { search_query: string } };
        assert.equal(doc.answer.search_query, '[Major Genre] [Worldwide Gross] top 5');
        const edited = o!.edoc.replace('[Worldwide Gross]', '[Gross X]');
        const [r] = await client.importTml([edited], 'VALIDATE_ONLY');
        assert.equal(r!.status.status_code, 'ERROR');
        assert.match(r!.status.error_message!, /Gross X/);
        if (apiVersion === 'v2') assert.match((await client.answerSql(answerId)).sql_queries[0]!.sql_query, /^SELECT /);
      } finally {
        await client.close();
      }
    });
  }
});
