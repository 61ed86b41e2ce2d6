import { InvalidInputError } from "../errors.js";

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

const MAX_DEPTH = 64;

/**
 * Deterministic JSON, so a hash over it is reproducible: object keys sorted by UTF-16 code units,
 * no whitespace, numbers and strings as ECMAScript's JSON.stringify writes them (the same rules as
 * RFC 8785, JSON Canonicalization Scheme). Refuses what has no single JSON form — NaN, ±Infinity,
 * bigint, functions, class instances (Date, Map, Buffer…), cycles — rather than guess; drops
 * object properties whose value is `undefined`, as TypeScript optional fields produce them.
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value, 0);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const path = `$${error.path.reverse().join("")}`;
    throw new InvalidInputError(`canonical JSON ${path}: ${error.reason}`, { field: path });
  }
}

/** Carries the failing path outwards; the path is only built when something fails (hot path). */
class Refusal extends Error {
  readonly path: string[] = [];
  constructor(readonly reason: string) {
    super(reason);
  }
}

function write(value: unknown, depth: number): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new Refusal(`${value} has no JSON form`);
      return JSON.stringify(value);
    case "object":
      if (depth >= MAX_DEPTH) throw new Refusal(`nested deeper than ${MAX_DEPTH} levels (a cycle?)`);
      return Array.isArray(value) ? writeArray(value, depth) : writeObject(value, depth);
    default:
      throw new Refusal(`a ${typeof value} has no JSON form`);
  }
}

function writeArray(values: readonly unknown[], depth: number): string {
  let out = "[";
  for (let i = 0; i < values.length; i++) {
    const item = values[i];
    try {
      if (item === undefined) throw new Refusal("undefined in an array has no JSON form");
      out += (i === 0 ? "" : ",") + write(item, depth + 1);
    } catch (error) {
      if (error instanceof Refusal) error.path.push(`[${i}]`);
      throw error;
    }
  }
  return `${out}]`;
}

function writeObject(value: object, depth: number): string {
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) {
    throw new Refusal(`a ${value.constructor?.name ?? "class"} instance is not plain JSON; convert it first`);
  }
  const record = value as Record<string, unknown>;
  let out = "{";
  let first = true;
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    try {
      out += `${first ? "" : ","}${JSON.stringify(key)}:${write(item, depth + 1)}`;
    } catch (error) {
      if (error instanceof Refusal) error.path.push(`.${key}`);
      throw error;
    }
    first = false;
  }
  return `${out}}`;
}

/** A stored record's `args` read back as an object; null when it is absent, not JSON or not an object. */
export function storedObject(args: string | null): Record<string, unknown> | null {
  if (args === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return null;
  }
  return parsed === null || typeof parsed !== "object" || Array.isArray(parsed) ? null : (parsed as Record<string, unknown>);
}
