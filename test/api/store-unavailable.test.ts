/**
 * A store that cannot serve answers 503 with `Retry-After` (never a bare 500), and `/ready`
 * says the node is not ready while its store refuses writes; `/health` stays the liveness check.
 * In-process, with a store whose writes fail as a read-only file or a full disk would (reads
 * still work), beside the control of a healthy store. The libSQL server cases (frozen, gone)
 * run through the shipped `clawhive serve` in test/cli/serve-store.test.ts.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import { openStore } from "../../runtime/store/index.js";
import { FaultyStore, isWrite, type FaultKind } from "../helpers/faulty-store.js";
import { copyInstalledStore, defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "./fixtures.js";

describe("a store whose writes fail", () => {
  let store: FaultyStore;
  let server: Listening;
  let token = "";
  let dispose: () => Promise<void>;
  let dir = "";
  before(async () => {
    dir = await tempDir("clawhive-faulty-");
    const file = join(dir, "clawhive.db");
    await copyInstalledStore(file);
    store = new FaultyStore(await openStore({ url: `file:${file}` }));
    const made = await testRuntime({ store });
    dispose = made.dispose;
    await defineTestAgent(made.runtime, "echo", { plugins: ["probe"] });
    const tokens = await openTokenStore(made.runtime.store, { clock: made.runtime.clock });
    token = (await tokens.create("client")).token;
    server = await listen(createApp({ runtime: made.runtime, tokens, version: "test" }));
  });
  after(async () => {
    await server?.close();
    await dispose?.();
    await rm(dir, { recursive: true, force: true });
  });

  const cases: { label: string; fault?: FaultKind; ready: number; check: string; submit: number; code?: string }[] = [
    { label: "a healthy store (control)", ready: 200, check: "ok", submit: 201 },
    { label: "writes refused as read-only (a read-only file or mount)", fault: "readonly", ready: 503, check: "read_only", submit: 503, code: "store_read_only" },
    { label: "a full disk", fault: "full", ready: 503, check: "full", submit: 503, code: "store_full" },
  ];
  for (const c of cases) {
    it(`${c.label}: /ready ${c.ready} (${c.check}), /health 200, a run ${c.submit}${c.code ? ` ${c.code} with Retry-After` : ""}, reads 200`, async () => {
      const stop = c.fault === undefined ? () => undefined : store.fail({ kind: c.fault, match: isWrite });
      try {
        const ready = await fetch(`${server.base}/ready`);
        const readyBody = (await ready.json()) as { ready: boolean; checks: { store: string } };
        assert.equal(ready.status, c.ready, JSON.stringify(readyBody));
        assert.equal(readyBody.checks.store, c.check);
        assert.equal(readyBody.ready, c.ready === 200);
        assert.equal((await fetch(`${server.base}/health`)).status, 200, "liveness does not depend on the store");
        const submitted = await fetch(`${server.base}/v1/runs?wait=true`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ agent: "echo", tool_calls: [{ name: "probe.echo", input: { a: 1 } }] }),
        });
        const body = (await submitted.json()) as { error?: { code: string; message: string } };
        assert.equal(submitted.status, c.submit, JSON.stringify(body));
        if (c.code !== undefined) {
          assert.equal(body.error?.code, c.code);
          assert.match(submitted.headers.get("retry-after") ?? "", /^\d+$/);
          assert.doesNotMatch(body.error?.message ?? "", /injected|SQLITE/, "the driver's text stays inside");
        } else assert.equal(submitted.headers.get("retry-after"), null);
        const listed = await jsonCall(server.base, "GET", "/v1/runs", { token });
        assert.equal(listed.status, 200, "reads still work");
      } finally {
        stop();
      }
    });
  }
});
