// The demo's airports (emulator/src/demo.ts loads vega-datasets' airports.csv as the `airports` table), read
// here from the raw file for the location tests (demo-geo-calendar.test.ts, searchdata-location.test.ts), with
// a haversine written apart from emulator/src/searchdata/geo.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { vegaDataDir } from '../../emulator/src/demo';
import { stableGuid } from '../../emulator/src/guid';

/** The GUID of the demo's `airports` data source. */
export const AIRPORTS_GUID = stableGuid('table', 'demo', 'engine_default_schema', 'airports');
/** The demo's `airports` table, quoted for DuckDB SQL. */
export const AIRPORTS_TABLE = '"demo.engine_default_schema"."airports"';

/** One row of airports.csv: the code, where it is, and its coordinates in degrees. */
export interface Airport {
  iata: string;
  city: string;
  state: string;
  latitude: number;
  longitude: number;
}

/** Every row of the raw airports.csv, in file order. */
export const airports: readonly Airport[] = (parse(readFileSync(join(vegaDataDir(), 'airports.csv')), { columns: true }) as Record<string, string>[])
  .map((r) => ({ iata: r.iata!, city: r.city!, state: r.state!, latitude: Number(r.latitude), longitude: Number(r.longitude) }));

/** The airport of a code. @throws Error when airports.csv has none. */
export function airportByCode(code: string): Airport {
  const a = airports.find((x) => x.iata === code);
  if (!a) throw new Error(`no airport ${code} in airports.csv`);
  return a;
}

/** Great-circle km between two points in degrees on a 6371.0088 km sphere, written here from the haversine formula. */
export function haversineKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}
