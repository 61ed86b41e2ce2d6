/**
 * Bounds on JSON from a guest, a client or a model. Depth matters because `JSON.stringify`,
 * `structuredClone` and most walkers recurse: a 40 KB text nested 20,000 deep parses (V8's
 * parser is iterative) and then overflows the stack wherever it is written out again.
 */
export interface JsonLimits {
  /** Most nested arrays and objects; the root container is depth 1. */
  maxDepth: number;
  /** Most UTF-16 code units of the text (or of the value written as JSON). */
  maxLength: number;
  /** Most values in all (each container, member and element counts one). */
  maxValues: number;
  /** Object keys refused anywhere, e.g. `__proto__` for what becomes a ToolCall's input. */
  forbiddenKeys?: ReadonlySet<string>;
}

/** Keys that reach an object's prototype when a value is merged or assigned by name. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** A request body from a client (its byte size is the body limit's job). */
export const CLIENT_JSON: JsonLimits = { maxDepth: 64, maxLength: 256 << 20, maxValues: 1_000_000 };
/** A ToolCall's input, from a client, the CLI or a model. */
export const TOOL_INPUT_JSON: JsonLimits = { maxDepth: 64, maxLength: 4 << 20, maxValues: 200_000, forbiddenKeys: PROTOTYPE_KEYS };
/** What a guest returns: data such as a tree may nest deeper than an input (its size is the result cap's job). */
export const GUEST_RESULT_JSON: JsonLimits = { maxDepth: 128, maxLength: 256 << 20, maxValues: 2_000_000 };
/** A tool's input JSON Schema from a plugin's describe. */
export const TOOL_SCHEMA_JSON: JsonLimits = { maxDepth: 64, maxLength: 1 << 20, maxValues: 50_000 };

export type JsonProblemCode = "too-deep" | "too-long" | "too-many-values" | "forbidden-key" | "cycle" | "not-json";

/** What was wrong and where: `path` is `at` plus the keys and indexes down to the problem. */
export interface JsonProblem {
  code: JsonProblemCode;
  path: string;
  message: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const SHOWN_PATH = 160;

/** `at` followed by `segments` (`.name`, `[3]`, `["a b"]`), shortened in the middle past a bound. */
export function formatPath(at: string, segments: ReadonlyArray<string | number>): string {
  let path = at;
  for (const s of segments) {
    if (typeof s === "number") path += `[${s}]`;
    else if (IDENTIFIER.test(s) && s.length <= 64) path += path === "" ? s : `.${s}`;
    else path += `[${JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s)}]`;
  }
  return path.length <= SHOWN_PATH ? path : `${path.slice(0, SHOWN_PATH / 2)}…${path.slice(-SHOWN_PATH / 2)}`;
}

/** The sentence for a problem: what was wrong, and what to send instead. */
export function describeProblem(code: JsonProblemCode, path: string, limits: JsonLimits, detail = ""): string {
  const where = path === "" ? "the JSON" : path;
  switch (code) {
    case "too-deep":
      return `${where}: nested more than ${limits.maxDepth} levels deep; send flatter JSON`;
    case "too-long":
      return `${where}: longer than ${limits.maxLength} characters; send less`;
    case "too-many-values":
      return `${where}: more than ${limits.maxValues} values in all; send fewer`;
    case "forbidden-key":
      return `${where}: the key ${JSON.stringify(detail)} is not allowed (it names an object's prototype); rename it`;
    case "cycle":
      return `${where}: refers to itself; JSON cannot hold a cycle`;
    case "not-json":
      return `${where}: ${detail}`;
  }
}
