/**
 * `clawhive:host/kv`: a small key-value store for one namespace, in the runtime's libSQL store.
 * The namespace is fixed when the runtime creates the proxy (`<agent>/<plugin>/<grant
 * namespace>`): a call names keys, never namespaces, so two agents or two plugins never reach
 * each other's data. The quota is decided by the database inside the write itself, so parallel
 * sets — from one instance, two instances, or two runtime nodes on one store — cannot together
 * pass it.
 */
import { InvalidInputError } from "../../runtime/errors.js";
import { StoreError } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { HostProxyError } from "../types.js";
import { checkKvKey, checkKvPrefix, MAX_KV_KEY_BYTES } from "./key.js";
import { KV_DENIAL_REASONS, kvDenied } from "./reasons.js";
import { DELETE_SQL, GET_SQL, LIST_SQL, SET_SQL, USAGE_SQL } from "./statements.js";

/** The largest value stored by default: 1 MiB, or the quota if that is smaller. */
export const DEFAULT_MAX_VALUE_BYTES = 1_048_576;

export interface KvProxyOptions {
  /** Set by the runtime, never by a guest: `<agent>/<plugin>/<grant namespace>`. */
  namespace: string;
  /** Most key plus value bytes the namespace may hold. */
  quotaBytes: number;
  /** Longest key in UTF-8 bytes; default and maximum 512. */
  maxKeyBytes?: number;
  /** Largest single value; default 1 MiB or `quotaBytes`, whichever is smaller. */
  maxValueBytes?: number;
}

/** What a namespace holds now. */
export interface KvUsage {
  /** Key plus value bytes, the unit of the quota. */
  bytes: number;
  keys: number;
  quotaBytes: number;
}

export interface KvProxy {
  readonly namespace: string;
  /** The value, or `undefined` when the key is not set. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Creates or replaces; fails `denied` `quota-exceeded` or `value-too-large`. */
  set(key: string, value: Uint8Array): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Keys starting with `prefix` (all keys without one), in UTF-8 byte order. */
  listKeys(prefix?: string): Promise<string[]>;
  usage(): Promise<KvUsage>;
}

/**
 * A kv proxy over `store`, which must hold `kvMigrations`. Throws `InvalidInputError` on bad
 * options; its calls reject with `HostProxyError` only.
 */
export function createKvProxy(store: Store, options: KvProxyOptions): KvProxy {
  return new LibsqlKvProxy(store, checkOptions(options));
}

class LibsqlKvProxy implements KvProxy {
  readonly namespace: string;
  readonly #store: Store;
  readonly #limits: KvLimits;

  constructor(store: Store, limits: KvLimits) {
    this.namespace = limits.namespace;
    this.#store = store;
    this.#limits = limits;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return guard("get", async () => {
      checkKvKey("get", key, this.#limits.maxKeyBytes);
      const row = (await this.#store.execute({ sql: GET_SQL, args: { ":ns": this.namespace, ":key": key } })).rows[0];
      if (row === undefined) return undefined;
      if (!(row.value instanceof Uint8Array)) throw HostProxyError.io("kv.get: the stored value is not bytes; the store is damaged");
      // A copy the caller owns, not a view of a driver buffer.
      return new Uint8Array(row.value);
    });
  }

