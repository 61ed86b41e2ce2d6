/**
 * `clawhive:host/memory`: search and write episodes of the runtime's MemoryStore. Where a scope
 * lives is fixed when the runtime binds the instance — the `agent` scope's owner (the root agent
 * of the run's chain), the partition the run writes and the partitions it reads — so a call
 * names a scope and never an owner or a partition. The policy has already decided the scope
 * (every layer) before a call reaches this proxy.
 */
import { InvalidInputError } from "../../runtime/errors.js";
import type { MemoryHit, MemoryStore, SearchMode } from "../../runtime/memory/index.js";
import { MemoryError } from "../../runtime/memory/errors.js";
import { HostProxyError } from "../types.js";
import { canonicalScope, SHARED_MEMORY_OWNER, type MemoryScope } from "./scope.js";

export { SHARED_MEMORY_OWNER };


/** Most hits one search returns; the default is 5. */
export const MAX_MEMORY_K = 20;
/** Longest query, in characters. */
export const MAX_QUERY_CHARS = 2000;
/** Largest episode written through the proxy, in UTF-8 bytes (the MEMORY.md cap). */
export const MAX_EPISODE_BYTES = 32 * 1024;
export const MAX_TITLE_CHARS = 200;

/** The `agent` scope of one run: fixed per instance from the run's chain of agents. */
export interface AgentMemoryBinding {
  /** The root agent of the run's chain: whose memory it is. */
  owner: string;
  /** The chain's agent names joined by `/`: the partition the run writes. */
  partition: string;
  /** Its own partition and every ancestor's (prefixes of the chain). */
  readable: readonly string[];
}

export interface MemoryProxyOptions {
  /** The runtime's store, opened on first use. */
  memory: () => Promise<MemoryStore>;
  agent: AgentMemoryBinding;
  /** Whether the run has received output of a tool other than memory's, or an untrusted hit: its writes are then untrusted. */
  tainted: () => Promise<boolean>;
  /** Records, durably, that the run has read an untrusted hit (called before the hits are returned). */
  markTainted: () => Promise<void>;
}

export interface MemorySearchOptions {
  scope?: string | undefined;
  k?: number | undefined;
}

export interface MemoryWriteOptions {
  title?: string | undefined;
  scope?: string | undefined;
}

/** A hit as the WIT `hit` record (jco's camelCase; `created-at` is a u64, so a bigint). */
export interface WireHit {
  episodeId: string;
  title: string;
  headingPath: string[];
  text: string;
  score: number;
  untrusted: boolean;
  source: string;
  partition: string;
  createdAt: bigint;
}

export interface MemoryProxy {
  search(query: string, options?: MemorySearchOptions): Promise<WireHit[]>;
  /** Returns the episode id. */
  write(text: string, options?: MemoryWriteOptions): Promise<string>;
}

/** Where a canonical scope is stored for a run bound to `agent`. */
export function scopeStorage(scope: MemoryScope, agent: AgentMemoryBinding): { owner: string; write: string; read: readonly string[] } {
  if (scope === "agent") return { owner: agent.owner, write: agent.partition, read: agent.readable };
  return { owner: SHARED_MEMORY_OWNER, write: scope, read: [scope] };
}

/** The `agent` binding of a run whose chain of agents is `chain` (root first). */
export function agentMemoryBinding(chain: readonly string[]): AgentMemoryBinding {
  if (chain.length === 0) throw new InvalidInputError("memory binding: the chain of agents is empty", { field: "chain" });
  return { owner: chain[0]!, partition: chain.join("/"), readable: chain.map((_, i) => chain.slice(0, i + 1).join("/")) };
}

export function createMemoryProxy(options: MemoryProxyOptions): MemoryProxy {
  return {
    search: (query, o = {}) =>
      guard("search", async () => {
        const scope = canonicalScope("search", o.scope);
        const k = o.k ?? 5;
        if (!Number.isInteger(k) || k < 1 || k > MAX_MEMORY_K) throw HostProxyError.invalidInput(`memory.search: k is ${k}; ask for 1 to ${MAX_MEMORY_K} hits`);
        if (typeof query !== "string" || query.trim() === "") throw HostProxyError.invalidInput("memory.search: query must not be empty");
        if (query.length > MAX_QUERY_CHARS) throw HostProxyError.invalidInput(`memory.search: query is longer than ${MAX_QUERY_CHARS} characters`);
        const where = scopeStorage(scope, options.agent);
        const memory = await options.memory();
        const mode: SearchMode = memory.hasEmbedder ? "hybrid" : "keyword";
        const hits = await memory.search(where.owner, query, { k, partitions: where.read, mode });
        // Recalling tool output and remembering it must not launder it into a trusted note.
        if (hits.some((h) => h.untrusted)) await options.markTainted();
        return hits.map(toWire);
      }),
    write: (text, o = {}) =>
      guard("write", async () => {
        const scope = canonicalScope("write", o.scope);
        if (typeof text !== "string" || text.trim() === "") throw HostProxyError.invalidInput("memory.write: text must not be empty");
        const bytes = Buffer.byteLength(text, "utf8");
        if (bytes > MAX_EPISODE_BYTES) throw HostProxyError.invalidInput(`memory.write: text is ${bytes} bytes; the limit is ${MAX_EPISODE_BYTES}`);
        const title = o.title;
        if (title !== undefined && (typeof title !== "string" || title.trim() === "" || title.length > MAX_TITLE_CHARS)) {
          throw HostProxyError.invalidInput(`memory.write: title must be 1 to ${MAX_TITLE_CHARS} characters`);
        }
        const where = scopeStorage(scope, options.agent);
        const memory = await options.memory();
        // Decided by the host, never the guest: a run that has read tool output may be repeating it.
        const untrusted = await options.tainted();
        const written = await memory.write(where.owner, { text, source: "model", ...(title === undefined ? {} : { title }) }, { partition: where.write, untrusted });
        return written.id;
      }),
  };
}

function toWire(hit: MemoryHit): WireHit {
  return {
    episodeId: hit.episodeId,
    title: hit.title,
    headingPath: hit.headingPath,
    text: hit.text,
    score: hit.score,
    untrusted: hit.untrusted,
    source: hit.source,
    partition: hit.partition,
    createdAt: BigInt(Math.max(0, Math.trunc(hit.createdAt))),
  };
}

/** Runs one call; whatever fails leaves as a `HostProxyError` (store details stay in `cause`). */
async function guard<T>(fn: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HostProxyError) throw error;
    if (error instanceof InvalidInputError) throw HostProxyError.invalidInput(`memory.${fn}: ${error.message}`);
    if (error instanceof MemoryError) throw HostProxyError.io(`memory.${fn}: ${error.code}; try again later`, error);
    throw HostProxyError.io(`memory.${fn}: the store failed; try again later`, error);
  }
}
