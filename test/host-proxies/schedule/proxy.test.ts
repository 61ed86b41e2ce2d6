/** The schedule proxy on its own: the guest's spec at the edge, and the proxy over a real Scheduler. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createScheduleProxy, parseScheduleSpec, scheduleHostFunctions, type ScheduleProxyOptions } from "../../../host-proxies/schedule/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { grantCovers, tightestScheduleLimit, type CapabilityGrant } from "../../../runtime/policy/catalogue/index.js";
import { agent, grant, harness, MINUTE, T0 } from "../../schedules/_fixtures.js";

const AT = new Date(T0 + 60 * MINUTE).toISOString();

function hostError(error: unknown): HostProxyError["hostError"] {
  assert.ok(error instanceof HostProxyError, String(error));
  return error.hostError;
}

describe("parseScheduleSpec: the guest's record, checked field by field", () => {
  const refused: Array<[what: string, value: unknown, message: RegExp]> = [
    ["not a record", "x", /spec must be a record/],
    ["an array", [], /spec must be a record/],
    ["an extra field", { agent: "a", task: "t", grants: {} }, /spec has no field "grants"/],
    ["agent not a string", { agent: 1, task: "t" }, /agent must be a string/],
    ["agent a path", { agent: "../a", task: "t" }, /agent must be an agent name/],
    ["agent upper case", { agent: "A", task: "t" }, /agent must be an agent name/],
    ["task not a string", { agent: "a", task: null }, /task must be a string/],
    ["task too long", { agent: "a", task: "x".repeat(16_001) }, /task is 16001 characters; the limit is 16000/],
    ["task with NUL", { agent: "a", task: "a\0b" }, /task must not contain NUL/],
    ["task with a lone surrogate", { agent: "a", task: "a\ud800" }, /task must be valid Unicode/],
    ["at a number", { agent: "a", task: "t", at: 5 }, /at must be a string/],
    ["at without an offset", { agent: "a", task: "t", at: "2030-01-01T00:00" }, /at must be an RFC 3339 time/],
    ["until not a date", { agent: "a", task: "t", cron: "* * * * *", until: "soon" }, /until must be an RFC 3339 time/],
    ["cron too long", { agent: "a", task: "t", cron: "*".repeat(201) }, /cron is 201 characters/],
    ["maxRuns negative", { agent: "a", task: "t", cron: "* * * * *", maxRuns: -1 }, /max_runs must be a u32/],
    ["maxRuns a fraction", { agent: "a", task: "t", cron: "* * * * *", maxRuns: 1.5 }, /max_runs must be a u32/],
    ["maxRuns past u32", { agent: "a", task: "t", cron: "* * * * *", maxRuns: 2 ** 32 }, /max_runs must be a u32/],
  ];
  for (const [what, value, message] of refused) {
    it(`refuses ${what} as invalid-input`, () => {
      assert.throws(() => parseScheduleSpec(value), (e: unknown) => {
        const error = hostError(e);
        return error.tag === "invalid-input" && message.test(error.val);
      });
    });
  }
  it("control: a full spec parses, times as ms since the epoch", () => {
    assert.deepEqual(parseScheduleSpec({ agent: "a-1", task: "t", cron: "0 9 * * *", timezone: "UTC", until: "2030-01-01T00:00:00+01:00", maxRuns: 3 }), {
      agent: "a-1",
      task: "t",
      cron: "0 9 * * *",
      timezone: "UTC",
      until: Date.parse("2029-12-31T23:00:00Z"),
      maxRuns: 3,
    });
  });
});

describe("scheduleHostFunctions: arity and types at the edge", () => {
  const never = new Proxy({}, { get: () => () => assert.fail("the proxy is not reached") }) as never;
  const table = scheduleHostFunctions(never);
  const refused: Array<[fn: string, args: unknown[], message: RegExp]> = [
    ["list", [1], /schedule\.list: expected 0 argument/],
    ["create", [], /schedule\.create: expected 1 argument/],
    ["create", [{}, {}], /schedule\.create: expected 1 argument/],
    ["cancel", [7], /schedule\.cancel: id must be a string/],
    ["cancel", [], /schedule\.cancel: expected 1 argument/],
  ];
  for (const [fn, args, message] of refused) {
    it(`${fn}(${args.length} args) is invalid-input`, async () => {
      await assert.rejects(table[fn]!(args), (e: unknown) => hostError(e).tag === "invalid-input" && message.test((hostError(e) as { val: string }).val));
    });
  }
  it("the table is frozen with no prototype: only its three functions exist", () => {
    assert.equal(Object.getPrototypeOf(table), null);
    assert.ok(Object.isFrozen(table));
    assert.deepEqual(Object.keys(table).sort(), ["cancel", "create", "list"]);
    assert.equal(table.toString, undefined);
  });
});

describe("the proxy over a Scheduler", () => {
  const self = grant({ log: {}, schedule: { max_schedules: 1, agents: ["self", "other"] } }) as CapabilityGrant;
  async function proxyOn(options: { layers?: ScheduleProxyOptions<CapabilityGrant>["layers"]; effective?: CapabilityGrant } = {}) {
    const layers = options.layers ?? [{ who: "agent self", grants: self }];
    const agents = [agent("self", self), agent("other", { log: {} }), agent("wide", { log: {}, kv: { namespace: "n", quota_bytes: 10 } })];
    const h = await harness({ agents });
    const proxy = createScheduleProxy({
      scheduler: h.scheduler,
      run: { id: "run_1", agent: "self" },
      ownerToken: async () => "tok_1",
      effectiveGrant: options.effective ?? self,
      layers,
      liveLimit: tightestScheduleLimit(layers.map((l) => l.grants)),
      agents: async () => agents,
      covers: grantCovers,
    });
    return { h, proxy };
  }

  it("two creates at once cannot together pass max_schedules: the store decides in the insert", async () => {
    const { h, proxy } = await proxyOn();
    const results = await Promise.allSettled([proxy.create({ agent: "other", task: "a", at: AT }), proxy.create({ agent: "other", task: "b", at: AT })]);
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.equal((hostError(refused.reason) as { val: { reason: string } }).val.reason, "schedule-limit");
    assert.equal((await h.scheduler.list({ createdByAgent: "self" })).length, 1);
    assert.equal(await proxy.liveCount(), 1);
  });

  it("captures the run's effective grant for its own agent, refuses a wider target, records its creator", async () => {
    const narrow = grant({ schedule: { max_schedules: 1, agents: ["self"] } }) as CapabilityGrant;
    const { h, proxy } = await proxyOn({ effective: narrow, layers: [{ who: "agent self", grants: self }, { who: "the task", grants: narrow }] });
    await assert.rejects(proxy.create({ agent: "wide", task: "t", at: AT }), (e: unknown) => {
      const error = hostError(e) as { tag: string; val: { reason: string; message: string } };
      return error.tag === "denied" && error.val.reason === "wider-than-creator" && /grants\.kv/.test(error.val.message);
    });
    await assert.rejects(proxy.create({ agent: "other", task: "t", at: AT }), (e: unknown) => /the task/.test(JSON.stringify(hostError(e))), "other's log is narrowed away by the task");
    const info = await proxy.create({ agent: "self", task: "t", at: AT });
    const stored = (await h.scheduler.get(info.id))!;
    assert.deepEqual(stored.capturedGrants, narrow);
    assert.deepEqual([stored.createdByAgent, stored.createdByRun, stored.ownerToken], ["self", "run_1", "tok_1"]);
    assert.equal(info.at, AT);
    assert.equal(info.cron, undefined, "none is undefined for jco's option<string>");
  });

  it("an unknown agent, a bad cron, a passed time: invalid-input naming the field, nothing stored", async () => {
    const { h, proxy } = await proxyOn();
    const rows: Array<[unknown, RegExp]> = [
      [{ agent: "ghost", task: "t", at: AT }, /agent ghost: no such agent/],
      [{ agent: "self", task: "t", cron: "61 * * * *" }, /cron: "61 \* \* \* \*"/],
      [{ agent: "self", task: "t", at: new Date(T0 - MINUTE).toISOString() }, /at: .* has passed/],
      [{ agent: "self", task: "t", at: AT, cron: "* * * * *" }, /at, cron: give exactly one/],
    ];
    for (const [spec, message] of rows) {
      await assert.rejects(proxy.create(spec), (e: unknown) => hostError(e).tag === "invalid-input" && message.test(String(hostError(e).val)), String(message));
    }
    assert.deepEqual(await h.scheduler.list(), []);
  });
});
