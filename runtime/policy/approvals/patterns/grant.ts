import { InvalidInputError } from "../../../errors.js";
import type { AgentManifest } from "../../../agents/index.js";
import { canonicalGlob, kindOf } from "./glob.js";
import type { PatternSpec } from "./choices.js";

const FIELD = /^[A-Za-z_][A-Za-z0-9_-]{0,63}(\.[A-Za-z_][A-Za-z0-9_-]{0,63}){0,7}$/;

/**
 * Refuses a pattern that reaches outside what the agent may do at all. The pattern is still
 * checked in conjunction with the grant on every call; this only keeps a person from approving
 * something they would believe covered when the grant never allowed it. `field` prefixes the
 * error's field (`body.pattern`).
 */
export function checkWithinGrant(agent: AgentManifest, pattern: PatternSpec, field: string): void {
  const [plugin, tool] = pattern.tool.split(".");
  const ref = agent.plugins.find((p) => p.name === plugin);
  const offered = ref !== undefined ? ref.tools === undefined || ref.tools.includes(tool ?? "") : Object.hasOwn(agent.mcp_servers, plugin ?? "");
  if (!offered) {
    throw new InvalidInputError(`${field}.tool: agent ${agent.name} is not offered ${pattern.tool}; a pattern cannot cover a tool outside its grant`, { field: `${field}.tool` });
  }
  const mounts = guestMounts(agent);
  for (const [path, raw] of Object.entries(pattern.arguments)) {
    const where = `${field}.arguments.${path}`;
    if (!FIELD.test(path)) throw new InvalidInputError(`${where}: expected a field path like to or message.to`, { field: where });
    if (typeof raw !== "string" || raw.trim() === "" || raw.length > 1000) throw new InvalidInputError(`${where}: expected a glob of 1 to 1000 characters`, { field: where });
    if (/[^\x20-\x7e]/.test(raw)) throw new InvalidInputError(`${where}: a glob is plain ASCII (lookalike characters are refused)`, { field: where });
    const tokens = raw.trim().split(/\s+/);
    if (tokens.length > 1 && tokens[0]!.includes("*")) throw new InvalidInputError(`${where}: an argv pattern names its program exactly (its first word has no *)`, { field: where });
    for (const glob of tokens) checkGlob(glob, mounts, where);
  }
}

function checkGlob(raw: string, mounts: readonly string[], where: string): void {
  const glob = canonicalGlob(raw);
  const kind = kindOf(glob);
  if (kind === "path") {
    if (/(^|\/)\.\.?(\/|$)|%|\\/.test(glob)) throw new InvalidInputError(`${where}: ${glob} must be a canonical path (no . or .. segments, escapes or backslashes)`, { field: where });
    if (!glob.startsWith("/")) {
      // Relative: it resolves against the call's cwd or the first mount, so it stays inside them
      // as long as it is canonical (what `canonicalRelative` accepts, with `*` for words).
      if (mounts.length === 0 || /^[-~]/.test(glob) || glob.split("/").some((s) => !/^[A-Za-z0-9._@+*-]+$/.test(s))) {
        throw new InvalidInputError(`${where}: ${glob} must be a plain relative path (letters, digits, ._@+-, no . or .. segments) under one of the agent's mounts`, { field: where });
      }
      return;
    }
    const fixed = glob.slice(0, glob.indexOf("*") === -1 ? glob.length : glob.indexOf("*"));
    const dir = fixed.slice(0, fixed.lastIndexOf("/") + 1);
    const inside = mounts.some((m) => dir === `${m}/` || dir.startsWith(`${m}/`) || (glob === m));
    if (!inside) {
      throw new InvalidInputError(
        `${where}: ${glob} reaches outside the agent's mounts (${mounts.length === 0 ? "it has none" : mounts.join(", ")}); narrow it to a folder under one of them`,
        { field: where },
      );
    }
  } else if (kind === "email") {
    const domain = glob.slice(glob.lastIndexOf("@") + 1);
    if (domain.includes("*") || !domain.includes(".")) throw new InvalidInputError(`${where}: ${glob} must name its mail domain exactly (e.g. *@corp.example)`, { field: where });
  } else if (kind === "url") {
    const host = /^[a-z][a-z0-9+.-]*:\/\/([^/]*)/.exec(glob)?.[1] ?? "";
    if (host === "" || host.includes("*") || host.endsWith(".")) throw new InvalidInputError(`${where}: ${glob} must name its host exactly`, { field: where });
  }
}

/** Guest paths of every mount the agent's grants name (fs.*, shell.exec). */
function guestMounts(agent: AgentManifest): string[] {
  const out: string[] = [];
  for (const grant of Object.values(agent.grants as Record<string, unknown>)) {
    const mounts = (grant as { mounts?: unknown } | null)?.mounts;
    if (!Array.isArray(mounts)) continue;
    for (const m of mounts) if (typeof (m as { guest?: unknown }).guest === "string") out.push(((m as { guest: string }).guest).replace(/\/+$/, ""));
  }
  return out;
}
