/**
 * A libSQL server that stops answering without closing anything — it accepted the connection
 * and never answers, it stops half way through an answer, or its process is frozen (SIGSTOP) —
 * fails each store call `store_timeout` within the store's deadline, instead of leaving it
 * waiting for minutes; and an effect behind an intent that timed out is not made. Each beside a
 * control that answers. A call that would hang fails the test by its own timeout.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { openAuditLog, withAudit } from "../../runtime/audit/index.js";
import { openStore, StoreError, type Store } from "../../runtime/store/index.js";
import { hostIntent } from "../audit/fixtures.js";
import { cleanEnv } from "../cli/client-fixtures.js";
import { BIN } from "../cli/fixtures.js";
import { startStallingProxy, type StallingProxy } from "../helpers/stalling-proxy.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";

/** The silent server's deadline; a real server's is longer, so its controls answer within it on a loaded machine. */
const DEADLINE_MS = 400;
const SERVER_DEADLINE_MS = 3000;
/** Far past the deadline, far short of the minutes a call waited without one. */
const HANG = { timeout: 30_000 };

const timedOutAfter = (ms: number) => (error: unknown) => {
  assert.ok(error instanceof StoreError, `expected a StoreError, got ${String(error)}`);
  assert.equal(error.code, "store_timeout", error.message);
  assert.equal(error.status, 503);
  assert.match(error.message, new RegExp(`no answer within ${ms} ms .*store.timeout_ms.*may or may not have applied`));
  return true;
};
const timedOut = timedOutAfter(DEADLINE_MS);

describe("a server that accepts and never answers", () => {
  let silent: StallingProxy;
  before(async () => {
    silent = await startStallingProxy();
  });
  after(async () => {
    await silent?.close();
  });

  for (const scheme of ["http", "ws"] as const) {
    it(`fails a statement and a batch store_timeout over ${scheme}`, HANG, async () => {
      const store = await openStore({ url: silent.url.replace(/^http/, scheme), timeoutMs: DEADLINE_MS });
      try {
        await assert.rejects(store.execute("SELECT 1"), timedOut);
        await assert.rejects(store.batch(["CREATE TABLE t (x)", "INSERT INTO t VALUES (1)"]), timedOut);
        await assert.rejects(
          store.transaction(async (tx) => tx.execute("SELECT 1")),
          timedOut,
        );
      } finally {
        await store.close();
      }
      assert.ok(silent.accepted > 0, "the calls did reach the server");
    });
  }

  /** The shipped CLI on the silent server, asynchronously (this process answers its connections). */
  const cli = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("exit", (code) => resolve({ code, stderr }));
    });
  const CLI_ROWS: { label: string; timeout: string; code: number; says: RegExp }[] = [
    { label: "fails with the deadline it was given", timeout: "500", code: 1, says: /got no answer within 500 ms/ },
    { label: "refuses a deadline that is not a number of ms (a usage error)", timeout: "soon", code: 2, says: /CLAWHIVE_STORE_TIMEOUT_MS: expected a whole number of milliseconds/ },
  ];
  for (const row of CLI_ROWS) {
    it(`clawhive runs list on it ${row.label}, exit ${row.code}`, HANG, async () => {
      const result = await cli(["runs", "list", "--store", silent.url], { CLAWHIVE_STORE_TIMEOUT_MS: row.timeout });
      assert.equal(result.code, row.code, result.stderr);
      assert.match(result.stderr, row.says);
    });
  }
});

