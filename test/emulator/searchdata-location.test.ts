// The location keywords through the emulator's /searchdata (list-location.adoc; docs.thoughtspot.com
// search-proximity; docs/service-notes.md §2.9): `near`, `near … within n miles|km|meters`, `farther than n
// miles|km|meters from`, on the demo's airports. The expected rows are computed here from the raw
// airports.csv with a haversine written apart from compile.ts and geo.ts (airports-support.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { AIRPORTS_GUID, airports, haversineKm, type Airport } from './airports-support';
import { adminCore, debugOf } from './core-support';

const AIRPORTS = AIRPORTS_GUID;
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

const core = adminCore();

/**
 * Where a place is (search-proximity, "How proximity search works"): the latitude/longitude pairs of the
 * airports whose `column` is `place` (any case), at most 30 of them ("up to 30 latitude/longitude pairs for
 * a given geographical value"), distinct, the first 30 by latitude then longitude (the emulator's choice).
 */
function placeOf(column: 'city' | 'state', place: string): { latitude: number; longitude: number }[] {
  const at = airports.filter((a) => a[column].toLowerCase() === place.toLowerCase());
  assert.ok(at.length > 0, place);
  const pairs = new Map(at.map((a) => [`${a.latitude},${a.longitude}`, { latitude: a.latitude, longitude: a.longitude }]));
  return [...pairs.values()].sort((a, b) => a.latitude - b.latitude || a.longitude - b.longitude).slice(0, 30);
}

/**
 * The airport codes (sorted) at a direct distance of less than `km` from one of the place's pairs (`within`:
 * "finds all latitude/longitude pairs with a direct distance of less than 10 km or a specified distance"), or
 * more than `km` from all of them (`farther`).
 */
function codes(column: 'city' | 'state', place: string, relation: 'within' | 'farther', km: number): string[] {
  const points = placeOf(column, place);
  const nearest = (a: Airport) => Math.min(...points.map((p) => haversineKm(a, p)));
  return airports.filter((a) => (relation === 'within' ? nearest(a) < km : nearest(a) > km)).map((a) => a.iata).sort();
}

/** searchdata of a query as the administrator, on the airports unless another data source is named. */
const answer = (query: string, guid = AIRPORTS) => core.searchdata(query, guid);

const MILE_KM = 1.609344;

test('near … within 50 miles keeps the airports within 50 miles of the place; the place column is no output column', async () => {
  const a = await answer("[iata] [city] near 'seattle' within 50 miles");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(a.columnNames, ['iata']);
  const got = a.data.map((r) => r[0] as string);
  const want = codes('city', 'seattle', 'within', 50 * MILE_KM);
  assert.ok(want.length > 3 && want.includes('SEA') && !want.includes('PDX'), String(want));
  assert.deepEqual(got, want);
});

test('a bare near is within 10 km (search-proximity: "If you do not specify a distance, the system uses 10 km as the default")', async () => {
  const bare = await answer("[iata] [city] near 'Seattle'");
  assert.equal(bare.status, 200, JSON.stringify(bare.body));
  assert.deepEqual(bare.data.map((r) => r[0]), codes('city', 'seattle', 'within', 10));
  assert.notDeepEqual(codes('city', 'seattle', 'within', 10), codes('city', 'seattle', 'within', 50 * MILE_KM), 'the default matters here');
});

test('a place of several rows is each of their locations: near a state is near any of its airports (up to 30 pairs)', async () => {
  const a = await answer("[iata] [state] near 'de' within 20 km");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const want = codes('state', 'de', 'within', 20);
  assert.ok(want.length > airports.filter((x) => x.state === 'DE').length, String(want));
  assert.deepEqual(a.data.map((r) => r[0]), want);
});

test('within N km and N meters convert their unit', async () => {
  const km = await answer("[iata] [city] near 'chicago' within 100 km");
  assert.deepEqual(km.data.map((r) => r[0]), codes('city', 'chicago', 'within', 100));
  const m = await answer("[iata] [city] near 'chicago' within 30000 meters");
  assert.deepEqual(m.data.map((r) => r[0]), codes('city', 'chicago', 'within', 30));
  assert.ok(m.data.length < km.data.length);
});

test('farther than N miles from keeps the others; counted by state', async () => {
  const a = await answer("[state] count [iata] [state] farther than 1000 miles from 'wa'");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const far = new Set(codes('state', 'wa', 'farther', 1000 * MILE_KM));
  const want = new Map<string, number>();
  for (const x of airports) if (far.has(x.iata)) want.set(x.state, (want.get(x.state) ?? 0) + 1);
  assert.deepEqual(a.data.map((r) => [r[0], r[1]]), [...want].sort((x, y) => (x[0] < y[0] ? -1 : 1)));
  assert.ok(!want.has('WA') && want.has('FL'));
});

test('a place that is no value of the column matches no row', async () => {
  const a = await answer("[iata] [city] near 'atlantis' within 500 miles");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(a.data, []);
  const f = await answer("[iata] [city] farther than 500 miles from 'atlantis'");
  assert.equal(f.status, 200, JSON.stringify(f.body));
  assert.deepEqual(f.data, []);
});

test('a location filter is no column of the answer beside listed columns; with nothing listed it shows its column, grouped', async () => {
  const none = await answer("[city] near 'seattle' within 20 miles");
  assert.equal(none.status, 200, JSON.stringify(none.body));
  assert.deepEqual(none.columnNames, ['city']);
  const near = new Set(codes('city', 'seattle', 'within', 20 * MILE_KM));
  assert.deepEqual(none.data.map((r) => r[0]), [...new Set(airports.filter((x) => near.has(x.iata)).map((x) => x.city))].sort());
  const a = await answer("[city] [city] near 'seattle' within 20 miles");
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(a.columnNames, ['city']);
  assert.deepEqual(a.data, none.data);
});

test('a data source without latitude/longitude, or near with no column, is a 400 that says why', async () => {
  const f = await answer("[delay] [origin] near 'SEA'", FLIGHTS);
  assert.equal(f.status, 400);
  assert.match(debugOf(f.body).join(' '), /latitude and longitude/);
  const n = await answer("near 'seattle' [iata]");
  assert.equal(n.status, 400);
  assert.match(debugOf(n.body).join(' '), /needs the column the place is a value of/);
});
