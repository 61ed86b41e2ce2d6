import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { join } from "node:path";
import Database from "libsql";
import { InvalidInputError } from "../../runtime/errors.js";
import { openStore, parseStoreUrl, StoreError } from "../../runtime/store/index.js";
import { describeLocation } from "../../runtime/store/url.js";
import { describeStoreConformance } from "./store-conformance.js";
import { openTempStore, tempDir } from "./temp-store.js";

describeStoreConformance("embedded file", () => openTempStore());
describeStoreConformance("embedded :memory:", async () => {
  const store = await openStore({ url: ":memory:" });
  return { store, cleanup: () => store.close() };
});
describeStoreConformance("client file (the server driver's code path)", () => openTempStore({ driver: "client" }));
describeStoreConformance("client :memory:", async () => {
  const store = await openStore({ url: ":memory:", driver: "client" });
  return { store, cleanup: () => store.close() };
});

describe("openStore on a file", () => {
  const cases: { label: string; options: { driver?: "embedded" | "client"; synchronous?: "normal" | "full"; busyTimeoutMs?: number }; synchronous: number; timeout: number }[] = [
    { label: "embedded defaults", options: {}, synchronous: 1, timeout: 5000 },
    { label: "client defaults", options: { driver: "client" }, synchronous: 1, timeout: 5000 },
    { label: "embedded, synchronous full, busy 1234", options: { synchronous: "full", busyTimeoutMs: 1234 }, synchronous: 2, timeout: 1234 },
  ];
  for (const c of cases) {
    it(`sets WAL, busy_timeout, foreign_keys and synchronous (${c.label})`, async () => {
      const { store, cleanup } = await openTempStore(c.options);
      try {
        const pragma = async (name: string) => Object.values((await store.execute(`PRAGMA ${name}`)).rows[0] ?? {})[0];
        assert.equal(await pragma("journal_mode"), "wal");
        assert.equal(await pragma("busy_timeout"), c.timeout);
        assert.equal(await pragma("foreign_keys"), 1);
        assert.equal(await pragma("synchronous"), c.synchronous);
      } finally {
        await cleanup();
      }
    });
  }

  it("enforces foreign keys: a dangling reference is refused, a valid one (control) is not", async () => {
    const { store, cleanup } = await openTempStore();
    try {
      await store.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
      await store.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id))");
      await store.execute("INSERT INTO parent (id) VALUES (1)");
      await store.execute("INSERT INTO child (parent_id) VALUES (1)");
      await assert.rejects(store.execute("INSERT INTO child (parent_id) VALUES (2)"), (e: unknown) => e instanceof StoreError && e.code === "store_constraint");
    } finally {
      await cleanup();
    }
  });

  it("waits busy_timeout for another connection's lock, then fails store_busy; after the lock is released (control) it writes", async () => {
    const dir = await tempDir();
    const holder = await openStore({ url: dir.url() });
    const waiter = await openStore({ url: dir.url(), busyTimeoutMs: 60 });
    try {
      await holder.execute("CREATE TABLE t (x INTEGER)");
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const transaction = holder.transaction(async (tx) => {
        await tx.execute("INSERT INTO t VALUES (1)");
        await held;
      });
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      await assert.rejects(waiter.execute("INSERT INTO t VALUES (2)"), (e: unknown) => e instanceof StoreError && e.code === "store_busy");
      assert.ok(performance.now() - started >= 40, "the write waited for the busy timeout before failing");
      release();
      await transaction;
      await waiter.execute("INSERT INTO t VALUES (2)");
      assert.deepEqual((await waiter.execute("SELECT x FROM t ORDER BY x")).rows, [{ x: 1 }, { x: 2 }]);
    } finally {
      await holder.close();
      await waiter.close();
      await dir.remove();
    }
  });
});