  set(key: string, value: Uint8Array): Promise<void> {
    return guard("set", async () => {
      const { maxKeyBytes, maxValueBytes, quotaBytes } = this.#limits;
      const keyBytes = checkKvKey("set", key, maxKeyBytes);
      if (!(value instanceof Uint8Array)) throw HostProxyError.invalidInput("kv.set: value must be a Uint8Array");
      if (value.byteLength > maxValueBytes) {
        throw kvDenied(
          KV_DENIAL_REASONS.valueTooLarge,
          `kv.set ${JSON.stringify(key)}: the value is ${value.byteLength} bytes; one value may be at most ${maxValueBytes}`,
        );
      }
      const size = keyBytes + value.byteLength;
      // One write transaction (BEGIN IMMEDIATE): the conditional upsert decides the quota on the
      // rows as they are under the write lock, and the usage read after it explains a refusal
      // with the figures that caused it. A batch, not an interactive transaction, so no lock is
      // held across an await: a second handle on the same file never waits on this thread.
      const [write, after] = await this.#store.batch(
        [
          { sql: SET_SQL, args: { ":ns": this.namespace, ":key": key, ":size": size, ":value": value, ":quota": quotaBytes } },
          { sql: USAGE_SQL, args: { ":ns": this.namespace, ":key": key } },
        ],
        { mode: "write" },
      );
      if (write !== undefined && write.rowsAffected > 0) return;
      const used = Number(after?.rows[0]?.used ?? 0);
      const current = Number(after?.rows[0]?.current ?? 0);
      throw kvDenied(
        KV_DENIAL_REASONS.quotaExceeded,
        `kv.set ${JSON.stringify(key)}: storing ${size} bytes (key and value) would bring the namespace to ` +
          `${used - current + size} of its ${quotaBytes} bytes; delete keys or store less`,
      );
    });
  }

  delete(key: string): Promise<boolean> {
    return guard("delete", async () => {
      checkKvKey("delete", key, this.#limits.maxKeyBytes);
      const result = await this.#store.execute({ sql: DELETE_SQL, args: { ":ns": this.namespace, ":key": key } });
      return result.rowsAffected > 0;
    });
  }

  listKeys(prefix?: string): Promise<string[]> {
    return guard("listKeys", async () => {
      const from = prefix ?? "";
      if (typeof from !== "string") throw HostProxyError.invalidInput("kv.listKeys: prefix must be a string");
      checkKvPrefix(from, this.#limits.maxKeyBytes);
      const result = await this.#store.execute({ sql: LIST_SQL, args: { ":ns": this.namespace, ":prefix": from } });
      return result.rows.map((row) => String(row.key));
    });
  }

  usage(): Promise<KvUsage> {
    return guard("usage", async () => {
      const row = (await this.#store.execute({ sql: USAGE_SQL, args: { ":ns": this.namespace, ":key": "" } })).rows[0];
      return { bytes: Number(row?.used ?? 0), keys: Number(row?.keys ?? 0), quotaBytes: this.#limits.quotaBytes };
    });
  }
}

/** Runs one call; whatever fails leaves as a `HostProxyError`. */
async function guard<T>(fn: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toHostError(fn, error);
  }
}

interface KvLimits {
  namespace: string;
  quotaBytes: number;
  maxKeyBytes: number;
  maxValueBytes: number;
}

function checkOptions(options: KvProxyOptions): KvLimits {
  const { namespace, quotaBytes } = options;
  if (typeof namespace !== "string" || namespace === "" || namespace.length > 1024 || !namespace.isWellFormed() || namespace.includes("\0")) {
    throw new InvalidInputError("namespace: must be a non-empty string of at most 1024 characters, without NUL", { field: "namespace" });
  }
  positive("quotaBytes", quotaBytes);
  const maxKeyBytes = options.maxKeyBytes ?? MAX_KV_KEY_BYTES;
  positive("maxKeyBytes", maxKeyBytes);
  if (maxKeyBytes > MAX_KV_KEY_BYTES) {
    throw new InvalidInputError(`maxKeyBytes: ${maxKeyBytes} is past the contract's ${MAX_KV_KEY_BYTES}`, { field: "maxKeyBytes" });
  }
  const maxValueBytes = options.maxValueBytes ?? Math.min(quotaBytes, DEFAULT_MAX_VALUE_BYTES);
  positive("maxValueBytes", maxValueBytes);
  return { namespace, quotaBytes, maxKeyBytes, maxValueBytes };
}

function positive(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(`${field}: ${String(value)} must be a positive whole number of bytes`, { field });
  }
}

/**
 * What a guest sees of a failure. A store error becomes `io` with its code only: the store's
 * location and SQL stay in `cause`, for the operator.
 */
function toHostError(fn: string, error: unknown): HostProxyError {
  if (error instanceof HostProxyError) return error;
  const code = error instanceof StoreError ? error.code : "store_failed";
  return HostProxyError.io(`kv.${fn}: the store failed (${code}); try again later`, error);
}
