/**
 * Fencing: an effect's intent is written only while its run is live, not cancelled, and held by
 * the writing node, checked by the store in the intent's own transaction. Node A drives a run;
 * right before A's intent is committed (after every earlier check passed), node B takes the
 * run's lease over or records a cancel: A's intent is refused and the effect never happens.
 * Beside each refusal, a control where nothing happens in between and the effect is made.
 * Each case runs on a shared store file and, when sqld is here, on a libSQL server.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { openStore } from "../../runtime/store/index.js";
import { FaultyStore } from "../helpers/faulty-store.js";
import { defineTestAgent, tempDir } from "../helpers/runtime.js";
import { nodeOn, sharedStore, storeAccess, type SharedStore } from "../helpers/shared-store.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";
import { needsSqld } from "../helpers/sqld.js";
import { until } from "./_loop.js";

const HOUR = 3_600_000;
const sqld = needsSqld();

/** What B does at the last moment, right before A's intent is committed. */
const BETWEEN: Array<{ what: string; act: (b: Runtime, runId: string) => Promise<void>; refused?: { reason: string; code: string } }> = [
  { what: "control: nothing (A still holds the lease)", act: async () => undefined },
  {
    what: "B takes the run's lease over (A's ran out)",
    act: async (b, runId) => {
      const now = Date.now() + HOUR;
      assert.equal(await b.records.claim(runId, b.node, { now, until: now + HOUR }), true, "B took the lease");
    },
    refused: { reason: "run-taken-over", code: "run_taken_over" },
  },
  { what: "B records a cancel", act: async (b, runId) => void (await b.records.requestCancel(runId)), refused: { reason: "run-cancelled", code: "run_cancelled" } },
];

/** Effects of each kind: the ToolCall, and whether it happened. */
const EFFECTS: Array<{ what: string; call: (key: string) => { name: string; input: unknown }; happened: (ctx: { work: string; b: Runtime }, key: string) => Promise<boolean> }> = [
  { what: "an fs.write", call: (key) => ({ name: "files.write_file", input: { path: `/w/${key}.txt`, content: key } }), happened: async ({ work }, key) => existsSync(join(work, `${key}.txt`)) },
  {
    what: "a kv.set",
    call: (key) => ({ name: "probe.kvset", input: { key, value: "v" } }),
    happened: async ({ b }, key) => {
      const run = await b.startRun({ agent: "direct" });
      const got = await run.callTool("probe.kvget", { key });
      await run.end();
      return got.status === "ok" && JSON.stringify(got.output).includes('"v"');
    },
  },
];

for (const where of [{ label: "a shared file" }, { label: "sqld", ...sqld }]) {
  describe(`fencing on ${where.label}`, where.skip === undefined ? {} : { skip: where.skip }, () => {
    let shared: SharedStore | undefined;
    let dataDir: string;
    let work: string;
    let a: Runtime;
    let b: Runtime;
    let aStore: FaultyStore;

    before(async () => {
      dataDir = await tempDir("clawhive-fence-");
      work = join(dataDir, "work");
      await mkdir(work);
      await writeTestSecretKey(dataDir);
      shared = await sharedStore(dataDir, where.label === "sqld");
      const make = async (name: string, store?: FaultyStore) => {
        const runtime = await nodeOn(shared!, dataDir, name, store ? { store } : {});
        const mounts = [{ guest: "/w", host: work, mode: "rw" as const }];
        await defineTestAgent(runtime, "direct", { plugins: ["probe", "files"], mounts, lowerToSafe: ["files.write_file"], extraGrants: { kv: { namespace: "fence", quota_bytes: 4096 } } });
        return runtime;
      };
      b = await make("b");
      aStore = new FaultyStore(await openStore(storeAccess(shared)));
      a = await make("a", aStore);
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await shared?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    for (const effect of EFFECTS) {
      for (const between of BETWEEN) {
        it(`${effect.what}, and right before A's intent is committed ${between.what}: ${between.refused ? "refused, the effect never happens" : "it happens"}`, async () => {
          const key = `k${EFFECTS.indexOf(effect)}${BETWEEN.indexOf(between)}`;
          const run = await a.startRun({ agent: "direct" });
          let acted = false;
          aStore.before(
            (sql) => sql.includes("INSERT INTO run_fences"),
            async () => {
              acted = true;
              await between.act(b, run.id);
            },
          );
          const { name, input } = effect.call(key);
          const outcome = await run.callTool(name, input).catch((error: { code?: string }) => ({ status: "threw", code: error.code }));
          aStore.clear();
          assert.equal(acted, true, "the intent was written under the fence");
          const { records } = await b.audit.query({ runId: run.id, kind: "host_call", limit: 100 });
          const intents = records.filter((r) => r.status === "intent" && r.decision === "allow" && (r.args ?? "").includes(key));
          if (!between.refused) {
            assert.equal(outcome.status, "ok", JSON.stringify(outcome));
            assert.equal(await effect.happened({ work, b }, key), true);
            assert.equal(intents.length, 1, "the effect's intent is on record");
            await run.end();
            return;
          }
          // Taken over: A stops (the new holder goes on); cancelled: the ToolCall fails, the run ends cancelled.
          if (between.refused.code === "run_taken_over") assert.deepEqual(outcome, { status: "threw", code: "run_taken_over" }, "A stops before the effect");
          else assert.notEqual(outcome.status, "ok", JSON.stringify(outcome));
          assert.equal(await effect.happened({ work, b }, key), false, "the effect was not made");
          assert.equal(intents.length, 0, "no intent on record: the store refused it");
          // Cancelled, the run's ToolCall may be stopped (by A's driver, at its tick) while the
          // host call is still writing its refusal: that record comes, a moment later.
          const refusal = async () => (await b.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records;
          const refused = (rows: typeof records) => rows.some((r) => r.decision === "deny" && r.denial?.reason === between.refused!.reason);
          let seen = records;
          // Bounded; a timeout falls through to the assertion, which prints what is on record.
          await until(async () => refused((seen = await refusal())), "the refusal's audit record", 10_000).catch(() => undefined);
          assert.ok(
            refused(seen),
            `the refusal is audited: ${JSON.stringify(seen.map((r) => [r.status, r.denial?.reason]))}`,
          );
          assert.equal(seen.filter((r) => r.status === "intent" && r.decision === "allow" && (r.args ?? "").includes(key)).length, 0, "still no intent on record");
          if (between.refused.code === "run_cancelled") {
            for (let i = 0; i < 2000 && (await b.records.get(run.id))?.status !== "ended"; i++) await new Promise((resolve) => setTimeout(resolve, 10));
            assert.equal((await b.records.get(run.id))?.endReason, "cancelled");
          } else {
            assert.equal((await b.records.get(run.id))?.node, b.node, "B holds the run; A wrote nothing over it");
          }
        });
      }
    }
  });
}
