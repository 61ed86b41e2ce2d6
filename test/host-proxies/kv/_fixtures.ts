/** Stores and byte helpers shared by the kv proxy tests. */
import type { TestContext } from "node:test";
import { kvMigrations } from "../../../host-proxies/kv/index.js";
import { openStore } from "../../../runtime/store/index.js";
import type { Store } from "../../../runtime/store/index.js";
import { tempDir } from "../../store/temp-store.js";
export { rejectsWith } from "../../helpers/host-errors.js";

/** The two drivers a store may run on; the kv proxy must behave the same on both. */
export const DRIVERS = ["embedded", "client"] as const;
export type Driver = (typeof DRIVERS)[number];

/** A migrated `:memory:` store, closed when `t` ends. */
export async function memoryStore(t: TestContext, driver: Driver = "embedded"): Promise<Store> {
  const store = await openStore({ url: ":memory:", migrations: kvMigrations, driver });
  t.after(() => store.close());
  return store;
}

/** A migrated file store's URL in a temp dir removed when `t` ends (after stores close). */
export async function fileStoreUrl(t: TestContext): Promise<string> {
  const dir = await tempDir("clawhive-kv-");
  t.after(() => dir.remove());
  return dir.url("kv.db");
}

/** Opens a store at `url`, closed when `t` ends. */
export async function openAt(t: TestContext, url: string, driver: Driver = "embedded"): Promise<Store> {
  const store = await openStore({ url, migrations: kvMigrations, driver });
  t.after(() => store.close());
  return store;
}

export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));
export const filled = (n: number): Uint8Array => new Uint8Array(n).fill(7);
