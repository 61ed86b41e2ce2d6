/**
 * Memory scopes as a guest names them, checked once at the edge: the policy decides on the
 * canonical scope and the proxy maps that same value to storage. Only three spellings exist —
 * `agent`, `user`, `project/<name>` — so no `..`, extra `/`, case or Unicode variant can name a
 * partition the grant did not mean.
 */
import { HostProxyError } from "../types.js";

/** What a scope is stored as; a name (like an agent's) so a project cannot hide a path. */
const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The longest scope: `project/` and a 64-character name. */
/**
 * The owner of shared scopes (`user`, `project/<name>`). Agent names match
 * `^[a-z0-9][a-z0-9_-]{0,63}$`, so no agent can ever be this owner and read shared memory as its own.
 */
export const SHARED_MEMORY_OWNER = "@shared";

export const MAX_SCOPE_LENGTH = 72;

export type MemoryScope = "agent" | "user" | `project/${string}`;

/** `raw` (undefined: `agent`) as a canonical scope, or `invalid-input` naming the rule. */
export function canonicalScope(fn: string, raw: unknown): MemoryScope {
  if (raw === undefined) return "agent";
  if (typeof raw !== "string") throw HostProxyError.invalidInput(`memory.${fn}: scope must be a string or none`);
  if (raw.length > MAX_SCOPE_LENGTH) throw HostProxyError.invalidInput(`memory.${fn}: scope is longer than ${MAX_SCOPE_LENGTH} characters`);
  if (raw === "agent" || raw === "user") return raw;
  const slash = raw.indexOf("/");
  if (slash !== -1 && raw.slice(0, slash) === "project" && PROJECT_NAME.test(raw.slice(slash + 1))) return raw as MemoryScope;
  throw HostProxyError.invalidInput(
    `memory.${fn}: scope ${JSON.stringify(raw)} is not agent, user or project/<name> (name: lowercase letters, digits, '_' or '-', at most 64)`,
  );
}
