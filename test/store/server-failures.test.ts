/**
 * A libSQL server that is missing, refuses the token, drops the connection mid-batch or refuses
 * a large response: each a clear `StoreError` code, each beside a control that works, and a
 * batch is applied whole or not at all.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openStore, StoreError } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { startCuttingProxy, type CuttingProxy } from "../helpers/cutting-proxy.js";
import { freePort, needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";

const failsWith = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof StoreError, `expected a StoreError, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.match(error.message, pattern);
  return true;
};

describe("a libSQL server that fails", needsSqld(), () => {
  let server: SqldServer;
  let capped: SqldServer;
  before(async () => {
    server = await startSqld({ auth: true });
    capped = await startSqld({ args: ["--max-response-size", "4KB"] });
  });
  after(async () => {
    await server?.stop();
    await capped?.stop();
  });

  const tokens: { label: string; token: () => string | undefined; code?: string }[] = [
    { label: "the server's own token (control)", token: () => server.authToken },
    { label: "a token signed by another key", token: () => server.foreignToken(), code: "store_auth" },
    { label: "no token", token: () => undefined, code: "store_auth" },
    { label: "garbage", token: () => "not-a-jwt", code: "store_auth" },
  ];
  for (const t of tokens) {
    it(`${t.code === undefined ? "accepts" : "refuses"} ${t.label}`, async () => {
      const token = t.token();
      const opening = openStore({ url: server.url, ...(token === undefined ? {} : { authToken: token }) }).then(async (store) => {
        try {
          return (await store.execute("SELECT 1 AS one")).rows[0]?.one;
        } finally {
          await store.close();
        }
      });
      if (t.code === undefined) assert.equal(await opening, 1);
      else await assert.rejects(opening, failsWith(t.code, /refused the auth token.*CLAWHIVE_STORE_AUTH_TOKEN/));
    });
  }

  it("names an unreachable server store_unreachable (http and ws)", async () => {
    const port = await freePort();
    for (const url of [`http://127.0.0.1:${port}`, `ws://127.0.0.1:${port}`]) {
      const opening = openStore({ url }).then((store) => store.execute("SELECT 1").finally(() => store.close()));
      await assert.rejects(opening, failsWith("store_unreachable", /cannot be reached.*ECONNREFUSED/));
    }
  });

  it("maps the server's response cap to store_too_large (control: a small read passes)", async () => {
    const store = await openStore({ url: capped.url });
    try {
      assert.equal((await store.execute("SELECT 'small' AS v")).rows[0]?.v, "small");
      await assert.rejects(store.execute("SELECT hex(zeroblob(8000)) AS v"), failsWith("store_too_large", /refused to send a response this large/));
    } finally {
      await store.close();
    }
  });

  describe("a connection dropped mid-batch", () => {
    let proxy: CuttingProxy;
    let direct: Store;
    before(async () => {
      proxy = await startCuttingProxy({ host: "127.0.0.1", port: server.port });
      direct = await openStore({ url: server.url, authToken: server.authToken! });
      await direct.execute("CREATE TABLE IF NOT EXISTS cut_rows (batch TEXT NOT NULL, n INTEGER NOT NULL, pad TEXT NOT NULL)");
    });
    after(async () => {
      await direct?.close();
      await proxy?.close();
    });

    const batchOf = (name: string) => Array.from({ length: 40 }, (_, n) => ({ sql: "INSERT INTO cut_rows (batch, n, pad) VALUES (?, ?, ?)", args: [name, n, "x".repeat(4000)] }));
    const count = async (name: string) => Number((await direct.execute({ sql: "SELECT count(*) AS n FROM cut_rows WHERE batch = ?", args: [name] })).rows[0]?.n);

    const cases: { label: string; cut: { request?: number; response?: number } }[] = [
      { label: "nothing cut (control)", cut: {} },
      { label: "the request cut half way", cut: { request: 60_000 } },
      { label: "the response cut after its first bytes", cut: { response: 20 } },
    ];
    for (const c of cases) {
      it(`${c.label}: ${c.cut.request ?? c.cut.response ?? 0 ? "store_unreachable, and" : "the batch lands"} the batch is whole or absent`, async () => {
        proxy.cut = c.cut;
        const name = `batch-${c.label}`;
        const store = await openStore({ url: proxy.url, authToken: server.authToken! });
        try {
          const writing = store.batch(batchOf(name));
          if (c.cut.request === undefined && c.cut.response === undefined) {
            await writing;
            assert.equal(await count(name), 40);
          } else {
            await assert.rejects(writing, failsWith("store_unreachable", /dropped the connection/));
            // A request that never arrived whole wrote nothing; a lost response may follow a commit.
            const rows = await count(name);
            if (c.cut.request !== undefined) assert.equal(rows, 0);
            else assert.ok(rows === 0 || rows === 40, `a batch is all or nothing, found ${rows} rows`);
          }
        } finally {
          proxy.cut = {};
          await store.close();
        }
      });
    }
  });
});
