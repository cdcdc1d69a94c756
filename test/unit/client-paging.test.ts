import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PagedList, type ListEntry } from '../../client/src/tree/paging';

const kinds = <T>(entries: ListEntry<T>[]) => entries.map((e) => (e.kind === 'item' ? e.item : e.kind === 'error' ? `error:${e.message}` : e.kind));

/** A list over 0..n-1 that records the pages it was asked for. */
function numbers(n: number, batch: number) {
  const asked: [number, number][] = [];
  let changes = 0;
  let fail = false;
  const list = new PagedList<number>(
    async (offset, size) => {
      asked.push([offset, size]);
      if (fail) throw new Error('HTTP 500: boom');
      const all = Array.from({ length: n }, (_, i) => i);
      return size < 0 ? all : all.slice(offset, offset + size);
    },
    batch,
    () => changes++,
  );
  return { list, asked, changes: () => changes, setFail: (v: boolean) => (fail = v) };
}

test('the first look shows Loading…, then a page and Load more…, then the rest', async () => {
  const { list, asked, changes } = numbers(5, 2);
  assert.deepEqual(kinds(list.children()), ['loading']);
  await list.loadMore(); // joins the load in flight
  assert.deepEqual(kinds(list.children()), [0, 1, 'loadMore']);
  await list.loadMore();
  await list.loadMore();
  assert.deepEqual(kinds(list.children()), [0, 1, 2, 3, 4]);
  assert.deepEqual(asked, [[0, 2], [2, 2], [4, 2]]);
  assert.ok(changes() >= 3);
});

test('a page exactly filling the batch shows Load more…, and an empty next page ends the list', async () => {
  const { list } = numbers(2, 2);
  list.children();
  await list.loadMore();
  assert.deepEqual(kinds(list.children()), [0, 1, 'loadMore']);
  await list.loadMore();
  assert.deepEqual(kinds(list.children()), [0, 1]);
});

test('an empty list says so', async () => {
  const { list } = numbers(0, 10);
  list.children();
  await list.loadMore();
  assert.deepEqual(kinds(list.children()), ['empty']);
});

test('an unpaged list (batch -1) asks once and never offers Load more…', async () => {
  const { list, asked } = numbers(3, -1);
  list.children();
  await list.loadMore();
  assert.deepEqual(kinds(list.children()), [0, 1, 2]);
  assert.deepEqual(asked, [[0, -1]]);
});

test('an error shows as an entry with its message and is not cached: retry asks again and keeps loaded items', async () => {
  const t = numbers(5, 2);
  t.list.children();
  await t.list.loadMore();
  t.setFail(true);
  await t.list.loadMore();
  assert.deepEqual(kinds(t.list.children()), [0, 1, 'error:HTTP 500: boom']);
  t.setFail(false);
  await t.list.retry();
  assert.deepEqual(kinds(t.list.children()), [0, 1, 2, 3, 'loadMore']);
  assert.deepEqual(t.asked, [[0, 2], [2, 2], [2, 2]]);
});

test('reset forgets everything and a load in flight before it is dropped', async () => {
  const t = numbers(5, 2);
  t.list.children();
  t.list.reset();
  assert.deepEqual(kinds(t.list.children()), ['loading']);
  await t.list.loadMore();
  assert.deepEqual(kinds(t.list.children()), [0, 1, 'loadMore']);
});

test('cancel ends a page that never arrives at once, and Retry asks again', async () => {
  let calls = 0;
  const list = new PagedList<number>(
    async () => {
      calls++;
      if (calls === 1) return new Promise<number[]>(() => undefined); // a service that never answers
      return [1, 2];
    },
    -1,
    () => undefined,
  );
  assert.deepEqual(kinds(list.children()), ['loading']);
  assert.equal(list.cancel(), true);
  await list.pending;
  assert.deepEqual(kinds(list.children()), ['error:Loading cancelled']);
  assert.equal(list.cancel(), false);
  await list.retry();
  assert.deepEqual(kinds(list.children()), [1, 2]);
});
