import type { TypedTool } from "./schema.js";
import { jsName, jsonName, typeText, type WitType } from "./wit-types.js";

/**
 * JSON ⇄ the JS values jco's glue takes and gives for WIT types. Runs in the sandbox worker,
 * on input the host already validated against the tool's schema; it checks again all the same
 * (a range, a char, an unknown key) and never trusts the shape it is given.
 *
 * JSON spelling: record fields and parameters in snake case; enum, variant and flag names as
 * in WIT; a variant `{tag, val}`; an option `null` or its value (`{"some": …}` when the value
 * is an option itself); a result `{"ok": …}` or `{"err": …}`; flags a list of names; u64/s64 a
 * number, or a decimal string beyond 2^53; list<u8> base64 (or a list of numbers on input).
 */
export class LowerError extends Error {}

const INT_RANGES: Readonly<Record<string, [number, number]>> = {
  s8: [-128, 127], u8: [0, 255], s16: [-32768, 32767], u16: [0, 65535],
  s32: [-2147483648, 2147483647], u32: [0, 4294967295],
};
const BIG_RANGES: Readonly<Record<string, [bigint, bigint]>> = {
  u64: [0n, 2n ** 64n - 1n],
  s64: [-(2n ** 63n), 2n ** 63n - 1n],
};
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The arguments of `tool` from its JSON input object, in parameter order. */
export function lowerArguments(tool: TypedTool, input: unknown): unknown[] {
  if (!isPlainObject(input)) throw new LowerError("input: expected a JSON object");
  const known = new Set(tool.params.map((p) => p.json));
  for (const key of Object.keys(input)) if (!known.has(key)) throw new LowerError(`input.${key}: no such parameter`);
  return tool.params.map((p) => lower(p.type, Object.hasOwn(input, p.json) ? input[p.json] : undefined, `input.${p.json}`));
}

export function lower(type: WitType, value: unknown, at: string): unknown {
  const fail = (what: string): never => {
    throw new LowerError(`${at}: expected ${what}`);
  };
  if (type.kind !== "option" && value === undefined) fail(`a value of WIT ${typeText(type)} (missing)`);
  switch (type.kind) {
    case "primitive":
      return lowerPrimitive(type.name, value, fail);
    case "record": {
      if (!isPlainObject(value)) return fail(`an object (WIT ${typeText(type)})`);
      const fields = new Map(type.fields.map((f) => [jsonName(f.name), f]));
      for (const key of Object.keys(value)) if (!fields.has(key)) fail(`no field ${key} (WIT ${typeText(type)})`);
      const out: Record<string, unknown> = {};
      for (const [key, f] of fields) out[jsName(f.name)] = lower(f.type, Object.hasOwn(value, key) ? value[key] : undefined, `${at}.${key}`);
      return out;
    }
    case "variant": {
      if (!isPlainObject(value) || typeof value.tag !== "string") return fail(`an object {tag, val} (WIT ${typeText(type)})`);
      const c = type.cases.find((k) => k.name === value.tag) ?? fail(`tag one of ${type.cases.map((k) => k.name).join(", ")}`);
      for (const key of Object.keys(value)) if (key !== "tag" && key !== "val") fail(`only tag and val (WIT ${typeText(type)})`);
      if (!c.type) return value.val === undefined || value.val === null ? { tag: c.name } : fail(`no val for case ${c.name}`);
      return { tag: c.name, val: lower(c.type, value.val, `${at}.val`) };
    }
    case "enum":
      if (typeof value !== "string" || !type.names.includes(value)) return fail(`one of ${type.names.join(", ")}`);
      return value;
    case "flags": {
      if (!Array.isArray(value)) return fail(`a list of flag names (${type.names.join(", ")})`);
      const out: Record<string, boolean> = {};
      for (const name of type.names) out[jsName(name)] = false;
      for (const item of value) {
        if (typeof item !== "string" || !type.names.includes(item)) fail(`flag names among ${type.names.join(", ")}`);
        out[jsName(item as string)] = true;
      }
      return out;
    }
    case "list":
      return lowerList(type, value, at, fail);
    case "tuple":
      if (!Array.isArray(value) || value.length !== type.items.length) return fail(`a list of ${type.items.length} (WIT ${typeText(type)})`);
      return type.items.map((t, i) => lower(t, value[i], `${at}[${i}]`));
    case "option":
      if (value === undefined || value === null) return type.inner.kind === "option" ? { tag: "none" } : undefined;
      if (type.inner.kind !== "option") return lower(type.inner, value, at);
      if (!isPlainObject(value) || !Object.hasOwn(value, "some") || Object.keys(value).length !== 1) return fail(`null or {"some": …} (WIT ${typeText(type)})`);
      return { tag: "some", val: lower(type.inner, value.some, `${at}.some`) };
    case "result": {
      const keys = isPlainObject(value) ? Object.keys(value) : [];
      if (keys.length !== 1 || (keys[0] !== "ok" && keys[0] !== "err")) return fail(`{"ok": …} or {"err": …} (WIT ${typeText(type)})`);
      const tag = keys[0] as "ok" | "err";
      const inner = type[tag];
      const raw = (value as Record<string, unknown>)[tag];
      if (!inner) return raw === null || raw === undefined ? { tag } : fail(`null for ${tag}`);
      return { tag, val: lower(inner, raw, `${at}.${tag}`) };
    }
    case "unmappable":
      return fail(`nothing: WIT ${type.what} is not served`);
  }
}

