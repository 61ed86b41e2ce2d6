/**
 * The store against a real libSQL server (`sqld`): the same conformance suite as the embedded
 * drivers, on one server per file (each test drops what it created).
 */
import { after, describe } from "node:test";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";
import { describeStoreConformance } from "./store-conformance.js";

const skip = needsSqld();
let server: Promise<SqldServer> | undefined;
const shared = (): Promise<SqldServer> => (server ??= startSqld({ auth: true }));
after(async () => {
  if (server !== undefined) await (await server).stop();
});

/** Drops every table a test created, so the next starts on an empty database. */
async function dropAll(store: Store): Promise<void> {
  const tables = await store.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'libsql_%' AND name NOT LIKE '_litestream%'");
  for (const row of tables.rows) await store.execute(`DROP TABLE IF EXISTS "${String(row.name)}"`);
}

describe("sqld", skip, () => {
  describeStoreConformance("libSQL server (sqld)", async () => {
    const s = await shared();
    const store = await openStore({ url: s.url, authToken: s.authToken! });
    return {
      store,
      cleanup: async () => {
        const admin = await openStore({ url: s.url, authToken: s.authToken! });
        try {
          await dropAll(admin);
        } finally {
          await admin.close();
          await store.close();
        }
      },
    };
  });
});
