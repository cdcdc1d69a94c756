// The order searchdata gives the rows of a grouped search, for tests that compute the expected rows by hand
// (searchdata-model.test.ts, searchdata-model-formula.test.ts). Not a test file itself.

/** Compares two group keys as searchdata orders them: by each value in turn, ascending, nulls last. */
export function compareKeys(a: readonly (string | null)[], b: readonly (string | null)[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === null) return 1;
    if (b[i] === null) return -1;
    return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}
