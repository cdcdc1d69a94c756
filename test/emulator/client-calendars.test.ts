// The service's custom calendars reach completion after `calendar.`: the client's v2 `calendars/search`
// (OpenAPI searchCalendars; docs.thoughtspot.com cloud/latest/connections-cust-cal) against the real
// emulator, read by the service catalog every front end shares (common/src/catalog), then offered by the
// language service. A user without DATAMANAGEMENT or ADMINISTRATION is refused the list (403): no calendar
// is offered, and the rest of the catalog stays readable (no hold-off).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ServiceCatalogProvider } from '../../common/src/catalog';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { ADMIN, ANALYST, startLive, type Live } from './client-support';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => live?.stop());

async function calendarLabels(catalog: ServiceCatalogProvider): Promise<string[]> {
  const text = "@datasource 'flights'\n[delay] [date].monthly calendar.";
  const document = TextDocument.create('file:///c.tsq', 'tsq', 1, text);
  const list = await getLanguageService({ catalog }).doComplete(document, document.positionAt(text.length), {});
  return list.items.map((i) => i.label);
}

test('an administrator is offered the demo\'s retail calendar after calendar., on either API generation', async () => {
  for (const apiVersion of ['v1', 'v2'] as const) {
    const client = live.client(ADMIN, { apiVersion });
    const catalog = new ServiceCatalogProvider(client);
    assert.deepEqual(await catalog.getCalendars(), ['retail'], apiVersion);
    assert.deepEqual(await calendarLabels(catalog), ['fiscal', 'retail'], apiVersion);
  }
});

test('a user the service refuses the list (403) is offered fiscal only, and the data sources stay readable', async () => {
  const catalog = new ServiceCatalogProvider(live.client(ANALYST));
  assert.deepEqual(await catalog.getCalendars(), []);
  assert.deepEqual(await calendarLabels(catalog), ['fiscal']);
  assert.ok((await catalog.getDataSources())?.some((d) => d.name === 'flights'));
  assert.equal(catalog.lastError, undefined);
});
