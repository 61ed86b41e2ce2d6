/**
 * GroupedBatches: write batches of one turn share a transaction, each caller gets its own
 * results once it has committed, a caller's failing statement fails that caller only, and an
 * error whose outcome is unknown is nobody's to retry silently.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { GroupedBatches, openStore, StoreError, type QueryResult, type Statement, type Store } from "../../runtime/store/index.js";

/** A store whose batches are counted; `failNext` makes the next batch throw. */
function counted(store: Store): { store: Store; batches: () => number; failNext: (error: Error) => void } {
  let batches = 0;
  let fail: Error | undefined;
  const view: Store = {
    kind: store.kind,
    location: store.location,
    execute: (s) => store.execute(s),
    transaction: (work, options) => store.transaction(work, options),
    close: () => store.close(),
    batch: (statements: readonly (Statement | string)[], options) => {
      batches += 1;
      if (fail !== undefined) {
        const error = fail;
        fail = undefined;
        return Promise.reject(error);
      }
      return store.batch(statements, options);
    },
  };
  return { store: view, batches: () => batches, failNext: (error) => (fail = error) };
}

describe("GroupedBatches", () => {
  let base: Store;
  before(async () => {
    base = await openStore({ url: ":memory:" });
    await base.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  });
  after(() => base.close());

  const insert = (id: number, v = "x"): Statement => ({ sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [id, v] });
  const rows = async () => (await base.execute("SELECT id FROM t ORDER BY id")).rows.map((r) => Number(r.id));

  test("batches of one turn are one transaction; each caller gets its own results", async () => {
    await base.execute("DELETE FROM t");
    const c = counted(base);
    const grouped = new GroupedBatches(c.store);
    const results = await Promise.all([grouped.batch([insert(1), insert(2)]), grouped.batch([insert(3)]), grouped.batch([{ sql: "UPDATE t SET v = 'y' WHERE id <= 2" }])]);
    assert.equal(c.batches(), 1);
    assert.deepEqual(results.map((r: QueryResult[]) => r.length), [2, 1, 1]);
    assert.equal(results[2]![0]!.rowsAffected, 2, "the later batch saw the earlier ones' rows");
    assert.deepEqual(await rows(), [1, 2, 3]);
    assert.deepEqual(grouped.stats, { groups: 1, batches: 3 });
  });

  test("control: batches of different turns are written apart", async () => {
    await base.execute("DELETE FROM t");
    const c = counted(base);
    const grouped = new GroupedBatches(c.store);
    await grouped.batch([insert(1)]);
    await grouped.batch([insert(2)]);
    assert.equal(c.batches(), 2);
    assert.deepEqual(await rows(), [1, 2]);
  });

  test("one caller's constraint fails that caller only; the others are written once", async () => {
    await base.execute("DELETE FROM t");
    await base.execute(insert(5));
    const grouped = new GroupedBatches(base);
    const [a, b, c] = await Promise.allSettled([grouped.batch([insert(1)]), grouped.batch([insert(2), insert(5)]), grouped.batch([insert(3)])]);
    assert.equal(a.status, "fulfilled");
    assert.equal(b.status, "rejected");
    assert.equal(((b as PromiseRejectedResult).reason as StoreError).code, "store_constraint");
    assert.equal(c.status, "fulfilled");
    assert.deepEqual(await rows(), [1, 3, 5], "the failing batch left nothing (not even its first row); the others one row each");
  });

  test("a full disk refusing the group fails only the batches that fail on their own", async () => {
    await base.execute("DELETE FROM t");
    const c = counted(base);
    const grouped = new GroupedBatches(c.store);
    c.failNext(new StoreError("store_full", "database or disk is full"));
    const settled = await Promise.allSettled([grouped.batch([insert(1)]), grouped.batch([insert(2)])]);
    assert.deepEqual(settled.map((s) => s.status), ["fulfilled", "fulfilled"]);
    assert.equal(c.batches(), 3, "the group, then each batch alone");
    assert.deepEqual(await rows(), [1, 2]);
  });

  test("an error with an unknown outcome reaches every caller and nothing is retried", async () => {
    await base.execute("DELETE FROM t");
    const c = counted(base);
    const grouped = new GroupedBatches(c.store);
    c.failNext(new StoreError("store_unreachable", "server gone"));
    const settled = await Promise.allSettled([grouped.batch([insert(1)]), grouped.batch([insert(2)])]);
    assert.deepEqual(settled.map((s) => s.status), ["rejected", "rejected"]);
    assert.equal(c.batches(), 1, "no retry behind the callers' backs");
    assert.deepEqual(await rows(), []);
  });

  test("reads and read batches are not held for a turn", async () => {
    const c = counted(base);
    const grouped = new GroupedBatches(c.store);
    await grouped.batch(["SELECT 1"], { mode: "read" });
    assert.equal(c.batches(), 1);
    assert.equal((await grouped.execute("SELECT 2 AS n")).rows[0]!.n, 2);
    assert.deepEqual(grouped.stats, { groups: 0, batches: 0 });
  });
});
