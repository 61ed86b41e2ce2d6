/**
 * A JSON writer with `JSON.stringify`'s output for the values tools return: strings escaped as it
 * escapes them (lone surrogates as `\udXXX`, RFC 8259 §7 and ES2019's well-formed stringify),
 * whole numbers without a fraction, non-finite numbers as `null`. Parts are joined once at the
 * end, so the cost is linear in the output.
 */
import { JsonArray, JsonBool, JsonKind, JsonNumber, JsonObject, JsonString, JsonValue } from "./json";

const HEX = "0123456789abcdef";

export class JsonWriter {
  parts: string[] = [];
  /** Per open object or array: whether the next member needs a comma before it. */
  comma: bool[] = [];

  private member(): void {
    const n = this.comma.length;
    if (n == 0) return;
    if (unchecked(this.comma[n - 1])) this.parts.push(",");
    else unchecked((this.comma[n - 1] = true));
  }

  beginObject(): JsonWriter { this.valueStart(); this.parts.push("{"); this.comma.push(false); return this; }
  endObject(): JsonWriter { this.parts.push("}"); this.comma.pop(); return this; }
  beginArray(): JsonWriter { this.valueStart(); this.parts.push("["); this.comma.push(false); return this; }
  endArray(): JsonWriter { this.parts.push("]"); this.comma.pop(); return this; }

  /** A member's key inside an object; its value follows with the next call. */
  key(k: string): JsonWriter {
    this.member();
    quote(k, this.parts);
    this.parts.push(":");
    // The value after the key takes no comma of its own.
    this.afterKey = true;
    return this;
  }

  private afterKey: bool = false;

  private valueStart(): void {
    if (this.afterKey) {
      this.afterKey = false;
      return;
    }
    this.member();
  }

  string(s: string): JsonWriter { this.valueStart(); quote(s, this.parts); return this; }
  nullable(s: string | null): JsonWriter { return s == null ? this.null() : this.string(s); }
  number(v: f64): JsonWriter { this.valueStart(); this.parts.push(formatNumber(v)); return this; }
  integer(v: i64): JsonWriter { this.valueStart(); this.parts.push(v.toString()); return this; }
  bool(v: bool): JsonWriter { this.valueStart(); this.parts.push(v ? "true" : "false"); return this; }
  null(): JsonWriter { this.valueStart(); this.parts.push("null"); return this; }

  /** Writes a parsed value back (e.g. an enum member in a message). */
  value(v: JsonValue): JsonWriter {
    switch (v.kind) {
      case JsonKind.Null: return this.null();
      case JsonKind.Bool: return this.bool((<JsonBool>v).value);
      case JsonKind.Number: return this.number((<JsonNumber>v).value);
      case JsonKind.String: return this.string((<JsonString>v).value);
      case JsonKind.Array: {
        this.beginArray();
        const items = (<JsonArray>v).items;
        for (let i = 0; i < items.length; i++) this.value(unchecked(items[i]));
        return this.endArray();
      }
    }
    const o = <JsonObject>v;
    this.beginObject();
    for (let i = 0; i < o.keys.length; i++) this.key(unchecked(o.keys[i])).value(o.values.get(unchecked(o.keys[i])));
    return this.endObject();
  }

  text(): string {
    return this.parts.join("");
  }
}

/** A number as `JSON.stringify` writes it. */
export function formatNumber(v: f64): string {
  if (!isFinite(v)) return "null";
  if (v == Math.floor(v) && Math.abs(v) < 1e21) {
    if (v == 0) return "0";
    if (Math.abs(v) <= 9007199254740992) return (<i64>v).toString();
  }
  return v.toString();
}

/** `s` quoted and escaped into `parts`; unescaped runs are copied whole. */
export function quote(s: string, parts: string[]): void {
  parts.push("\"");
  let run = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    let escaped: string | null = null;
    if (c == 0x22) escaped = "\\\"";
    else if (c == 0x5c) escaped = "\\\\";
    else if (c < 0x20) escaped = control(c);
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
      escaped = unicodeEscape(c);
    }
    if (escaped == null) continue;
    if (i > run) parts.push(s.substring(run, i));
    parts.push(escaped);
    run = i + 1;
  }
  if (run < n) parts.push(run == 0 ? s : s.substring(run));
  parts.push("\"");
}

function control(c: i32): string {
  switch (c) {
    case 0x08: return "\\b";
    case 0x09: return "\\t";
    case 0x0a: return "\\n";
    case 0x0c: return "\\f";
    case 0x0d: return "\\r";
  }
  return unicodeEscape(c);
}

function unicodeEscape(c: i32): string {
  return "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15);
}
