/**
 * Distances for the location keywords `near`, `near … within n miles|km|meters` and `farther than n
 * miles|km|meters from …` (docs.thoughtspot.com cloud/latest/keywords-en-US, "Location keywords";
 * thoughtspot/thoughtspot-docs cloud/modules/ROOT/partials/keywords/list-location.adoc; docs/service-notes.md
 * §2.9). The service needs latitude/longitude data for them; the emulator, which keeps no geo configuration,
 * takes a data source's columns named `latitude` and `longitude` (any case, numeric) as its rows' location.
 * The demo's `airports` table has them (emulator/src/demo.ts).
 *
 * These are pure SQL builders for the compiler: no engine, no metadata. Distances are great-circle
 * (haversine) on a sphere of the mean Earth radius, in kilometres.
 */
import type { LogicalColumn } from '../metadataStore';
import { quoteIdent } from '../engine';
import { DISTANCE_UNITS, locationColumnsOf, type DistanceUnit } from '../../../common/src/language/keywords';

export type { DistanceUnit };

/** Mean Earth radius in km (IUGG R1), the sphere of `distanceKmSql`. */
export const EARTH_RADIUS_KM = 6371.0088;

/**
 * The radius of a bare `near` (no `within`): 10 km. docs.thoughtspot.com cloud/latest/search-proximity
 * (thoughtspot/thoughtspot-docs cloud/modules/ROOT/pages/search-proximity.adoc, "How proximity search
 * works"): "If you do not specify a distance, the system uses 10 km as the default" (docs/service-notes.md §2.9).
 */
export const NEAR_DEFAULT = { n: 10, unit: 'km' } as const satisfies { n: number; unit: DistanceUnit };

/**
 * At most this many latitude/longitude pairs stand for one place (search-proximity: "The system can handle
 * up to 30 latitude/ longitude pairs for a given geographical value, like a city, country, or county").
 */
export const MAX_PLACE_PAIRS = 30;

/** `n` of `unit` (keywords.ts `DISTANCE_UNITS`) in kilometres; throws RangeError for a negative or non-finite `n`. */
export function toKm(n: number, unit: DistanceUnit): number {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`a distance must be a number of ${unit} ≥ 0, not ${n}`);
  return n * (DISTANCE_UNITS[unit] / 1000);
}

/**
 * SQL of the great-circle distance in km between two points given as SQL expressions of degrees
 * (latitude −90…90, longitude −180…180): the haversine formula on `EARTH_RADIUS_KM`. NULL when any input is.
 */
export function distanceKmSql(lat1: string, lon1: string, lat2: string, lon2: string): string {
  const h = `power(sin(radians((${lat2}) - (${lat1})) / 2), 2) + cos(radians(${lat1})) * cos(radians(${lat2})) * power(sin(radians((${lon2}) - (${lon1})) / 2), 2)`;
  // clamped to 1 against rounding; not with least(), which would turn a NULL into 1
  return `(2 * ${EARTH_RADIUS_KM} * asin(CASE WHEN sqrt(${h}) > 1 THEN 1.0 ELSE sqrt(${h}) END))`;
}

/** The location columns of a data source: its numeric `latitude` and `longitude` columns, or undefined (keywords.ts `locationColumnsOf`, one rule with the language service). */
export function geoColumnsOf(columns: readonly LogicalColumn[]): { latitude: LogicalColumn; longitude: LogicalColumn } | undefined {
  return locationColumnsOf(columns);
}

/** The input of `locationConditionSql`. */
export interface LocationFilter {
  /** The data source's columns (its location is `geoColumnsOf` them). */
  columns: readonly LogicalColumn[];
  /** Quoted DuckDB table of the data source (`"db.schema"."table"`). */
  table: string;
  /** The column whose value names the place (`county` in `county near san francisco`). */
  placeColumn: LogicalColumn;
  /** The place's value, matched case-insensitively as text (`san francisco`). */
  place: string;
  /** `within`: rows less than `km` away (`near`, `near … within`); `farther`: rows more than `km` away. */
  relation: 'within' | 'farther';
  /** The distance in km (`toKm`). */
  km: number;
}

/**
 * A WHERE condition for a location keyword, with its bound parameters (in SQL order), as search-proximity's
 * "How proximity search works" describes it: the place is the latitude/longitude pairs of the rows whose
 * `placeColumn` is `place` (at most `MAX_PLACE_PAIRS` distinct pairs; which ones the page does not say: the
 * emulator takes the first by latitude, then longitude); `within` keeps the rows at "a direct distance of
 * less than" `km` from one of them, `farther` the rows more than `km` from every one. With no such row the
 * place is nowhere and the condition holds for no row. Throws Error when
 * the data source has no location columns.
 */
export function locationConditionSql(f: LocationFilter): { sql: string; params: (string | number)[] } {
  const geo = geoColumnsOf(f.columns);
  if (!geo) throw new Error('This data source has no latitude and longitude columns for a location filter');
  const lat = quoteIdent(geo.latitude.physicalName);
  const lon = quoteIdent(geo.longitude.physicalName);
  const pairs = `(SELECT DISTINCT ${lat} AS lat, ${lon} AS lon FROM ${f.table} WHERE lower(CAST(${quoteIdent(f.placeColumn.physicalName)} AS VARCHAR)) = lower(?) AND ${lat} IS NOT NULL AND ${lon} IS NOT NULL ORDER BY 1, 2 LIMIT ${MAX_PLACE_PAIRS})`;
  const d = distanceKmSql(lat, lon, 'place.lat', 'place.lon');
  if (f.relation === 'within') return { sql: `EXISTS (SELECT 1 FROM ${pairs} place WHERE ${d} < ?)`, params: [f.place, f.km] };
  return { sql: `(${lat} IS NOT NULL AND ${lon} IS NOT NULL AND EXISTS (SELECT 1 FROM ${pairs} place) AND NOT EXISTS (SELECT 1 FROM ${pairs} place WHERE ${d} <= ?))`, params: [f.place, f.place, f.km] };
}
