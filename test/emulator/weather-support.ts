/**
 * What the emulator tests that check answers against rows computed apart from the compiler share: an
 * equality of answer rows that allows float rounding, and the demo's raw seattle-weather.csv read without
 * DuckDB (vega-datasets, one row per day, 2012-01-01 to 2015-12-31).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { vegaDataDir } from '../../emulator/src/demo';

/** Asserts that `actual` has the rows of `expected`: same count and widths, numbers equal to 1e-9 relative, anything else deep-equal (null for null). */
export function assertRows(actual: unknown[][], expected: unknown[][]): void {
  assert.equal(actual.length, expected.length, 'row count');
  actual.forEach((row, i) => {
    assert.equal(row.length, expected[i]!.length, `row ${i} width`);
    row.forEach((v, j) => {
      const e = expected[i]![j];
      if (typeof v === 'number' && typeof e === 'number') assert.ok(Math.abs(v - e) <= 1e-9 * Math.max(1, Math.abs(e)), `row ${i} col ${j}: ${v} vs ${e}`);
      else assert.deepEqual(v, e, `row ${i} col ${j}: ${JSON.stringify(row)} vs ${JSON.stringify(expected[i])}`);
    });
  });
}

/** One day of seattle-weather.csv. */
export interface WeatherDay {
  y: number;
  /** Month 1–12. */
  m: number;
  d: number;
  /** Epoch seconds of the day at 00:00 UTC. */
  epoch: number;
  tempMax: number;
  precipitation: number;
  /** The day's weather (`rain`, `sun`, …): an attribute that splits a series. */
  kind: string;
}

/** Every day of the demo's seattle-weather.csv, in the file's order (by date). */
export const weather: WeatherDay[] = (parse(readFileSync(join(vegaDataDir(), 'seattle-weather.csv')), { columns: true }) as Record<string, string>[]).map((r) => {
  const [y, m, d] = r.date!.split('-').map(Number) as [number, number, number];
  return { y, m, d, epoch: Date.UTC(y, m - 1, d) / 1000, tempMax: Number(r.temp_max), precipitation: Number(r.precipitation), kind: r.weather! };
});
