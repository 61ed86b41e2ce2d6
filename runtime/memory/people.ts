/**
 * Memory as people reach it (API and CLI), beside what runs reach through the host proxy: a
 * person searches all of an agent's memory (its sub-agents' partitions included), writes into
 * the agent's own partition with source `person`, and forgets an episode. Scopes are the proxy's
 * own (`agent`, `user`, `project/<name>`), canonicalised by the same function.
 */
import { canonicalScope, SHARED_MEMORY_OWNER, type MemoryScope } from "../../host-proxies/memory/scope.js";
import { HostProxyError } from "../../host-proxies/types.js";
import { InvalidInputError } from "../errors.js";
import type { MemoryStore } from "./memory-store.js";
import type { MemoryHit } from "./types.js";

/** Most hits a person's search returns. */
export const MAX_PERSON_K = 100;
/** Largest episode a person writes, in UTF-8 bytes (as through the proxy). */
export const MAX_PERSON_EPISODE_BYTES = 32 * 1024;

/** `raw` as a canonical scope; a bad spelling is an InvalidInputError naming `scope`. */
export function personScope(raw: string | undefined): MemoryScope {
  try {
    return canonicalScope("scope", raw);
  } catch (error) {
    if (error instanceof HostProxyError) {
      throw new InvalidInputError(`scope: ${JSON.stringify(raw)} is not agent, user or project/<name> (name: lowercase letters, digits, '_' or '-', at most 64)`, { field: "scope" });
    }
    throw error;
  }
}

/** Whose episodes a scope names: the agent's own, or the shared owner's. */
function ownerOf(agent: string, scope: MemoryScope): string {
  return scope === "agent" ? agent : SHARED_MEMORY_OWNER;
}

export async function searchAsPerson(memory: MemoryStore, agent: string, options: { query: string; k?: number | undefined; scope?: string | undefined }): Promise<MemoryHit[]> {
  const scope = personScope(options.scope);
  if (options.query.trim() === "") throw new InvalidInputError("q: expected the words to search for", { field: "q" });
  const k = options.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > MAX_PERSON_K) throw new InvalidInputError(`k: ${k} must be a whole number from 1 to ${MAX_PERSON_K}`, { field: "k" });
  const owner = ownerOf(agent, scope);
  const partitions = scope === "agent" ? await memory.partitions(agent) : [scope];
  return memory.search(owner, options.query, { k, partitions, mode: memory.hasEmbedder ? "hybrid" : "keyword" });
}

/** Writes a person's note into the agent's own partition (scope `agent`) or the shared scope. */
export async function writeAsPerson(memory: MemoryStore, agent: string, options: { text: string; title?: string | undefined; scope?: string | undefined }): Promise<string> {
  const scope = personScope(options.scope);
  if (options.text.trim() === "") throw new InvalidInputError("text: must not be empty", { field: "text" });
  const bytes = Buffer.byteLength(options.text, "utf8");
  if (bytes > MAX_PERSON_EPISODE_BYTES) throw new InvalidInputError(`text: ${bytes} bytes is over the ${MAX_PERSON_EPISODE_BYTES}-byte cap of one episode`, { field: "text" });
  const title = options.title;
  if (title !== undefined && (title.trim() === "" || title.length > 200)) throw new InvalidInputError("title: expected 1 to 200 characters", { field: "title" });
  const written = await memory.write(ownerOf(agent, scope), { text: options.text, source: "person", ...(title === undefined ? {} : { title }) }, { partition: scope === "agent" ? agent : scope });
  return written.id;
}

/** Forgets an episode of the agent (scope `agent`) or of the shared scope; false when there was none. */
export function forgetAsPerson(memory: MemoryStore, agent: string, options: { episodeId: string; scope?: string | undefined }): Promise<boolean> {
  return memory.forget(ownerOf(agent, personScope(options.scope)), options.episodeId);
}
