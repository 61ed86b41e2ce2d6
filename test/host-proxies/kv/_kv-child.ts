/**
 * A second runtime process on one store file, for concurrency.test.ts: opens the store at
 * argv[2], sets argv[4] keys named `<argv[3]>-<i>` of 10 bytes each into namespace `shared/p/n`
 * with quota argv[5], all at once, and prints `{ok, denied}` as JSON.
 */
import { createKvProxy, kvMigrations } from "../../../host-proxies/kv/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { openStore } from "../../../runtime/store/index.js";

const [url = "", tag = "", count = "0", quota = "0"] = process.argv.slice(2);
const store = await openStore({ url, migrations: kvMigrations });
const kv = createKvProxy(store, { namespace: "shared/p/n", quotaBytes: Number(quota) });
let ok = 0;
let denied = 0;
await Promise.all(
  Array.from({ length: Number(count) }, async (_, i) => {
    const key = `${tag}-${String(i).padStart(3, "0")}`;
    try {
      await kv.set(key, new Uint8Array(10 - key.length));
      ok++;
    } catch (error) {
      if (!(error instanceof HostProxyError && error.hostError.tag === "denied")) throw error;
      denied++;
    }
  }),
);
await store.close();
process.stdout.write(JSON.stringify({ ok, denied }));
