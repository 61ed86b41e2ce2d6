import type { Risk } from "../manifest.js";
import type { InstalledTool } from "./registry.js";

/** What a plugin may do: the part of an install an upgrade is compared on. */
export interface PermissionView {
  publisher: string;
  format: string;
  capabilities: readonly string[];
  tools: ReadonlyArray<Pick<InstalledTool, "name" | "capabilities" | "risk">>;
}

export interface PermissionDiff {
  /** True when the new version may do anything the old one could not. */
  widening: boolean;
  /** One line per change, `+` widening, `-` narrowing, `~` other; empty when nothing changed. */
  lines: string[];
}

const RANK: Record<Risk, number> = { safe: 0, guarded: 1, unsafe: 2 };

/**
 * How `next` differs from `current` in what it may do. Widening: a new capability (plugin or
 * tool), a new tool, a tool's risk lowered (fewer approvals), another publisher or format.
 */
export function permissionDiff(current: PermissionView, next: PermissionView): PermissionDiff {
  const lines: string[] = [];
  let widening = false;
  const widen = (line: string) => {
    widening = true;
    lines.push(`+ ${line}`);
  };
  if (current.publisher !== next.publisher) widen(`publisher: ${current.publisher} → ${next.publisher}`);
  if (current.format !== next.format) widen(`format: ${current.format} → ${next.format}`);
  for (const c of next.capabilities) if (!current.capabilities.includes(c)) widen(`capability ${c}`);
  for (const c of current.capabilities) if (!next.capabilities.includes(c)) lines.push(`- capability ${c}`);
  const before = new Map(current.tools.map((t) => [t.name, t]));
  const after = new Map(next.tools.map((t) => [t.name, t]));
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old) {
      widen(`tool ${name} (${tool.risk}; ${tool.capabilities.join(", ") || "no capabilities"})`);
      continue;
    }
    for (const c of tool.capabilities) if (!old.capabilities.includes(c)) widen(`tool ${name}: capability ${c}`);
    for (const c of old.capabilities) if (!tool.capabilities.includes(c)) lines.push(`- tool ${name}: capability ${c}`);
    if (RANK[tool.risk] < RANK[old.risk]) widen(`tool ${name}: risk lowered ${old.risk} → ${tool.risk}`);
    else if (RANK[tool.risk] > RANK[old.risk]) lines.push(`- tool ${name}: risk raised ${old.risk} → ${tool.risk}`);
  }
  for (const name of before.keys()) if (!after.has(name)) lines.push(`- tool ${name}`);
  return { widening, lines };
}
