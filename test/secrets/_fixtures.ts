/** Builders for secrets tests: a clock the test moves, a file store in a temp data dir, keys. */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSecretStore } from "../../runtime/secrets/index.js";
import type { OpenSecretStoreOptions, SecretStore } from "../../runtime/secrets/index.js";
import { openStore } from "../../runtime/store/index.js";
import type { Clock, Store } from "../../runtime/store/index.js";

export const T0 = Date.UTC(2026, 0, 1);

export interface TestClock extends Clock {
  advance(ms: number): void;
}

export function testClock(start = T0): TestClock {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** The base64 of a fresh random 32-byte key, as CLAWHIVE_SECRET_KEY holds it. */
export function newKeyText(): string {
  return randomBytes(32).toString("base64");
}

export interface Place {
  /** The data dir (`secret.key` lives here unless a key is given). */
  readonly dataDir: string;
  /** `file:<data dir>/clawhive.db`. */
  readonly url: string;
  readonly dbPath: string;
  readonly clock: TestClock;
  /** Opens the store and a `SecretStore` on it; both are closed by `cleanup`. */
  open(options?: Partial<Omit<OpenSecretStoreOptions, "clock">>): Promise<{ store: Store; secrets: SecretStore }>;
  cleanup(): Promise<void>;
}

export async function place(): Promise<Place> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-secrets-"));
  const dbPath = join(dataDir, "clawhive.db");
  const url = `file:${dbPath}`;
  const clock = testClock();
  const opened: Store[] = [];
  return {
    dataDir,
    url,
    dbPath,
    clock,
    async open(options = {}) {
      const store = await openStore({ url, clock });
      opened.push(store);
      try {
        return { store, secrets: await openSecretStore(store, { dataDir, clock, ...options }) };
      } catch (error) {
        await store.close();
        throw error;
      }
    },
    async cleanup() {
      for (const store of opened) await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `body` with a fresh place and always cleans it up. */
export async function withPlace(body: (p: Place) => Promise<void>): Promise<void> {
  const p = await place();
  try {
    await body(p);
  } finally {
    await p.cleanup();
  }
}
