/** What `clawhive run` (and `chat`) read from their flags: planned ToolCalls and a task's grants. */
import { InvalidInputError } from "../errors.js";
import { parseArgument } from "../json/bounded.js";
import { CLIENT_JSON } from "../json/limits.js";
import type { PlannedCall } from "../runs/records.js";
import { inert } from "./render.js";

/** `TOOL=JSON` (or `TOOL` alone, input `{}`). The tool name has no `=`, so the first one splits. */
export function parseCallFlag(text: string): PlannedCall {
  const at = text.indexOf("=");
  const name = at < 0 ? text : text.slice(0, at);
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new InvalidInputError(`--call ${inert(text, { newlines: false })}: expected TOOL=JSON, e.g. files.read_file='{"path":"/w/a.txt"}'`, { field: "call" });
  if (at < 0) return { name, input: {} };
  return { name, input: parseArgument(text.slice(at + 1), CLIENT_JSON, { at: `--call ${name}`, field: "call", malformed: `--call ${name}: the input is not valid JSON` }) };
}

export function parseGrants(text: string): Record<string, unknown> {
  const value = parseArgument(text, CLIENT_JSON, { at: "--grants", field: "grants" });
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InvalidInputError('--grants: expected a JSON object of capabilities, e.g. {"log":{}}', { field: "grants" });
  return value as Record<string, unknown>;
}
