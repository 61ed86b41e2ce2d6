/**
 * The session slots of one node's MCP endpoint, shared per principal (API token). Each token may
 * hold at most `maxSessionsPerPrincipal` sessions (default a quarter of the node's, at least
 * one): at its cap, its own least recently used session that is not serving a request is
 * closed for the new one (a client that forgot its sessions frees them itself), and when every
 * one of them is busy the token is refused with 429. When the whole node is full, the token
 * holding the most sessions gives up its least recently used idle one, provided it holds more
 * than the newcomer; otherwise the node answers 503. So no token can take every slot, and
 * another token still gets a session.
 */
import { ClawhiveError } from "../errors.js";

export interface SlotLimits {
  /** Sessions open at once on this node; default 64. */
  maxSessions?: number;
  /** Sessions one token may hold at once; default a quarter of `maxSessions` (at least 1). */
  maxSessionsPerPrincipal?: number;
}

export interface SlotHooks {
  /** The session serves a request now (a call in flight, one waiting for a person): it is never evicted. */
  busy: (id: string) => boolean;
  /** Closes a session (its Run ends) to free its slot. */
  end: (id: string) => Promise<void>;
}

/** A slot held while a session opens: claimed by its id once initialized, or released. */
export interface Reservation {
  claim(id: string): void;
  release(): void;
}

interface Held {
  owner: string;
  lastUsed: number;
}

export class SessionSlots {
  readonly #max: number;
  readonly #perPrincipal: number;
  readonly #hooks: SlotHooks;
  readonly #held = new Map<string, Held>();
  /** Slots reserved by sessions still opening, by owner. */
  readonly #opening = new Map<string, number>();

  constructor(limits: SlotLimits, hooks: SlotHooks) {
    this.#max = limits.maxSessions ?? 64;
    this.#perPrincipal = limits.maxSessionsPerPrincipal ?? Math.max(1, Math.floor(this.#max / 4));
    this.#hooks = hooks;
  }

  owner(id: string): string | undefined {
    return this.#held.get(id)?.owner;
  }

  touch(id: string): void {
    const held = this.#held.get(id);
    if (held) held.lastUsed = Date.now();
  }

  free(id: string): void {
    this.#held.delete(id);
  }

  /** Sessions unused since `before` (epoch ms) that serve no request. */
  idleSince(before: number): string[] {
    return [...this.#held].filter(([id, held]) => held.lastUsed < before && !this.#hooks.busy(id)).map(([id]) => id);
  }

  /** A slot for a new session of `owner`, freeing one as the rules above say; throws when none can be had. */
  async reserve(owner: string): Promise<Reservation> {
    if (this.#count(owner) >= this.#perPrincipal) {
      const victim = this.#oldestIdle(owner);
      if (victim === undefined) {
        throw new ClawhiveError("mcp_principal_sessions_full", `token ${owner} already holds ${this.#perPrincipal} MCP sessions on this node, its share, each serving a request; close one (DELETE /mcp) or retry later`, { status: 429 });
      }
      await this.#hooks.end(victim);
    }
    if (this.#total() >= this.#max) {
      const victim = this.#fromTheLargest(owner);
      if (victim === undefined) throw new ClawhiveError("mcp_sessions_full", "too many MCP sessions are open on this node; close one (DELETE /mcp) or retry later", { status: 503 });
      await this.#hooks.end(victim);
    }
    this.#opening.set(owner, (this.#opening.get(owner) ?? 0) + 1);
    let done = false;
    const settle = () => {
      if (done) return false;
      done = true;
      const left = (this.#opening.get(owner) ?? 1) - 1;
      if (left > 0) this.#opening.set(owner, left);
      else this.#opening.delete(owner);
      return true;
    };
    return {
      claim: (id) => void (settle() && this.#held.set(id, { owner, lastUsed: Date.now() })),
      release: () => void settle(),
    };
  }

  #count(owner: string): number {
    let n = this.#opening.get(owner) ?? 0;
    for (const held of this.#held.values()) if (held.owner === owner) n++;
    return n;
  }

  #total(): number {
    let n = this.#held.size;
    for (const opening of this.#opening.values()) n += opening;
    return n;
  }

  #oldestIdle(owner: string): string | undefined {
    let oldest: [string, Held] | undefined;
    for (const entry of this.#held) {
      if (entry[1].owner !== owner || this.#hooks.busy(entry[0])) continue;
      if (oldest === undefined || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
    }
    return oldest?.[0];
  }

  /** The oldest idle session of the token holding the most, when it holds more than `newcomer` will. */
  #fromTheLargest(newcomer: string): string | undefined {
    const counts = new Map<string, number>();
    for (const held of this.#held.values()) counts.set(held.owner, (counts.get(held.owner) ?? 0) + 1);
    const mine = this.#count(newcomer) + 1;
    const owners = [...counts].filter(([owner, n]) => owner !== newcomer && n > mine).sort((a, b) => b[1] - a[1]);
    for (const [owner] of owners) {
      const victim = this.#oldestIdle(owner);
      if (victim !== undefined) return victim;
    }
    return undefined;
  }
}
