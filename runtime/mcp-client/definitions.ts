/**
 * A server's tool definitions as pinned: each tool's name as clawhive offers it, the server's
 * own name for it, what the model is told (title, description, input and output schemas) and
 * a hash of all of that. A definition whose hash differs from its pin is a changed tool (the
 * "rug pull": a tool approved as harmless that later describes itself otherwise).
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../audit/index.js";
import { checkJsonValue, compileToolSchema, MCP_SCHEMA_DIALECT, TOOL_SCHEMA_JSON, ToolSchemaError } from "../json/index.js";
import type { McpServerSpec } from "./spec.js";

export interface McpToolDefinition {
  /** As clawhive offers it (`<server>.<name>`): lowercase letters, digits, `_`. */
  name: string;
  /** As the server names it (what `tools/call` is sent). */
  mcpName: string;
  title?: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  /** sha256 of the canonical JSON of everything above but `name`. */
  hash: string;
}

/** What a server's tools/list said, before it is pinned. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** Tools of one server, at most. */
export const MAX_TOOLS = 256;
/** Description of one tool, in characters, at most. */
export const MAX_DESCRIPTION = 8192;
/** All definitions of one server, as canonical JSON, at most (a pin is one store row). */
export const MAX_DEFINITIONS_BYTES = 512 * 1024;

export interface DefinitionSet {
  tools: McpToolDefinition[];
  /** Tools the server lists that cannot be offered, and why (a bad name, a clash, a bad schema). */
  skipped: Array<{ mcpName: string; reason: string }>;
}

/** The clawhive name of an MCP tool name, or undefined when it has none. */
export function toolNameOf(mcpName: string): string | undefined {
  const name = mcpName.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  return /^[a-z][a-z0-9_]{0,62}$/.test(name) ? name : undefined;
}

export function definitionHash(tool: Omit<McpToolDefinition, "hash" | "name">): string {
  const { mcpName, title, description, inputSchema, outputSchema } = tool;
  return createHash("sha256").update(canonicalJson({ mcpName, title: title ?? null, description, inputSchema, outputSchema: outputSchema ?? null })).digest("hex");
}

/** Definitions from a tools/list answer; throws when the server lists more than the bounds allow. */
export function definitionsOf(listed: readonly ListedTool[]): DefinitionSet {
  if (listed.length > MAX_TOOLS) throw new Error(`the server lists ${listed.length} tools, more than ${MAX_TOOLS}`);
  const skipped: DefinitionSet["skipped"] = [];
  const byName = new Map<string, McpToolDefinition[]>();
  for (const tool of listed) {
    const name = toolNameOf(tool.name);
    if (name === undefined) {
      skipped.push({ mcpName: tool.name.slice(0, 100), reason: "its name has no form clawhive can offer (a letter first, at most 63 characters)" });
      continue;
    }
    const problem = checkJsonValue(tool.inputSchema, TOOL_SCHEMA_JSON, { at: "inputSchema" }) ?? (tool.outputSchema === undefined ? undefined : checkJsonValue(tool.outputSchema, TOOL_SCHEMA_JSON, { at: "outputSchema" }));
    if (problem) {
      skipped.push({ mcpName: tool.name, reason: problem.message });
      continue;
    }
    const uncallable = schemaProblem(tool);
    if (uncallable !== undefined) {
      skipped.push({ mcpName: tool.name, reason: `it cannot be called: ${uncallable}` });
      continue;
    }
    const base = {
      mcpName: tool.name,
      ...(tool.title === undefined ? {} : { title: String(tool.title).slice(0, 200) }),
      description: (tool.description ?? "").slice(0, MAX_DESCRIPTION),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    };
    byName.set(name, [...(byName.get(name) ?? []), { name, ...base, hash: definitionHash(base) }]);
  }
  const tools: McpToolDefinition[] = [];
  for (const [name, same] of byName) {
    if (same.length === 1) tools.push(same[0]!);
    else for (const t of same) skipped.push({ mcpName: t.mcpName, reason: `its name becomes ${name}, as another tool's does` });
  }
  tools.sort((a, b) => a.name.localeCompare(b.name));
  if (canonicalJson(tools).length > MAX_DEFINITIONS_BYTES) throw new Error(`the server's tool definitions are over ${MAX_DEFINITIONS_BYTES} bytes`);
  return { tools, skipped };
}