describe("openStore on a file another connection is writing in rollback mode (switching it to WAL)", () => {
  // A new file is in rollback mode until the first store switches it. The switch reads the header
  // and then writes it; another connection's write lock between the two makes SQLite answer busy
  // at once, without waiting: several nodes starting together on a new file meet that.
  const cases = [
    { label: "the lock is released within the busy timeout: it opens, in WAL", busyTimeoutMs: 3000, releaseAfterMs: 150, opens: true },
    { label: "no lock (control): it opens at once", busyTimeoutMs: 3000, releaseAfterMs: null, opens: true },
    { label: "the lock outlasts the busy timeout: store_busy after waiting", busyTimeoutMs: 120, releaseAfterMs: 1000, opens: false },
  ];
  for (const c of cases) {
    it(c.label, async () => {
      const dir = await tempDir();
      const holder = new Database(join(dir.path, "store.db"));
      const timer = { id: undefined as NodeJS.Timeout | undefined };
      try {
        holder.exec("CREATE TABLE t (x INTEGER)");
        assert.equal((holder.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode, "delete");
        if (c.releaseAfterMs !== null) {
          holder.exec("BEGIN IMMEDIATE");
          holder.exec("INSERT INTO t VALUES (1)");
          timer.id = setTimeout(() => holder.exec("COMMIT"), c.releaseAfterMs);
        }
        const started = performance.now();
        const opening = openStore({ url: dir.url(), busyTimeoutMs: c.busyTimeoutMs });
        if (c.opens) {
          const store = await opening;
          try {
            assert.equal((await store.execute("PRAGMA journal_mode")).rows[0]?.journal_mode, "wal");
            const expected = c.releaseAfterMs === null ? [] : [{ x: 1 }];
            assert.deepEqual((await store.execute("SELECT x FROM t")).rows, expected, "the holder's write is kept");
          } finally {
            await store.close();
          }
        } else {
          await assert.rejects(opening, (e: unknown) => e instanceof StoreError && e.code === "store_busy");
          assert.ok(performance.now() - started >= c.busyTimeoutMs * 0.8, "it waited about the busy timeout before failing");
        }
      } finally {
        clearTimeout(timer.id);
        if (holder.inTransaction) holder.exec("ROLLBACK");
        holder.close();
        await dir.remove();
      }
    });
  }
});

describe("parseStoreUrl", () => {
  const accepted: [string, string, string][] = [
    [":memory:", "memory", ":memory:"],
    ["file:data/clawhive.db", "file", "file:/srv/data/clawhive.db"],
    ["file:/var/lib/clawhive.db", "file", "file:/var/lib/clawhive.db"],
    ["file:///var/lib/clawhive.db", "file", "file:/var/lib/clawhive.db"],
    ["file://localhost/var/lib/clawhive.db", "file", "file:/var/lib/clawhive.db"],
    ["file:/var/lib/a%20b.db", "file", "file:/var/lib/a b.db"],
    ["libsql://db.example.com", "remote", "libsql://db.example.com"],
    ["https://db.example.com:8443/", "remote", "https://db.example.com:8443/"],
    ["wss://db.example.com", "remote", "wss://db.example.com/"],
  ];
  for (const [url, kind, shown] of accepted) {
    it(`accepts ${url}`, () => {
      const location = parseStoreUrl(url, { cwd: "/srv" });
      assert.equal(location.kind, kind);
      assert.equal(describeLocation(location), shown);
    });
  }

  const refused: [string, RegExp][] = [
    ["", /not a URL/],
    ["file:", /path is empty/],
    ["file://otherhost/x.db", /not this machine/],
    ["file:x.db?mode=ro", /query parameters/],
    ["file:/x%ZZ.db", /malformed percent-escape/],
    ["postgres://db.example.com/x", /scheme postgres: is not supported/],
    ["libsql://user:secret-pass@db.example.com", /credentials in the URL/],
    ["libsql://db.example.com?authToken=secret-token", /authToken in the URL/],
    ["data/clawhive.db", /not a URL/],
  ];
  for (const [url, reason] of refused) {
    it(`refuses ${JSON.stringify(url)}`, () => {
      assert.throws(
        () => parseStoreUrl(url),
        (e: unknown) => {
          assert.ok(e instanceof InvalidInputError);
          assert.equal(e.field, "url");
          assert.match(e.message, reason);
          assert.doesNotMatch(e.message, /secret-pass|secret-token/, "credentials never reach the message");
          return true;
        },
      );
    });
  }
});
