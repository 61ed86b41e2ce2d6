import type { Row, SqlArgs, SqlValue } from "./types.js";

/**
 * The small conversions both drivers share, so a row looks the same whatever produced it:
 * BLOBs as `Uint8Array` (never Buffer or ArrayBuffer), rows as plain objects.
 */

export function blobOut(value: unknown): SqlValue {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  // A Buffer is a Uint8Array subclass: rewrap without copying so deepEqual and structuredClone
  // see a plain Uint8Array.
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return value as SqlValue;
}

export function rowFrom(columns: readonly string[], values: readonly unknown[]): Row {
  const row: Record<string, SqlValue> = {};
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i] as string;
    // The first column of a name wins, as in SQLite's own `SELECT a.x, b.x` output order.
    if (!Object.hasOwn(row, name)) row[name] = blobOut(values[i]);
  }
  return row;
}

/** libsql binds Buffers, and names without their `:`/`@`/`$` prefix. */
export function argsForLibsql(args: SqlArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (isPositional(args)) return args.map(blobIn);
  const named: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const name = key.startsWith(":") || key.startsWith("@") || key.startsWith("$") ? key.slice(1) : key;
    named[name] = blobIn(value);
  }
  return named;
}

export function isPositional(args: SqlArgs): args is readonly SqlValue[] {
  return Array.isArray(args);
}

function blobIn(value: SqlValue): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value;
}
