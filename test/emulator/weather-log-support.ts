/**
 * The real file the input-table load tests load (`tsq load`, test/cli/load-input-tables.test.ts; VS Code,
 * test/e2e/inputTables.test.ts): vega-datasets' seattle-weather.csv (1,461 days), into the input table
 * `weather_log` keyed on `date` of the model `Seattle Days` (a worksheet over the demo's seattle-weather
 * with its date and its weather as `Recorded Weather`). The rows a search of the model must give are
 * computed here from the file itself (csv-parse), never from the service.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { vegaDataDir } from '../../emulator/src/demo';

/** The path of the file loaded. */
export const WEATHER_CSV = join(vegaDataDir(), 'seattle-weather.csv');

/** The text of the file, and its records (header first) as csv-parse reads them. */
export const WEATHER_TEXT = readFileSync(WEATHER_CSV, 'utf8');
const records = parse(WEATHER_TEXT) as string[][];
const [header, ...days] = records;

/** The file's header: date, precipitation, temp_max, temp_min, wind, weather. */
export const WEATHER_HEADER: readonly string[] = header!;

/** The model's name and its worksheet TML (imported by the test through `metadata/tml/import`). */
export const MODEL = 'Seattle Days';
export const MODEL_TML = JSON.stringify({
  worksheet: {
    name: MODEL,
    tables: [{ name: 'seattle-weather' }],
    worksheet_columns: [{ name: 'date', column_id: 'seattle-weather::date' }, { name: 'Recorded Weather', column_id: 'seattle-weather::weather' }],
  },
});

/** The distinct `weather` values of the file, sorted: the `allowed_values` of the input table's weather column. */
export const WEATHER_KINDS = [...new Set(days.map((r) => r[5]!))].sort();

/** The `input-tables/create` request of `weather_log` on the model: key `date`, the file's other columns its own. */
export const WEATHER_LOG_CREATE = {
  table_name: 'weather_log',
  model_identifier: MODEL,
  table_definition: {
    referenced_columns: ['date'],
    new_columns: [
      ...['precipitation', 'temp_max', 'temp_min', 'wind'].map((name) => ({ name, data_type: 'DOUBLE', type: 'MEASURE' })),
      { name: 'weather', data_type: 'VARCHAR', type: 'ATTRIBUTE', allowed_values: WEATHER_KINDS },
    ],
  },
};

/** The search of the model that reads the input table's rows beside the model's own column. */
export const MODEL_QUERY = '[date] [Recorded Weather] [weather] [precipitation] [temp_max] [temp_min] [wind]';

/**
 * The rows `MODEL_QUERY` gives once the file is loaded, from the file alone: per day its epoch seconds,
 * its weather twice (the model's, then the input table's: the same file) and its four measures (one row
 * per day, so each sum is the day's value). Sorted by date.
 */
export function expectedModelRows(): unknown[][] {
  return days.map((r) => [Date.parse(`${r[0]}T00:00:00Z`) / 1000, r[5], r[5], ...r.slice(1, 5).map(Number)]).sort((a, b) => Number(a[0]) - Number(b[0]));
}

/** The text of a copy of the file whose `record`th record (1 the header) has `value` in `column`. */
export function withCell(record: number, column: string, value: string): string {
  const lines = WEATHER_TEXT.split('\n');
  const cells = lines[record - 1]!.split(',');
  cells[WEATHER_HEADER.indexOf(column)] = value;
  lines[record - 1] = cells.join(',');
  return lines.join('\n');
}

/** The rows of a searchdata answer sorted by their first cell (the date), for `assertRows` of weather-support.ts. */
export function byDate(rows: unknown[][]): unknown[][] {
  return [...rows].sort((a, b) => Number(a[0]) - Number(b[0]));
}
