/**
 * The one suite every `Store` driver passes (embedded and client, file and memory): the behaviour
 * rooms rely on, whatever the URL.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StoreError } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";

export interface StoreFixture {
  readonly store: Store;
  cleanup(): Promise<void>;
}

async function withStore(open: () => Promise<StoreFixture>, body: (store: Store) => Promise<void>): Promise<void> {
  const fixture = await open();
  try {
    await fixture.store.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB)");
    await body(fixture.store);
  } finally {
    await fixture.cleanup();
  }
}

async function names(store: Store): Promise<string[]> {
  const result = await store.execute("SELECT name FROM items ORDER BY id");
  return result.rows.map((row) => String(row.name));
}

export function describeStoreConformance(label: string, open: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${label}`, () => {
    it("round-trips rows as plain objects: numbers, text, null, blobs", () =>
      withStore(open, async (store) => {
        const insert = await store.execute({ sql: "INSERT INTO items (id, name, data) VALUES (?, ?, ?)", args: [1, "a", new Uint8Array([0, 1, 255])] });
        assert.equal(insert.rowsAffected, 1);
        await store.execute({ sql: "INSERT INTO items (id, name, data) VALUES (:id, :name, :data)", args: { ":id": 2, ":name": "b", ":data": null } });
        const result = await store.execute("SELECT id, name, data FROM items ORDER BY id");
        assert.deepEqual(result.columns, ["id", "name", "data"]);
        assert.deepEqual(result.rows, [
          { id: 1, name: "a", data: new Uint8Array([0, 1, 255]) },
          { id: 2, name: "b", data: null },
        ]);
      }));

    it("reports rows changed by an update", () =>
      withStore(open, async (store) => {
        await store.batch(["INSERT INTO items (name) VALUES ('a')", "INSERT INTO items (name) VALUES ('b')"]);
        const update = await store.execute("UPDATE items SET name = 'c'");
        assert.equal(update.rowsAffected, 2);
      }));

    it("commits a valid batch whole (control)", () =>
      withStore(open, async (store) => {
        await store.batch([{ sql: "INSERT INTO items (id, name) VALUES (?, ?)", args: [1, "a"] }, { sql: "INSERT INTO items (id, name) VALUES (?, ?)", args: [2, "b"] }]);
        assert.deepEqual(await names(store), ["a", "b"]);
      }));

    it("rolls a failing batch back whole, with a typed constraint error", () =>
      withStore(open, async (store) => {
        const failing = store.batch([{ sql: "INSERT INTO items (id, name) VALUES (?, ?)", args: [1, "a"] }, { sql: "INSERT INTO items (id, name) VALUES (?, ?)", args: [1, "dup"] }]);
        await assert.rejects(failing, (error: unknown) => {
          assert.ok(error instanceof StoreError);
          assert.equal(error.code, "store_constraint");
          assert.match(error.sqliteCode ?? "", /^SQLITE_CONSTRAINT/);
          return true;
        });
        assert.deepEqual(await names(store), []);
      }));

    it("commits a transaction and returns its value (control)", () =>
      withStore(open, async (store) => {
        const value = await store.transaction(async (tx) => {
          await tx.execute("INSERT INTO items (name) VALUES ('a')");
          const count = await tx.execute("SELECT count(*) AS n FROM items");
          return count.rows[0]?.n;
        });
        assert.equal(value, 1);
        assert.deepEqual(await names(store), ["a"]);
      }));

    it("rolls a transaction back when its body throws, and rethrows that error", () =>
      withStore(open, async (store) => {
        const boom = new Error("boom");
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.execute("INSERT INTO items (name) VALUES ('a')");
            throw boom;
          }),
          (error) => error === boom,
        );
        assert.deepEqual(await names(store), []);
      }));

    it("keeps a concurrent call out of an open transaction: it waits, and survives the rollback", () =>
      withStore(open, async (store) => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let outsideDone = false;
        const tx = store.transaction(async (t) => {
          await t.execute("INSERT INTO items (name) VALUES ('inside')");
          await held;
          throw new Error("roll back");
        });
        await new Promise((resolve) => setImmediate(resolve));
        const outside = store.execute("INSERT INTO items (name) VALUES ('outside')").then(() => (outsideDone = true));
        await new Promise((resolve) => setImmediate(resolve));
        assert.equal(outsideDone, false, "the outside write must wait for the transaction");
        release();
        await assert.rejects(tx, /roll back/);
        await outside;
        assert.deepEqual(await names(store), ["outside"]);
      }));

    it("refuses a transaction executor used after the transaction ended", () =>
      withStore(open, async (store) => {
        let leaked: { execute(sql: string): Promise<unknown> } | undefined;
        await store.transaction(async (tx) => {
          leaked = tx;
        });
        await assert.rejects(leaked!.execute("SELECT 1"), (error: unknown) => error instanceof StoreError && error.code === "store_closed");
      }));

    it("refuses calls after close, with store_closed (control: before close they work)", async () => {
      const fixture = await open();
      try {
        await fixture.store.execute("SELECT 1");
        await fixture.store.close();
        await assert.rejects(fixture.store.execute("SELECT 1"), (error: unknown) => error instanceof StoreError && error.code === "store_closed");
      } finally {
        await fixture.cleanup();
      }
    });
  });
}
