/**
 * A model's table paths in the built language server (dist/server.js): the catalog it asks over
 * `tsq/columns` is the service catalog (common/src/catalog) of a real emulator, read over v1 and v2. On
 * `Flights Model`, `[airports_2::city]` is its destination city (no diagnostic; hover names the model's
 * column); an unknown path or column is an unknown column with a did-you-mean and its quick fix;
 * `[airports_2::` completes that path's columns, and a filter on it the values of its column.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceCatalogProvider } from '../../common/src/catalog';
import { startLive, type Live } from '../emulator/client-support';
import { LspClient, positionOf } from './lspClient';

describe('table paths of a model over the protocol', () => {
  let live: Live;
  before(async () => {
    live = await startLive();
  });
  after(async () => {
    await live?.stop();
  });

  for (const apiVersion of ['v1', 'v2'] as const) {
    test(`diagnostics, hover and completion of [path::column] (catalog over ${apiVersion})`, async () => {
      const catalog = new ServiceCatalogProvider(live.client(undefined, apiVersion === 'v2' ? { apiVersion } : {}));
      const { client } = await LspClient.start({ pullDiagnostics: true, catalog });
      try {
        const uri = 'file:///w/paths.tsq';
        const text = "@datasource 'Flights Model'\n[airports_2::city] [Airports_1::State] [airports_9::city] [airports_2::ctiy]\n";
        await client.didOpen(uri, text);
        const diagnostics = await client.pullDiagnostics(uri);
        const at = (needle: string) => positionOf(text, needle).character;
        assert.deepEqual(
          diagnostics.map((d) => [d.range.start.line, d.range.start.character, d.code, d.message]),
          [
            [1, at('airports_9'), 'tsq.unknownColumn', 'Unknown column [airports_9::city] in "Flights Model". Did you mean [airports_1::city], [airports_2::city], [airports_1::name]?'],
            [1, at('airports_2::ctiy'), 'tsq.unknownColumn', 'Unknown column [airports_2::ctiy] in "Flights Model". Did you mean [airports_2::city], [airports_1::city], [airports_2::name]?'],
          ],
        );
        // the quick fix of a path's misspelt column writes its first suggestion
        const fix = await client.codeActions(uri, diagnostics[1]!.range, [diagnostics[1]!]);
        assert.equal(fix?.[0]?.edit?.changes?.[uri]?.[0]?.newText, 'airports_2::city');
        const hover = await client.hover(uri, positionOf(text, 'airports_2::city', 3));
        assert.match((hover?.contents as { value: string } | undefined)?.value ?? '', /\[Destination City\][\s\S]*Reads `\[airports_2::city\]`/);
        const typed = "@datasource 'Flights Model'\n[airports_2::ci";
        await client.didChange(uri, typed, 2);
        const list = await client.completion(uri, positionOf(typed, '::ci', 4));
        const labels = (list?.items ?? []).map((i) => i.label);
        assert.ok(labels.includes('city') && labels.includes('state') && !labels.includes('Destination City'), labels.join(', '));
        // a filter value of a path's column: the values of the model's column it names
        const filter = "@datasource 'Flights Model'\n[airports_2::city] = 'Seat";
        await client.didChange(uri, filter, 3);
        const values = await client.completion(uri, positionOf(filter, 'Seat', 4));
        assert.ok((values?.items ?? []).some((i) => i.label === "'Seattle'"), JSON.stringify(values?.items.map((i) => i.label)));
        assert.ok(client.alive, client.stderr);
      } finally {
        await client.stop();
      }
    });
  }
});