function lowerPrimitive(name: string, value: unknown, fail: (what: string) => never): unknown {
  const range = INT_RANGES[name];
  if (range) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < range[0] || value > range[1]) return fail(`an integer from ${range[0]} to ${range[1]} (WIT ${name})`);
    return value;
  }
  const big = BIG_RANGES[name];
  if (big) {
    let n: bigint | undefined;
    if (typeof value === "number" && Number.isSafeInteger(value)) n = BigInt(value);
    else if (typeof value === "string" && /^-?(0|[1-9][0-9]{0,19})$/.test(value)) n = BigInt(value);
    if (n === undefined || n < big[0] || n > big[1]) return fail(`an integer from ${big[0]} to ${big[1]}, as a number or a decimal string (WIT ${name})`);
    return n;
  }
  switch (name) {
    case "bool":
      return typeof value === "boolean" ? value : fail("true or false");
    case "f32":
    case "f64":
      return typeof value === "number" && Number.isFinite(value) ? value : fail(`a number (WIT ${name})`);
    case "char": {
      const points = typeof value === "string" ? [...value] : [];
      const code = points.length === 1 ? points[0]!.codePointAt(0)! : -1;
      if (code < 0 || (code >= 0xd800 && code <= 0xdfff)) return fail("one Unicode scalar value (WIT char)");
      return value;
    }
    default:
      return typeof value === "string" ? value : fail("a string");
  }
}

function lowerList(type: Extract<WitType, { kind: "list" }>, value: unknown, at: string, fail: (what: string) => never): unknown {
  const bytes = type.element.kind === "primitive" && type.element.name === "u8";
  if (bytes && typeof value === "string" && type.length === undefined) {
    if (!BASE64.test(value)) return fail("base64 text or a list of bytes (WIT list<u8>)");
    return new Uint8Array(Buffer.from(value, "base64"));
  }
  if (!Array.isArray(value)) return fail(`a list (WIT ${typeText(type)})`);
  if (type.length !== undefined && value.length !== type.length) return fail(`a list of exactly ${type.length}`);
  const items = value.map((v, i) => lower(type.element, v, `${at}[${i}]`));
  return bytes ? Uint8Array.from(items as number[]) : items;
}

/** A guest value of `type` as JSON; throws (a broken guest) when it does not have the type's shape. */
export function lift(type: WitType, value: unknown, at = "result"): unknown {
  const bad = (): never => {
    throw new TypeError(`${at}: the guest returned a value that is not a WIT ${typeText(type)}`);
  };
  switch (type.kind) {
    case "primitive":
      if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
      if (typeof value === "number") return Number.isFinite(value) ? value : null;
      return typeof value === "string" || typeof value === "boolean" ? value : bad();
    case "record": {
      if (!isObject(value)) return bad();
      const out: Record<string, unknown> = {};
      for (const f of type.fields) out[jsonName(f.name)] = lift(f.type, value[jsName(f.name)], `${at}.${jsonName(f.name)}`);
      return out;
    }
    case "variant": {
      if (!isObject(value)) return bad();
      const c = type.cases.find((k) => k.name === value.tag) ?? bad();
      return c.type ? { tag: c.name, val: lift(c.type, value.val, `${at}.val`) } : { tag: c.name };
    }
    case "enum":
      return typeof value === "string" && type.names.includes(value) ? value : bad();
    case "flags":
      if (!isObject(value)) return bad();
      return type.names.filter((n) => value[jsName(n)] === true);
    case "list": {
      if (type.element.kind === "primitive" && type.element.name === "u8" && value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
      if (!Array.isArray(value) && !ArrayBuffer.isView(value)) return bad();
      return Array.from(value as ArrayLike<unknown>, (v, i) => lift(type.element, v, `${at}[${i}]`));
    }
    case "tuple":
      if (!Array.isArray(value) || value.length !== type.items.length) return bad();
      return type.items.map((t, i) => lift(t, value[i], `${at}[${i}]`));
    case "option":
      if (type.inner.kind === "option") {
        if (!isObject(value)) return bad();
        return value.tag === "none" ? null : { some: lift(type.inner, value.val, `${at}.some`) };
      }
      return value === undefined || value === null ? null : lift(type.inner, value, at);
    case "result": {
      if (!isObject(value) || (value.tag !== "ok" && value.tag !== "err")) return bad();
      const inner = type[value.tag];
      return { [value.tag]: inner ? lift(inner, value.val, `${at}.${value.tag}`) : null };
    }
    case "unmappable":
      return bad();
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