/**
 * Why a tool's schemas cannot be used, or `undefined`: each is compiled now, in the dialect its
 * `$schema` names (2020-12 when it names none, as MCP says), and checked against that dialect's
 * meta-schema — a tool whose input could never be validated (or whose every structured result
 * would be refused) is named at review, not accepted to fail on every call.
 */
function schemaProblem(tool: ListedTool): string | undefined {
  const schemas: Array<["input" | "output", unknown]> = [["input", tool.inputSchema], ...(tool.outputSchema === undefined ? [] : [["output", tool.outputSchema] as ["output", unknown]])];
  for (const [at, schema] of schemas) {
    try {
      compileToolSchema(schema, { tool: tool.name.slice(0, 100), dialect: MCP_SCHEMA_DIALECT, at });
    } catch (error) {
      if (!(error instanceof ToolSchemaError)) throw error;
      return error.message.replace(/^tool [^:]*: /, "");
    }
  }
  return undefined;
}

/** Which program or endpoint a pin is for: a different one is a different server, reviewed anew. */
export function specHash(spec: McpServerSpec): string {
  return createHash("sha256").update(canonicalJson({ command: spec.command ?? null, args: spec.args ?? [], url: spec.url ?? null })).digest("hex");
}

export interface DefinitionDiff {
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: string[];
  /** One line per change, `+` new, `-` gone, `~` changed; empty when nothing changed. */
  lines: string[];
  /** sha256 over the definitions being reviewed: an accept names it, so nothing else is accepted. */
  hash: string;
}

/** How `current` differs from `pinned` (none pinned: every tool is new). */
export function definitionDiff(pinned: readonly McpToolDefinition[] | undefined, current: readonly McpToolDefinition[]): DefinitionDiff {
  const before = new Map((pinned ?? []).map((t) => [t.name, t]));
  const diff: DefinitionDiff = { added: [], removed: [], changed: [], unchanged: [], lines: [], hash: setHash(current) };
  for (const tool of current) {
    const old = before.get(tool.name);
    if (old === undefined) {
      diff.added.push(tool.name);
      diff.lines.push(`+ tool ${tool.name}: ${oneLine(tool.description)}`);
    } else if (old.hash !== tool.hash) {
      diff.changed.push(tool.name);
      diff.lines.push(...changeLines(old, tool));
    } else diff.unchanged.push(tool.name);
  }
  for (const name of before.keys()) {
    if (!current.some((t) => t.name === name)) {
      diff.removed.push(name);
      diff.lines.push(`- tool ${name}`);
    }
  }
  return diff;
}

export function setHash(tools: readonly McpToolDefinition[]): string {
  return createHash("sha256").update(tools.map((t) => `${t.name}:${t.hash}`).join("\n")).digest("hex");
}

function changeLines(old: McpToolDefinition, now: McpToolDefinition): string[] {
  const lines: string[] = [];
  if (old.mcpName !== now.mcpName) lines.push(`~ tool ${now.name}: server name ${old.mcpName} → ${now.mcpName}`);
  if ((old.title ?? "") !== (now.title ?? "")) lines.push(`~ tool ${now.name}: title ${JSON.stringify(old.title ?? "")} → ${JSON.stringify(now.title ?? "")}`);
  if (old.description !== now.description) lines.push(`~ tool ${now.name}: description ${JSON.stringify(oneLine(old.description))} → ${JSON.stringify(oneLine(now.description))}`);
  if (canonicalJson(old.inputSchema) !== canonicalJson(now.inputSchema)) lines.push(`~ tool ${now.name}: input schema ${oneLine(canonicalJson(old.inputSchema))} → ${oneLine(canonicalJson(now.inputSchema))}`);
  if (canonicalJson(old.outputSchema ?? null) !== canonicalJson(now.outputSchema ?? null)) lines.push(`~ tool ${now.name}: output schema changed`);
  return lines.length > 0 ? lines : [`~ tool ${now.name}: definition changed`];
}

/** Control characters shown escaped, long text cut: a description is the server's to write. */
function oneLine(text: string): string {
  const flat = JSON.stringify(text).slice(1, -1);
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
