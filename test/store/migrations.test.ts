import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../runtime/errors.js";
import { applyMigrations, openStore, StoreError } from "../../runtime/store/index.js";
import type { Migration, Store } from "../../runtime/store/index.js";
import { tempDir } from "./temp-store.js";

const clock = { now: () => 1_700_000_000_000 };

// Each migration also inserts a row into `applied_log`: applied twice, the count would show it.
const notes: Migration[] = [
  { room: "notes", version: 1, name: "create notes", statements: ["CREATE TABLE notes (id INTEGER PRIMARY KEY)", "CREATE TABLE applied_log (id TEXT NOT NULL)", "INSERT INTO applied_log VALUES ('notes#1')"] },
  { room: "notes", version: 2, name: "add title", statements: ["ALTER TABLE notes ADD COLUMN title TEXT", "INSERT INTO applied_log VALUES ('notes#2')"] },
];
const tags: Migration[] = [
  { room: "tags", version: 1, name: "create tags", statements: ["CREATE TABLE tags (note_id INTEGER NOT NULL REFERENCES notes (id))", "INSERT INTO applied_log VALUES ('tags#1')"] },
];
const all = [...notes, ...tags];

async function withStores<T>(count: number, body: (stores: Store[]) => Promise<T>): Promise<T> {
  const dir = await tempDir();
  const stores: Store[] = [];
  try {
    for (let i = 0; i < count; i++) stores.push(await openStore({ url: dir.url(), clock }));
    return await body(stores);
  } finally {
    for (const store of stores) await store.close();
    await dir.remove();
  }
}

async function appliedLog(store: Store): Promise<string[]> {
  return (await store.execute("SELECT id FROM applied_log ORDER BY id")).rows.map((row) => String(row.id));
}

describe("applyMigrations", () => {
  it("applies each migration exactly once when two handles on one file race", () =>
    withStores(2, async ([a, b]) => {
      const [first, second] = await Promise.all([applyMigrations(a!, all, { clock }), applyMigrations(b!, all, { clock })]);
      assert.deepEqual([...first.applied, ...second.applied].sort(), ["notes#1", "notes#2", "tags#1"]);
      assert.equal(first.alreadyApplied + second.alreadyApplied, 3, "each migration the loser met was counted as already applied");
      assert.deepEqual(await appliedLog(a!), ["notes#1", "notes#2", "tags#1"]);
      const rows = await a!.execute("SELECT room, version, name, applied_at FROM migrations ORDER BY room, version");
      assert.deepEqual(rows.rows, [
        { room: "notes", version: 1, name: "create notes", applied_at: 1_700_000_000_000 },
        { room: "notes", version: 2, name: "add title", applied_at: 1_700_000_000_000 },
        { room: "tags", version: 1, name: "create tags", applied_at: 1_700_000_000_000 },
      ]);
    }));

  it("applies each migration exactly once when two openStore calls race on a new file", async () => {
    const dir = await tempDir();
    try {
      const stores = await Promise.all([openStore({ url: dir.url(), migrations: all }), openStore({ url: dir.url(), migrations: all })]);
      assert.deepEqual(await appliedLog(stores[0]), ["notes#1", "notes#2", "tags#1"]);
      for (const store of stores) await store.close();
    } finally {
      await dir.remove();
    }
  });

  it("applies nothing the second time, and only the new migration after an upgrade", () =>
    withStores(1, async ([store]) => {
      await applyMigrations(store!, notes.slice(0, 1));
      assert.deepEqual(await applyMigrations(store!, notes.slice(0, 1)), { applied: [], alreadyApplied: 1 });
      assert.deepEqual(await applyMigrations(store!, all), { applied: ["notes#2", "tags#1"], alreadyApplied: 1 });
      assert.deepEqual(await appliedLog(store!), ["notes#1", "notes#2", "tags#1"]);
    }));

  it("refuses an applied migration whose statements changed; the unchanged one (control) passes", () =>
    withStores(1, async ([store]) => {
      await applyMigrations(store!, notes);
      await applyMigrations(store!, notes);
      const edited = [notes[0]!, { ...notes[1]!, statements: ["ALTER TABLE notes ADD COLUMN heading TEXT"] }];
      await assert.rejects(applyMigrations(store!, edited), (e: unknown) => e instanceof StoreError && e.code === "migration_mismatch" && /notes#2/.test(e.message));
    }));

  it("refuses a store migrated past what the code knows; the same version (control) passes", () =>
    withStores(1, async ([store]) => {
      await applyMigrations(store!, notes);
      await applyMigrations(store!, notes);
      await assert.rejects(applyMigrations(store!, notes.slice(0, 1)), (e: unknown) => e instanceof StoreError && e.code === "migration_mismatch" && /upgrade the runtime/.test(e.message));
    }));

  it("rolls a failing migration back whole: no table, no bookkeeping row; the fixed one (control) applies", () =>
    withStores(1, async ([store]) => {
      const broken: Migration = { room: "notes", version: 1, name: "broken", statements: ["CREATE TABLE notes (id INTEGER PRIMARY KEY)", "INSERT INTO missing_table VALUES (1)"] };
      await assert.rejects(applyMigrations(store!, [broken]), (e: unknown) => e instanceof StoreError && /notes#1 \(broken\)/.test(e.message));
      const tables = await store!.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'notes'");
      assert.equal(tables.rows.length, 0);
      assert.equal((await store!.execute("SELECT count(*) AS n FROM migrations")).rows[0]?.n, 0);
      const fixed: Migration = { ...broken, statements: ["CREATE TABLE notes (id INTEGER PRIMARY KEY)"] };
      assert.deepEqual((await applyMigrations(store!, [fixed])).applied, ["notes#1"]);
    }));

  const invalid: [string, Migration[], RegExp][] = [
    ["a room name with capitals", [{ room: "Notes", version: 1, name: "x", statements: ["SELECT 1"] }], /room/],
    ["a room starting at version 2", [{ room: "notes", version: 2, name: "x", statements: ["SELECT 1"] }], /next is 1/],
    ["a gap in versions", [notes[0]!, { room: "notes", version: 3, name: "x", statements: ["SELECT 1"] }], /next is 2/],
    ["a repeated version", [notes[0]!, notes[0]!], /next is 2/],
    ["no statements", [{ room: "notes", version: 1, name: "x", statements: [] }], /non-empty statement/],
    ["a blank statement", [{ room: "notes", version: 1, name: "x", statements: ["  "] }], /non-empty statement/],
  ];
  for (const [label, list, reason] of invalid) {
    it(`refuses ${label} before touching the store`, () =>
      withStores(1, async ([store]) => {
        await assert.rejects(applyMigrations(store!, list), (e: unknown) => e instanceof InvalidInputError && reason.test(e.message));
        const tables = await store!.execute("SELECT name FROM sqlite_master WHERE name = 'migrations'");
        assert.equal(tables.rows.length, 0);
      }));
  }
  it("accepts two rooms numbered independently (control)", () =>
    withStores(1, async ([store]) => {
      assert.deepEqual((await applyMigrations(store!, all)).applied, ["notes#1", "notes#2", "tags#1"]);
    }));
});
