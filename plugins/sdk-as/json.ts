/**
 * JSON values and a bounded parser for tool input (RFC 8259). AssemblyScript has no `JSON`, and the
 * npm JSON libraries for it map text onto classes declared ahead (a tool's input is checked against
 * its schema instead, with the messages the TypeScript SDK gives), so this is a small tree parser:
 * depth-limited and size-limited before it reads anything, never trapping on bad text.
 */

export const JSON_MAX_DEPTH: i32 = 64;
export const JSON_MAX_CHARS: i32 = 4 << 20;

export const enum JsonKind { Null, Bool, Number, String, Array, Object }

export class JsonValue {
  constructor(public kind: JsonKind) {}

  /** The JSON type's name as the TypeScript SDK's input check says it (`integer` for whole numbers). */
  typeName(): string {
    switch (this.kind) {
      case JsonKind.Null: return "null";
      case JsonKind.Bool: return "boolean";
      case JsonKind.Number: return (<JsonNumber>this).isInteger() ? "integer" : "number";
      case JsonKind.String: return "string";
      case JsonKind.Array: return "array";
      default: return "object";
    }
  }
}

export class JsonBool extends JsonValue {
  constructor(public value: bool) { super(JsonKind.Bool); }
}

export class JsonNumber extends JsonValue {
  constructor(public value: f64) { super(JsonKind.Number); }

  isInteger(): bool {
    return isFinite(this.value) && Math.floor(this.value) == this.value;
  }
}

export class JsonString extends JsonValue {
  constructor(public value: string) { super(JsonKind.String); }
}

export class JsonArray extends JsonValue {
  items: JsonValue[] = [];
  constructor() { super(JsonKind.Array); }
}

/** An object; a repeated key keeps its last value, as `JSON.parse` does. */
export class JsonObject extends JsonValue {
  keys: string[] = [];
  values: Map<string, JsonValue> = new Map<string, JsonValue>();
  constructor() { super(JsonKind.Object); }

  set(key: string, value: JsonValue): void {
    if (!this.values.has(key)) this.keys.push(key);
    this.values.set(key, value);
  }

  has(key: string): bool {
    return this.values.has(key);
  }

  get(key: string): JsonValue | null {
    return this.values.has(key) ? this.values.get(key) : null;
  }

  /** The string at `key`, or null when absent (the input check has already vouched for its type). */
  string(key: string): string | null {
    const v = this.get(key);
    return v != null && v.kind == JsonKind.String ? (<JsonString>v).value : null;
  }

  number(key: string): JsonNumber | null {
    const v = this.get(key);
    return v != null && v.kind == JsonKind.Number ? <JsonNumber>v : null;
  }

  bool(key: string, otherwise: bool): bool {
    const v = this.get(key);
    return v != null && v.kind == JsonKind.Bool ? (<JsonBool>v).value : otherwise;
  }
}

/** What `parseJson` returns: a value, or the reason the text is not JSON. */
export class JsonParsed {
  constructor(public value: JsonValue | null, public error: string | null) {}
}

export function parseJson(text: string): JsonParsed {
  if (text.length > JSON_MAX_CHARS) return new JsonParsed(null, "longer than " + JSON_MAX_CHARS.toString() + " characters");
  const parser = new Parser(text);
  const value = parser.value(0);
  if (value != null) {
    parser.space();
    if (parser.at < text.length) parser.fail("Unexpected non-whitespace character after JSON");
  }
  const error = parser.error;
  return error != null ? new JsonParsed(null, error) : new JsonParsed(value, null);
}

class Parser {
  at: i32 = 0;
  error: string | null = null;
  constructor(public text: string) {}

  fail(message: string): JsonValue | null {
    if (this.error == null) this.error = message + " at position " + this.at.toString();
    return null;
  }

