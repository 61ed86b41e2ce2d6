import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * What vouches for a node-local build: an HMAC under a key derived from the runtime's secret
 * key. The build cache is a folder any process of the node's user can write; a record in it
 * that only hashes its neighbours proves nothing, since whoever rewrites a file can rewrite its
 * hash too. A seal can be made only with the key, which lives beside the store, not in the cache.
 *
 * A seal without a key of its own (`CodeSeal.ephemeral`) holds a random key for the process:
 * builds it did not make (or verify by making again) are never trusted, and what it vouches for
 * is kept in memory, not written to the cache.
 */
export class CodeSeal {
  /** Names the key the seal files are made under (the secret key's id, never the key). */
  readonly id: string;
  /** Seals are written beside the build (false: kept in this process only). */
  readonly persistent: boolean;
  readonly #key: Buffer;
  readonly #memory = new Map<string, string>();

  private constructor(key: Buffer, id: string, persistent: boolean) {
    this.#key = key;
    this.id = id;
    this.persistent = persistent;
  }

  /** A seal under `key` (32 bytes derived from the secret key); `id` names it in file names. */
  static fromKey(key: Buffer, id: string): CodeSeal {
    if (key.length < 32) throw new RangeError("a code seal key has at least 32 bytes");
    if (!/^[0-9a-f]{8,64}$/.test(id)) throw new RangeError("a code seal id is 8 to 64 lowercase hex digits");
    return new CodeSeal(Buffer.from(key), id, true);
  }

  /** The seal of a runtime: its key derived from the secret key (never the key itself). */
  static fromSecrets(secrets: { deriveKey(label: string): Buffer; readonly keyId: string }): CodeSeal {
    return CodeSeal.fromKey(secrets.deriveKey("plugin code seal"), secrets.keyId);
  }

  /** A seal for a process without a secret key (build tools, tests, benchmarks). */
  static ephemeral(): CodeSeal {
    return new CodeSeal(randomBytes(32), randomBytes(8).toString("hex"), false);
  }

  /** This process's ephemeral seal: what every keyless caller in it shares (one build per plugin per process). */
  static forProcess(): CodeSeal {
    return (processSeal ??= CodeSeal.ephemeral());
  }

  /** The MAC of `text` for `purpose` (a record kind), in hex. */
  mac(purpose: string, text: string): string {
    return createHmac("sha256", this.#key).update(`${purpose}\0`).update(text).digest("hex");
  }

  /** True when `mac` is this seal's MAC of `text` for `purpose` (compared in constant time). */
  verify(purpose: string, text: string, mac: string): boolean {
    const expected = Buffer.from(this.mac(purpose, text), "hex");
    const given = Buffer.from(/^[0-9a-f]{64}$/.test(mac) ? mac : "", "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** For an ephemeral seal: what it vouched for in this process, by place. */
  remembered(place: string): string | undefined {
    return this.#memory.get(place);
  }

  remember(place: string, mac: string): void {
    this.#memory.set(place, mac);
  }
}

let processSeal: CodeSeal | undefined;

/** JSON with object keys sorted at every level: the text a seal is made over. */
export function canonicalText(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
