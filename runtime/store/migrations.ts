import { createHash } from "node:crypto";
import { InvalidInputError } from "../errors.js";
import { systemClock } from "./clock.js";
import type { Clock } from "./clock.js";
import { StoreError, toStoreError } from "./errors.js";
import type { Store } from "./types.js";

/**
 * One schema change owned by a room. Versions are numbered per room (1, 2, 3, …) so rooms never
 * coordinate numbers; a released migration never changes (its checksum is recorded) — change the
 * schema with a new one.
 */
export interface Migration {
  /** The owning room, e.g. `audit`. */
  readonly room: string;
  readonly version: number;
  /** A short description for people, e.g. `create audit_records`. */
  readonly name: string;
  /** Run in order, in one transaction with the bookkeeping row. */
  readonly statements: readonly string[];
}

export interface MigrationReport {
  /** `room#version` of each migration this call applied, in order. */
  readonly applied: readonly string[];
  /** How many were already applied (by an earlier start or by another process). */
  readonly alreadyApplied: number;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS migrations (
  room TEXT NOT NULL,
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (room, version)
) STRICT`;

const ROOM_NAME = /^[a-z][a-z0-9_-]*$/;

/**
 * Applies the migrations not yet applied, in the order given (order rooms so that a table exists
 * before another room's foreign key names it). Each migration runs in one write transaction that
 * first inserts its `migrations` row: when two processes race, the second one's insert hits the
 * primary key, its whole transaction rolls back, and it finds the row the winner wrote — so a
 * migration is applied exactly once without holding a lock across awaits.
 */
export async function applyMigrations(
  store: Store,
  migrations: readonly Migration[],
  options: { clock?: Clock } = {},
): Promise<MigrationReport> {
  validate(migrations);
  const clock = options.clock ?? systemClock;
  await store.execute(CREATE_TABLE);
  const recorded = await readRecorded(store);
  refuseUnknownVersions(migrations, recorded);
  const applied: string[] = [];
  let alreadyApplied = 0;
  for (const migration of migrations) {
    const id = `${migration.room}#${migration.version}`;
    const checksum = checksumOf(migration);
    const existing = recorded.get(id) ?? (await applyOne(store, { migration, checksum, at: clock.now() }));
    if (existing === undefined) {
      applied.push(id);
      continue;
    }
    if (existing !== checksum) throw mismatch(migration, existing, checksum);
    alreadyApplied++;
  }
  return { applied, alreadyApplied };
}

/** Returns undefined when this call applied it, or the checksum another process recorded. */
async function applyOne(
  store: Store,
  input: { migration: Migration; checksum: string; at: number },
): Promise<string | undefined> {
  const { migration, checksum, at } = input;
  try {
    await store.batch([
      {
        sql: "INSERT INTO migrations (room, version, name, checksum, applied_at) VALUES (?, ?, ?, ?, ?)",
        args: [migration.room, migration.version, migration.name, checksum, at],
      },
      ...migration.statements,
    ]);
    return undefined;
  } catch (error) {
    if (error instanceof StoreError && error.code === "store_constraint") {
      const won = await store.execute({
        sql: "SELECT checksum FROM migrations WHERE room = ? AND version = ?",
        args: [migration.room, migration.version],
      });
      const row = won.rows[0];
      if (row !== undefined) return String(row.checksum);
    }
    const cause = toStoreError(error, "store");
    throw new StoreError(cause.code, `migration ${migration.room}#${migration.version} (${migration.name}): ${cause.message}`, {
      ...(cause.sqliteCode === undefined ? {} : { sqliteCode: cause.sqliteCode }),
      cause: error,
    });
  }
}

async function readRecorded(store: Store): Promise<Map<string, string>> {
  const result = await store.execute("SELECT room, version, checksum FROM migrations");
  return new Map(result.rows.map((row) => [`${String(row.room)}#${String(row.version)}`, String(row.checksum)]));
}

// A runtime older than the store would write rows a newer schema does not expect.
function refuseUnknownVersions(migrations: readonly Migration[], recorded: Map<string, string>): void {
  const known = new Map<string, number>();
  for (const m of migrations) known.set(m.room, Math.max(known.get(m.room) ?? 0, m.version));
  for (const id of recorded.keys()) {
    const [room = "", version = "0"] = id.split("#");
    const newest = known.get(room);
    if (newest !== undefined && Number(version) > newest) {
      throw new StoreError(
        "migration_mismatch",
        `migration ${id}: the store has it but this runtime knows ${room} only up to version ${newest}; upgrade the runtime`,
      );
    }
  }
}

function validate(migrations: readonly Migration[]): void {
  const next = new Map<string, number>();
  migrations.forEach((m, index) => {
    const field = `migrations[${index}]`;
    if (!ROOM_NAME.test(m.room)) {
      throw new InvalidInputError(`${field}.room: ${JSON.stringify(m.room)} must match ${ROOM_NAME.source}`, { field });
    }
    const expected = next.get(m.room) ?? 1;
    if (m.version !== expected) {
      throw new InvalidInputError(
        `${field}: ${m.room} version ${m.version} out of order; versions of a room run 1, 2, 3… and the next is ${expected}`,
        { field },
      );
    }
    next.set(m.room, expected + 1);
    if (m.statements.length === 0 || m.statements.some((s) => s.trim() === "")) {
      throw new InvalidInputError(`${field}: ${m.room}#${m.version} needs at least one non-empty statement`, { field });
    }
  });
}

function checksumOf(migration: Migration): string {
  return createHash("sha256").update(JSON.stringify(migration.statements)).digest("hex");
}

function mismatch(migration: Migration, recorded: string, current: string): StoreError {
  return new StoreError(
    "migration_mismatch",
    `migration ${migration.room}#${migration.version} (${migration.name}): applied with checksum ${recorded.slice(0, 12)}…, ` +
      `the code now has ${current.slice(0, 12)}…; never edit a released migration, add a new version`,
  );
}