  space(): void {
    const text = this.text;
    while (this.at < text.length) {
      const c = text.charCodeAt(this.at);
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) return;
      this.at++;
    }
  }

  value(depth: i32): JsonValue | null {
    this.space();
    if (this.at >= this.text.length) return this.fail("Unexpected end of JSON input");
    const c = this.text.charCodeAt(this.at);
    if (c == 0x7b || c == 0x5b) {
      if (depth >= JSON_MAX_DEPTH) return this.fail("nested deeper than " + JSON_MAX_DEPTH.toString() + " levels");
      return c == 0x7b ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c == 0x22) {
      const s = this.string();
      return s == null ? null : new JsonString(s);
    }
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.word("true")) return new JsonBool(true);
    if (this.word("false")) return new JsonBool(false);
    if (this.word("null")) return new JsonValue(JsonKind.Null);
    return this.fail("Unexpected token '" + String.fromCharCode(c) + "'");
  }

  word(w: string): bool {
    if (this.text.substr(this.at, w.length) != w) return false;
    this.at += w.length;
    return true;
  }

  object(depth: i32): JsonValue | null {
    const out = new JsonObject();
    this.at++;
    this.space();
    if (this.peek() == 0x7d) { this.at++; return out; }
    while (true) {
      this.space();
      if (this.peek() != 0x22) return this.fail("Expected a property name in double quotes");
      const key = this.string();
      if (key == null) return null;
      this.space();
      if (this.peek() != 0x3a) return this.fail("Expected ':' after a property name");
      this.at++;
      const v = this.value(depth);
      if (v == null) return null;
      out.set(key, v);
      this.space();
      const c = this.peek();
      this.at++;
      if (c == 0x7d) return out;
      if (c != 0x2c) { this.at--; return this.fail("Expected ',' or '}' after a property value"); }
    }
  }

  array(depth: i32): JsonValue | null {
    const out = new JsonArray();
    this.at++;
    this.space();
    if (this.peek() == 0x5d) { this.at++; return out; }
    while (true) {
      const v = this.value(depth);
      if (v == null) return null;
      out.items.push(v);
      this.space();
      const c = this.peek();
      this.at++;
      if (c == 0x5d) return out;
      if (c != 0x2c) { this.at--; return this.fail("Expected ',' or ']' after an array element"); }
    }
  }

  /** -1 at the end of the text. */
  peek(): i32 {
    return this.at < this.text.length ? this.text.charCodeAt(this.at) : -1;
  }

  digits(): i32 {
    const from = this.at;
    while (this.at < this.text.length) {
      const c = this.text.charCodeAt(this.at);
      if (c < 0x30 || c > 0x39) break;
      this.at++;
    }
    return this.at - from;
  }

  number(): JsonValue | null {
    const from = this.at;
    if (this.peek() == 0x2d) this.at++;
    if (this.peek() == 0x30) this.at++;
    else if (this.digits() == 0) return this.fail("No number after minus sign");
    if (this.peek() == 0x2e) {
      this.at++;
      if (this.digits() == 0) return this.fail("Unterminated fractional number");
    }
    const e = this.peek();
    if (e == 0x65 || e == 0x45) {
      this.at++;
      const sign = this.peek();
      if (sign == 0x2b || sign == 0x2d) this.at++;
      if (this.digits() == 0) return this.fail("Exponent part is missing a number");
    }
    return new JsonNumber(parseFloat(this.text.substring(from, this.at)));
  }

  /** A string token; runs between escapes are copied whole, so a long string costs linear time. */
  string(): string | null {
    const text = this.text;
    const parts = new Array<string>();
    this.at++;
    let run = this.at;
    while (true) {
      if (this.at >= text.length) { this.fail("Unterminated string in JSON"); return null; }
      const c = text.charCodeAt(this.at);
      if (c == 0x22) {
        parts.push(text.substring(run, this.at));
        this.at++;
        return parts.length == 1 ? unchecked(parts[0]) : parts.join("");
      }
      if (c < 0x20) { this.fail("Bad control character in string literal"); return null; }
      if (c != 0x5c) { this.at++; continue; }
      parts.push(text.substring(run, this.at));
      const escaped = this.escape();
      if (escaped == null) return null;
      parts.push(escaped);
      run = this.at;
    }
  }

  escape(): string | null {
    const c = this.at + 1 < this.text.length ? this.text.charCodeAt(this.at + 1) : -1;
    this.at += 2;
    switch (c) {
      case 0x22: return "\"";
      case 0x5c: return "\\";
      case 0x2f: return "/";
      case 0x62: return "\b";
      case 0x66: return "\f";
      case 0x6e: return "\n";
      case 0x72: return "\r";
      case 0x74: return "\t";
      case 0x75: {
        let code = 0;
        for (let i = 0; i < 4; i++) {
          const h = this.at < this.text.length ? hexValue(this.text.charCodeAt(this.at)) : -1;
          if (h < 0) { this.fail("Bad Unicode escape in JSON"); return null; }
          code = (code << 4) | h;
          this.at++;
        }
        return String.fromCharCode(code);
      }
    }
    this.at -= 1;
    this.fail("Bad escaped character in JSON");
    return null;
  }
}

function hexValue(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
