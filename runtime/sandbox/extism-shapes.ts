/**
 * The JSON an Extism plugin exchanges with clawhive (docs/extism.md), turned into the shapes a
 * component produces, so everything above the sandbox is format-agnostic. Pure functions.
 */
import type { Risk } from "../plugins/manifest.js";
import type { ToolDescriptor } from "./types.js";
import { GUEST_RESULT_JSON, TOOL_INPUT_JSON, parseBounded, type JsonLimits } from "../json/index.js";

/**
 * The describe document, bounded as any guest result: a schema within it is then held to
 * `TOOL_SCHEMA_JSON` where every plugin's schemas are, at install (`tool_schema_invalid`).
 */
const DESCRIBE_JSON: JsonLimits = GUEST_RESULT_JSON;
/** The input as the host checked it, read again only to wrap it; prototype keys were refused there. */
export const WRAPPED_INPUT_JSON: JsonLimits = { ...TOOL_INPUT_JSON, forbiddenKeys: undefined };
/** The `call` output envelope around the text result. */
const OUTPUT_JSON: JsonLimits = { ...GUEST_RESULT_JSON, maxDepth: GUEST_RESULT_JSON.maxDepth + 3 };

/** What plugin.json says about every tool of the plugin: the describe defaults. */
export interface ExtismToolDefaults {
  capabilities: readonly string[];
  risks: Readonly<Record<string, Risk>>;
}

/** A `clawhive:plugin/tools.tool-error`, in jco's `{tag, val}` shape. */
export type ToolErrorPayload =
  | { tag: "denied"; val: { capability: string; reason: string; message: string } }
  | { tag: "invalid-input" | "not-found" | "failed"; val: string };

export type CallOutcome = { ok: true; value: string } | { ok: false; error: ToolErrorPayload };

const failed = (val: string): { ok: false; error: ToolErrorPayload } => ({ ok: false, error: { tag: "failed", val } });

/**
 * `describe` output `{"tools":[{name, description, inputSchema, capabilities?}]}` (the
 * mcp.run servlet shape) → tool descriptors. Capabilities default to the manifest's; risk always
 * comes from plugin.json (a tool it does not declare gets `unsafe`, and install refuses it).
 */
export function parseDescribe(text: string, defaults: ExtismToolDefaults): ToolDescriptor[] {
  const root = parseJson(text, "describe", DESCRIBE_JSON);
  const tools = isObject(root) ? root.tools : undefined;
  if (!Array.isArray(tools)) throw new TypeError("describe: expected {\"tools\": [...]}");
  return tools.map((tool: unknown, i) => {
    const at = `describe: tools[${i}]`;
    if (!isObject(tool)) throw new TypeError(`${at}: expected an object`);
    const { name, description, inputSchema, capabilities } = tool;
    if (typeof name !== "string" || name.length === 0) throw new TypeError(`${at}.name: expected a string`);
    if (typeof description !== "string") throw new TypeError(`${at}.description: expected a string`);
    if (!isObject(inputSchema)) throw new TypeError(`${at}.inputSchema: expected a JSON Schema object`);
    if (capabilities !== undefined && !(Array.isArray(capabilities) && capabilities.every((c) => typeof c === "string"))) {
      throw new TypeError(`${at}.capabilities: expected a list of strings`);
    }
    return {
      name,
      description,
      inputSchema: JSON.stringify(inputSchema),
      capabilities: capabilities ?? [...defaults.capabilities],
      risk: Object.hasOwn(defaults.risks, name) ? defaults.risks[name]! : "unsafe",
    };
  });
}

/** The `call` input: `{"params":{"name", "arguments"}}` (an MCP tools/call request's params). */
export function callInput(name: string, input: string): string | undefined {
  if (input === "") return JSON.stringify({ params: { name, arguments: {} } });
  const parsed = parseBounded(input, WRAPPED_INPUT_JSON);
  return parsed.ok ? JSON.stringify({ params: { name, arguments: parsed.value } }) : undefined;
}

/**
 * The `call` output `{"content":[{"type":"text","text"}], "isError"?}` → the result text (text
 * items joined), or a tool error: `isError` → `failed` with the text, unless the plugin also
 * gave a well-formed `toolError` (clawhive's extension, e.g. to pass a host denial on).
 */
export function parseCallOutput(text: string | undefined): CallOutcome {
  if (text === undefined) return failed("the plugin returned no output");
  const parsed = parseBounded(text, OUTPUT_JSON, { at: "output" });
  if (!parsed.ok) {
    return failed(parsed.problem.code === "not-json" ? "the plugin's output is not JSON (expected {\"content\": [...]})" : `the plugin's output was refused: ${parsed.problem.message}`);
  }
  const root = parsed.value;
  if (!isObject(root) || !Array.isArray(root.content)) return failed("the plugin's output has no content list (expected {\"content\": [...]})");
  const texts = root.content.filter((c): c is { type: "text"; text: string } => isObject(c) && c.type === "text" && typeof c.text === "string").map((c) => c.text);
  const joined = texts.join("\n");
  if (root.isError === true) return { ok: false, error: toolError(root.toolError) ?? { tag: "failed", val: joined || "the tool failed" } };
  // An MCP result may carry its answer only as structured content (MCP 2025-06-18 `structuredContent`).
  if (texts.length === 0 && isObject(root.structuredContent)) return { ok: true, value: JSON.stringify(root.structuredContent) };
  if (texts.length === 0) return failed("the plugin's output has no text content");
  return { ok: true, value: joined };
}

function toolError(value: unknown): ToolErrorPayload | undefined {
  if (!isObject(value)) return undefined;
  const { tag, val } = value;
  if (tag === "denied") {
    if (isObject(val) && typeof val.capability === "string" && typeof val.reason === "string" && typeof val.message === "string") {
      return { tag, val: { capability: val.capability, reason: val.reason, message: val.message } };
    }
    return undefined;
  }
  if ((tag === "invalid-input" || tag === "not-found" || tag === "failed") && typeof val === "string") return { tag, val };
  return undefined;
}

/**
 * Host-call parameters from JSON to the values jco would pass: `{"$bytes": base64}` →
 * Uint8Array, `null` → undefined (an option's none), numbers at `u64` paths → bigint.
 */
export function argsFromJson(args: unknown[], u64Paths: ReadonlyArray<ReadonlyArray<number | string>> = []): unknown[] {
  const values = args.map(fromJson);
  for (const path of u64Paths) {
    let parent: unknown = values;
    for (const key of path.slice(0, -1)) parent = isObject(parent) || Array.isArray(parent) ? (parent as Record<string | number, unknown>)[key] : undefined;
    const last = path[path.length - 1]!;
    if (!(isObject(parent) || Array.isArray(parent))) continue;
    const holder = parent as Record<string | number, unknown>;
    const value = holder[last];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) holder[last] = BigInt(value);
  }
  return values;
}

function fromJson(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.map(fromJson);
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$bytes" && typeof value.$bytes === "string") return new Uint8Array(Buffer.from(value.$bytes, "base64"));
    // fromEntries defines own properties: a `__proto__` key from guest JSON stays data.
    return Object.fromEntries(keys.map((k) => [k, fromJson(value[k])]));
  }
  return value;
}

/** A host-call result (or error) as JSON: bytes → `{"$bytes"}`, bigint → number, none → null. */
export function toJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  return value;
}

function parseJson(text: string, what: string, limits: JsonLimits): unknown {
  const parsed = parseBounded(text, limits, { at: what });
  if (parsed.ok) return parsed.value;
  throw new TypeError(parsed.problem.code === "not-json" ? `${what}: the output is not JSON` : parsed.problem.message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
