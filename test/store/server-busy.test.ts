/**
 * A libSQL server that answers `SQLITE_BUSY` (another node's write held the lock past the
 * server's wait): the statement or batch is sent again until it goes through within the busy
 * timeout, and applied once; past the timeout the caller gets a clear `store_busy`.
 */
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { openStore, StoreError } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";

/**
 * An HTTP proxy in front of sqld that answers the next `busy` Hrana pipelines itself, every
 * request in them refused with the server's own `SQLITE_BUSY` error, and forwards the rest.
 */
interface BusyProxy {
  readonly url: string;
  busy: number;
  answered: number;
  close(): Promise<void>;
}

async function startBusyProxy(target: SqldServer): Promise<BusyProxy> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST" && req.url?.endsWith("/pipeline") && proxy.busy > 0) {
        proxy.busy--;
        proxy.answered++;
        const { requests } = JSON.parse(body.toString("utf8")) as { requests: Array<{ type: string }> };
        const results = requests.map((r) =>
          r.type === "close" ? { type: "ok", response: { type: "close" } } : { type: "error", error: { message: "SQLite error: database is locked", code: "SQLITE_BUSY" } },
        );
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ baton: null, base_url: null, results }));
        return;
      }
      const upstream = request({ host: "127.0.0.1", port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  // The test sets `busy` and reads `answered`; the handler above reads and counts them here.
  const proxy: BusyProxy = { url: `http://127.0.0.1:${port}`, busy: 0, answered: 0, close: () => new Promise<void>((closed) => server.close(() => closed())) };
  return proxy;
}

const rows = async (store: Store) => Number((await store.execute("SELECT count(*) AS n FROM t")).rows[0]!.n);

describe("a libSQL server that answers busy", needsSqld(), () => {
  let server: SqldServer;
  let proxy: BusyProxy;
  let store: Store;
  before(async () => {
    server = await startSqld({});
    proxy = await startBusyProxy(server);
    store = await openStore({ url: proxy.url, busyTimeoutMs: 5000 });
    await store.execute("CREATE TABLE t (x INTEGER)");
  });
  after(async () => {
    await store?.close();
    await proxy?.close();
    await server?.stop();
  });

  it("a statement refused as busy is sent again and applied once (control: none refused)", async () => {
    await store.execute({ sql: "INSERT INTO t VALUES (?)", args: [0] });
    assert.equal(await rows(store), 1);
    proxy.busy = 3;
    proxy.answered = 0;
    await store.execute({ sql: "INSERT INTO t VALUES (?)", args: [1] });
    assert.equal(proxy.answered, 3, "three busy answers before it went through");
    assert.equal(await rows(store), 2);
  });

  it("a batch refused as busy is sent again and applied whole, once", async () => {
    proxy.busy = 2;
    await store.batch([{ sql: "INSERT INTO t VALUES (?)", args: [2] }, { sql: "INSERT INTO t VALUES (?)", args: [3] }]);
    assert.equal(proxy.busy, 0);
    assert.equal(await rows(store), 4);
  });

  it("past the busy timeout the caller gets store_busy (503), and nothing is written", async () => {
    const impatient = await openStore({ url: proxy.url, busyTimeoutMs: 0 });
    const before = await rows(store);
    try {
      proxy.busy = 1;
      await assert.rejects(impatient.execute({ sql: "INSERT INTO t VALUES (?)", args: [4] }), (error: unknown) => {
        assert.ok(error instanceof StoreError, String(error));
        assert.equal(error.code, "store_busy");
        assert.equal(error.status, 503);
        return true;
      });
      proxy.busy = 1_000_000;
      const bounded = await openStore({ url: proxy.url, busyTimeoutMs: 300 });
      try {
        await assert.rejects(bounded.batch([{ sql: "INSERT INTO t VALUES (?)", args: [5] }]), { code: "store_busy" });
      } finally {
        proxy.busy = 0;
        await bounded.close();
      }
      assert.equal(await rows(store), before);
    } finally {
      await impatient.close();
    }
  });
});