describe("a libSQL server that hangs", needsSqld(), () => {
  let server: SqldServer;
  let proxy: StallingProxy;
  before(async () => {
    server = await startSqld();
    proxy = await startStallingProxy({ host: "127.0.0.1", port: server.port });
  });
  after(async () => {
    await proxy?.close();
    await server?.stop();
  });

  const stalls: { label: string; stall: number | undefined }[] = [
    { label: "answers in full (control)", stall: undefined },
    { label: "stops inside the answer's status line and headers", stall: 20 },
    // The answer is ~2.2 kB (a 2000-character value): its headers pass, about a quarter of its body.
    { label: "stops half way through the answer's body", stall: 600 },
  ];
  for (const c of stalls) {
    it(`that ${c.label}: ${c.stall === undefined ? "the calls answer" : "each call fails store_timeout"}`, HANG, async () => {
      const store = await openStore({ url: proxy.url, timeoutMs: SERVER_DEADLINE_MS });
      try {
        proxy.stall = c.stall;
        const reading = store.execute("SELECT hex(zeroblob(1000)) AS a, 12345 AS c");
        if (c.stall === undefined) assert.equal((await reading).rows[0]?.c, 12345);
        else await assert.rejects(reading, timedOutAfter(SERVER_DEADLINE_MS));
      } finally {
        proxy.stall = undefined;
        await store.close();
      }
    });
  }

  it("frozen (SIGSTOP) mid-use: writes fail store_timeout, the effect behind the intent is not made; thawed, the store works again", HANG, async () => {
    const store = await openStore({ url: server.url, timeoutMs: SERVER_DEADLINE_MS });
    const audit = await openAuditLog(store);
    let effects = 0;
    const effect = async () => {
      effects++;
      return "done";
    };
    try {
      await store.execute("CREATE TABLE IF NOT EXISTS frozen (n INTEGER)");
      // Control, before: the intent is written, the effect made, the outcome recorded.
      assert.equal(await withAudit(audit, { intent: hostIntent({ runId: "run-before" }), effect }), "done");
      assert.equal(effects, 1);
      server.pause();
      try {
        await assert.rejects(store.execute("INSERT INTO frozen VALUES (1)"), timedOutAfter(SERVER_DEADLINE_MS));
        await assert.rejects(store.batch(["INSERT INTO frozen VALUES (2)", "INSERT INTO frozen VALUES (3)"]), timedOutAfter(SERVER_DEADLINE_MS));
        await assert.rejects(withAudit(audit, { intent: hostIntent({ runId: "run-frozen" }), effect }), (error: unknown) => {
          assert.match(String((error as Error).message), /no answer within/);
          return true;
        });
        assert.equal(effects, 1, "no effect without its intent on record");
      } finally {
        server.resume();
      }
      // Thawed: the same store (a fresh connection where one was in doubt) answers again.
      assert.equal((await store.execute("SELECT 1 AS one")).rows[0]?.one, 1);
      assert.equal(await withAudit(audit, { intent: hostIntent({ runId: "run-after" }), effect }), "done");
      assert.equal(effects, 2);
      const report = await audit.verify();
      assert.equal(report.ok, true, JSON.stringify(report.issues));
    } finally {
      await audit.close();
      await store.close();
    }
  });
});

describe("a transaction that holds the connection", () => {
  const drivers = ["embedded", "client"] as const;
  for (const driver of drivers) {
    it(`(${driver} driver) a call queued behind a stalled transaction fails store_timeout; control: after a short one it runs`, HANG, async () => {
      const store: Store = await openStore({ url: ":memory:", driver, timeoutMs: DEADLINE_MS });
      try {
        await store.execute("CREATE TABLE t (x)");
        await store.transaction(async (tx) => {
          await tx.execute("INSERT INTO t VALUES (1)");
        });
        assert.equal((await store.execute("SELECT count(*) AS n FROM t")).rows[0]?.n, 1);
        let release!: () => void;
        const stalled = store.transaction(async (tx) => {
          await tx.execute("INSERT INTO t VALUES (2)");
          await new Promise<void>((resolve) => (release = resolve));
        });
        stalled.catch(() => undefined);
        await assert.rejects(store.execute("SELECT count(*) FROM t"), (error: unknown) => {
          assert.ok(error instanceof StoreError);
          assert.equal(error.code, "store_timeout");
          assert.match(error.message, /waited 400 ms .* for a transaction of this store to end/);
          return true;
        });
        release();
        await stalled.catch(() => undefined);
        assert.ok(Number((await store.execute("SELECT count(*) AS n FROM t")).rows[0]?.n) >= 1, "the store answers once the transaction has ended");
      } finally {
        await store.close();
      }
    });
  }
});

const BAD_DEADLINES: unknown[] = [0, -1, 1.5, Number.NaN, 86_400_001];
for (const bad of BAD_DEADLINES) {
  it(`refuses a deadline of ${String(bad)} ms with invalid_input (control: 1 ms opens)`, async () => {
    await assert.rejects(openStore({ url: ":memory:", timeoutMs: bad as number }), { code: "invalid_input", message: /timeoutMs: .* must be a whole number of milliseconds/ });
    await (await openStore({ url: ":memory:", timeoutMs: 1 })).close();
  });
}
