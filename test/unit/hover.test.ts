/**
 * Hover of the .tsq language service, with `|` marking the cursor, against catalogs built from the
 * vega-datasets flights, cars and movies data (test/fixtures/catalogs.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Hover, MarkupContent } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { CatalogProvider, LanguageSettings } from '../../common/src/languageService/types';
import { carsCatalog, flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';
import { KEYWORDS, THOUGHTSPOT_DOCS_URL, keywordReferenceUrl } from '../../common/src/language/keywords';

async function hover(text: string, opts: { settings?: LanguageSettings; catalog?: CatalogProvider | null; cancelled?: boolean } = {}) {
  const offset = text.indexOf('|');
  assert.ok(offset >= 0, 'test text needs a | cursor');
  const document = TextDocument.create('file:///test.tsq', 'tsq', 1, text.slice(0, offset) + text.slice(offset + 1));
  const catalog = opts.catalog === null ? undefined : (opts.catalog ?? makeCatalogProvider([flightsCatalog(), carsCatalog(), moviesCatalog()]));
  const ls = getLanguageService({ catalog });
  const result = await ls.doHover(document, document.positionAt(offset), opts.settings ?? {}, { isCancellationRequested: !!opts.cancelled });
  return { result, document };
}

function markdown(h: Hover | null): string {
  assert.ok(h, 'a hover');
  const c = h.contents as MarkupContent;
  assert.equal(c.kind, 'markdown');
  return c.value;
}

const FLIGHTS = "@datasource 'Flights'\n";

test('a column shows its data type, kind, data source and description; the range is the column', async () => {
  const { result, document } = await hover(FLIGHTS + '[origin] [de|lay] > 10');
  const md = markdown(result);
  assert.match(md, /delay/);
  assert.match(md, /INT64/);
  assert.match(md, /measure/i);
  assert.match(md, /Flights/);
  assert.match(md, /Arrival delay in minutes/);
  assert.equal(document.getText(result!.range!), '[delay]');
});

test('a bucketed column and a column with spaces', async () => {
  const bucketed = await hover(FLIGHTS + '[da|te].monthly [delay]');
  assert.match(markdown(bucketed.result), /DATE_TIME/);
  const movies = await hover("@datasource 'Movies'\n[Major |Genre] [US Gross]");
  const md = markdown(movies.result);
  assert.match(md, /VARCHAR/);
  assert.match(md, /attribute/i);
  assert.match(md, /Movies/);
});

test('the data source in force comes from the settings when no @datasource is written', async () => {
  const { result } = await hover('[Horse|power] [Name]', { settings: { defaultDataSource: 'Cars' } });
  const md = markdown(result);
  assert.match(md, /INT64/);
  assert.match(md, /Cars/);
});

test('an unknown column says it is not a column of the data source', async () => {
  const { result } = await hover(FLIGHTS + '[dela|yy]');
  assert.match(markdown(result), /not a column of.*Flights/i);
});

test('a keyword shows its meaning and an example, multi-word keywords as a whole', async () => {
  const { result, document } = await hover(FLIGHTS + '[origin] [delay] sort |by [delay] descending');
  const md = markdown(result);
  assert.match(md, /sort by/);
  assert.match(md, /Sorts the result by a column/);
  assert.match(md, /\[origin\] \[delay\] sort by \[delay\] descending/);
  assert.equal(document.getText(result!.range!).toLowerCase(), 'sort by');
  const op = await hover(FLIGHTS + '[origin] beg|ins with \'S\'');
  assert.match(markdown(op.result), /begins with/);
});

test('keyword hover works without a catalog', async () => {
  const { result } = await hover('[delay] to|p 10', { catalog: null });
  assert.match(markdown(result), /top/i);
});

test('@datasource shows the source type and GUID', async () => {
  const { result } = await hover("@data|source 'Flights'\n[delay]");
  const md = markdown(result);
  assert.match(md, /Flights/);
  assert.match(md, /WORKSHEET/);
  assert.ok(md.includes(flightsCatalog().id));
  const onValue = await hover("@datasource 'Ca|rs'\n[Name]");
  const md2 = markdown(onValue.result);
  assert.match(md2, /ONE_TO_ONE_LOGICAL/);
  assert.ok(md2.includes(carsCatalog().id));
  const unknown = await hover("@datasource 'Tra|ins'\n[Name]");
  assert.match(markdown(unknown.result), /no data source/i);
});

test('no hover on whitespace, values or comments; cancelled answers null', async () => {
  assert.equal((await hover(FLIGHTS + '[delay] |  [origin]')).result, null);
  assert.equal((await hover(FLIGHTS + "[origin] = 'SE|A'")).result, null);
  assert.equal((await hover(FLIGHTS + '-- sort |by [delay]')).result, null);
  assert.equal((await hover(FLIGHTS + '[de|lay]', { cancelled: true })).result, null);
});

test('any text, any position: hover never throws and its range covers the position', async () => {
  const fc = await import('fast-check');
  const fragments = ['[', ']', '[origin]', '[delay', '[date].monthly', "'", "'SEA'", ',', ' ', '\n', '\n\n', ';', '-- c', '@datasource ', "@datasource 'Flights'", '=', 'sort by', 'not contains', '{null}', 'top 10', 'é', '\u0000'];
  const ls = getLanguageService({ catalog: makeCatalogProvider([flightsCatalog()]) });
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...fragments), { maxLength: 30 }), fc.nat(), async (parts, at) => {
      const text = parts.join('');
      const document = TextDocument.create('file:///prop.tsq', 'tsq', 1, text);
      const offset = at % (text.length + 1);
      const h = await ls.doHover(document, document.positionAt(offset), {});
      if (!h) return;
      const start = document.offsetAt(h.range!.start);
      const end = document.offsetAt(h.range!.end);
      assert.ok(start <= offset && offset < end, `range [${start}, ${end}) covers ${offset} in ${JSON.stringify(text)}`);
    }),
    { numRuns: 400 },
  );
});

test('a keyword hover links to its published reference page, built from the one documentation URL', async () => {
  const { result } = await hover(FLIGHTS + '[origin] [delay] to|p 10');
  const md = markdown(result);
  const links = [...md.matchAll(/\[([^\]]+)\]\((https:\/\/[^)\s]+)\)/g)];
  assert.equal(links.length, 1, `one markdown link in ${JSON.stringify(md)}`);
  const [, text, url] = links[0]!;
  assert.equal(url, `${THOUGHTSPOT_DOCS_URL}cloud/latest/keywords`);
  assert.match(text!, /keyword reference/i);
  // the file name of the documentation's sources is no longer the citation itself
  assert.ok(!/`[^`]*\.adoc`/.test(md), md);
  assert.ok(!md.includes('.adoc'), md);
});

test('every keyword of the catalogue cites a URL of the documentation site; pages of their own keep their name', () => {
  for (const k of KEYWORDS) {
    const url = keywordReferenceUrl(k.page);
    assert.ok(url.startsWith(THOUGHTSPOT_DOCS_URL), `${k.name}: ${url}`);
    assert.match(url, /^https:\/\/docs\.thoughtspot\.com\/(cloud|software)\/latest\/[a-z0-9-]+$/, `${k.name}: ${url}`);
  }
  assert.equal(keywordReferenceUrl('cloud/modules/ROOT/pages/search-growth.adoc'), `${THOUGHTSPOT_DOCS_URL}cloud/latest/search-growth`);
  assert.equal(keywordReferenceUrl('software/modules/ROOT/partials/keywords/week_to_date_for_each_year.adoc'), `${THOUGHTSPOT_DOCS_URL}software/latest/keywords`);
});
