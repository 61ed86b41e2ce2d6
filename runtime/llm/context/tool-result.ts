/**
 * A tool's output as text for the model. A table — an array of flat objects sharing one set of
 * keys, at the top or as a field of a flat object — is encoded as TOON (@toon-format/toon),
 * which writes the keys once as a header and each row as one line of values; on such data it
 * takes well under JSON's token count (bench/llm.ts: toon_token_ratio). Anything else is compact
 * JSON, which models read best when the structure is irregular. Strings pass through.
 */
import { encode as toToon } from "@toon-format/toon";

export interface EncodedToolResult {
  format: "toon" | "json" | "text";
  text: string;
}

type Primitive = string | number | boolean | null;

function isPrimitive(v: unknown): v is Primitive {
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** An array of at least two flat objects with the same keys in the same order. */
export function isUniformTable(value: unknown): boolean {
  if (!Array.isArray(value) || value.length < 2) return false;
  const first = value[0];
  if (!isPlainObject(first)) return false;
  const keys = Object.keys(first).join("\u0000");
  if (keys === "") return false;
  return value.every((row) => isPlainObject(row) && Object.keys(row).join("\u0000") === keys && Object.values(row).every(isPrimitive));
}

function hasTable(value: unknown): boolean {
  if (isUniformTable(value)) return true;
  if (!isPlainObject(value)) return false;
  const fields = Object.values(value);
  return fields.some(isUniformTable) && fields.every((f) => isPrimitive(f) || isUniformTable(f));
}

export function encodeToolResult(value: unknown): EncodedToolResult {
  if (typeof value === "string") return { format: "text", text: value };
  if (value === undefined) return { format: "text", text: "" };
  if (hasTable(value)) return { format: "toon", text: toToon(value) };
  return { format: "json", text: JSON.stringify(value) ?? "null" };
}
