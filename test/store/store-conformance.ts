/**
 * The one suite every `Store` driver passes (embedded and client, file and memory): the behaviour
 * rooms rely on, whatever the URL.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allRows, MAX_STATEMENT_BYTES, StoreError } from "../../runtime/store/index.js";
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
  
    describeStatementBound(open);
  });
}

const tooLarge = (error: unknown) => error instanceof StoreError && error.code === "store_too_large" && /page queries|chunks/.test(error.message);

/** No statement moves more than MAX_STATEMENT_BYTES, on any driver: each refusal beside a control. */
function describeStatementBound(open: () => Promise<StoreFixture>): void {
  const half = MAX_STATEMENT_BYTES / 2;
  const writes: { label: string; value: () => string | Uint8Array; refused: boolean }[] = [
    { label: "a blob of half the bound", value: () => new Uint8Array(half), refused: false },
    { label: "a blob one byte over the bound", value: () => new Uint8Array(MAX_STATEMENT_BYTES + 1), refused: true },
    { label: "ASCII text of half the bound", value: () => "a".repeat(half), refused: false },
    { label: "text under the bound in UTF-16 units but over it in UTF-8 bytes", value: () => "é".repeat(half + 10), refused: true },
  ];
  for (const w of writes) {
    it(`${w.refused ? "refuses" : "writes"} ${w.label}${w.refused ? ", and the batch around it writes nothing" : ""}`, () =>
      withStore(open, async (store) => {
        const batch = store.batch([
          { sql: "INSERT INTO items (id, name) VALUES (1, 'first')", args: [] },
          { sql: "INSERT INTO items (id, name, data) VALUES (2, 'big', ?)", args: [w.value()] },
        ]);
        if (w.refused) {
          await assert.rejects(batch, tooLarge);
          assert.deepEqual(await names(store), []);
        } else {
          await batch;
          assert.deepEqual(await names(store), ["first", "big"]);
        }
      }));
  }

  it("refuses a query whose rows together exceed the bound; pagedRows reads them all (control)", () =>
    withStore(open, async (store) => {
      const rows = 6;
      for (let id = 1; id <= rows; id++) {
        await store.execute({ sql: "INSERT INTO items (id, name, data) VALUES (?, ?, ?)", args: [id, `n${id}`, new Uint8Array(MAX_STATEMENT_BYTES / 4).fill(id)] });
      }
      await assert.rejects(store.execute("SELECT id, data FROM items ORDER BY id"), tooLarge);
      const all = await allRows(store, {
        page: (after, limit) => ({ sql: "SELECT id, data FROM items WHERE id > ? ORDER BY id LIMIT ?", args: [after ?? 0, limit] }),
        key: (row) => row.id as number,
        pageSize: 100,
      });
      assert.deepEqual(all.map((row) => row.id), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(all.map((row) => (row.data as Uint8Array)[0]), [1, 2, 3, 4, 5, 6]);
    }));

  it("refuses one row larger than the bound even through pagedRows", () =>
    withStore(open, async (store) => {
      await store.execute({ sql: "INSERT INTO items (id, name, data) VALUES (1, 'a', zeroblob(?))", args: [MAX_STATEMENT_BYTES + 1] });
      const read = allRows(store, { page: (after, limit) => ({ sql: "SELECT id, data FROM items WHERE id > ? ORDER BY id LIMIT ?", args: [after ?? 0, limit] }), key: (row) => row.id as number });
      await assert.rejects(read, tooLarge);
    }));
}
