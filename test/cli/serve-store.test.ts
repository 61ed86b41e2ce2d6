/**
 * The shipped `clawhive serve` on a libSQL server that stops answering: requests that need the
 * store answer 503 with `Retry-After` (the store frozen by SIGSTOP: `store_timeout`; the server
 * gone: `store_unreachable`), `/ready` is 503 and `/health` 200 meanwhile; thawed, the node is
 * ready again (the control, before and after). The deadline is short so the frozen case answers
 * quickly; the bound on each request is a liveness bound, not a measurement.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";
import { serve, type Served } from "./client-fixtures.js";
import { cliPlace, type CliPlace } from "./fixtures.js";

const get = (served: Served, path: string) => fetch(`${served.url}${path}`, { headers: { authorization: `Bearer ${served.token}` }, signal: AbortSignal.timeout(60_000) });

async function expectReady(served: Served, ready: boolean, store: string): Promise<void> {
  const response = await get(served, "/ready");
  const body = (await response.json()) as { ready: boolean; checks: { store: string } };
  assert.equal(response.status, ready ? 200 : 503, JSON.stringify(body));
  assert.deepEqual([body.ready, body.checks.store], [ready, store]);
  assert.equal((await get(served, "/health")).status, 200, "/health is liveness: it answers whatever the store does");
}

async function expectUnavailable(served: Served, code: string): Promise<void> {
  const response = await get(served, "/v1/runs");
  const body = (await response.json()) as { error?: { code: string; message: string } };
  assert.equal(response.status, 503, JSON.stringify(body));
  assert.equal(body.error?.code, code);
  assert.match(response.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
}

describe("clawhive serve on a libSQL server that stops answering", { ...needsSqld(), timeout: 600_000 }, () => {
  let sqld: SqldServer;
  let place: CliPlace;
  let served: Served;
  before(async () => {
    sqld = await startSqld();
    place = await cliPlace("clawhive-serve-store-");
    served = await serve(place, { env: { CLAWHIVE_STORE_URL: sqld.url, CLAWHIVE_STORE_TIMEOUT_MS: "3000" } });
  });
  after(async () => {
    await served?.stop();
    await sqld?.stop();
    await rm(place.root, { recursive: true, force: true });
  });

  it("control: ready, and the runs list answers", async () => {
    await expectReady(served, true, "ok");
    assert.equal((await get(served, "/v1/runs")).status, 200);
  });

  it("frozen (SIGSTOP): 503 store_timeout with Retry-After, not ready, alive; thawed, ready again", async () => {
    sqld.pause();
    try {
      await expectUnavailable(served, "store_timeout");
      await expectReady(served, false, "unreachable");
    } finally {
      sqld.resume();
    }
    await expectReady(served, true, "ok");
    assert.equal((await get(served, "/v1/runs")).status, 200);
  });

  it("gone (the server stopped): 503 store_unreachable with Retry-After, not ready, alive", async () => {
    await sqld.stop();
    await expectUnavailable(served, "store_unreachable");
    await expectReady(served, false, "unreachable");
  });
});
