import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { InvalidInputError } from "../../../runtime/errors.js";
import { argsHash } from "../../../runtime/policy/approvals/index.js";
import type { ApprovalRequestInput } from "../../../runtime/policy/approvals/index.js";
import { effectRequest, toolCallRequest, withHarness, WRITE_ARGS } from "./_fixtures.js";

test("argsHash is sha256 hex of canonical JSON: key order does not matter, values do", () => {
  const expected = createHash("sha256").update('{"path":"notes/a.txt","text":"hello"}').digest("hex");
  assert.equal(argsHash(WRITE_ARGS), expected);
  assert.equal(argsHash({ text: "hello", path: "notes/a.txt" }), expected);
  assert.notEqual(argsHash({ ...WRITE_ARGS, text: "hello " }), expected);
  assert.throws(() => argsHash({ n: Number.NaN }), InvalidInputError);
});

test("request files a pending tool_call approval with the full context", () =>
  withHarness(
    async ({ approvals, clock }) => {
      const a = await approvals.request(toolCallRequest());
      assert.deepEqual(a, {
        id: "apr_1",
        kind: "tool_call",
        status: "pending",
        scope: null,
        runId: "run_1",
        traceId: "trace_1",
        agent: "writer",
        parentRunId: null,
        stepId: "step_1",
        toolCallId: "call_1",
        tool: "files.write_file",
        input: WRITE_ARGS,
        argsHash: argsHash(WRITE_ARGS),
        capability: null,
        effect: null,
        effectHash: null,
        risk: "guarded",
        reason: "files.write_file writes to the notes mount (fs.write is Guarded)",
        context: "Please save my notes.",
        createdAt: clock.now(),
        expiresAt: clock.now() + 30 * 60_000,
        decision: null,
        decidedBy: null,
        decidedAt: null,
        decisionReason: null,
        usedAt: null,
        useCount: 0,
        untrustedSources: [],
        secretsRead: [],
      });
      assert.deepEqual(await approvals.get(a.id), a);
      assert.equal(await approvals.get("apr_missing"), undefined);
    },
    { expiryMinutes: 30, newId: sequentialIds() },
  ));

// [what, a second request, same pending approval as the first?]
const DEDUPE: [string, ApprovalRequestInput, boolean][] = [
  ["control: identical", toolCallRequest(), true],
  ["control: only display context differs", toolCallRequest({ toolCallId: "call_9", reason: "again", context: "retry" }), true],
  ["control: same arguments, keys reordered", toolCallRequest({ input: { text: "hello", path: "notes/a.txt" } }), true],
  ["other arguments", toolCallRequest({ input: { ...WRITE_ARGS, text: "bye" } }), false],
  ["another step", toolCallRequest({ stepId: "step_2" }), false],
  ["another tool", toolCallRequest({ tool: "files.append_file" }), false],
  ["another run", toolCallRequest({ runId: "run_2" }), false],
  ["an effect of the same call", effectRequest({ stepId: "step_1", tool: "files.write_file", input: WRITE_ARGS }), false],
];

for (const [what, second, same] of DEDUPE) {
  test(`request dedupe: ${what} → ${same ? "the same pending approval" : "a new one"}`, () =>
    withHarness(async ({ approvals }) => {
      const first = await approvals.request(toolCallRequest());
      const again = await approvals.request(second);
      assert.equal(again.id === first.id, same);
      assert.equal((await approvals.list({ status: "pending" })).length, same ? 1 : 2);
    }));
}

// [what, a second effect request, same pending approval as the first?]
const EFFECT_DEDUPE: [string, ApprovalRequestInput, boolean][] = [
  ["control: identical", effectRequest(), true],
  ["another argv", effectRequest({ effect: { argv: ["rm", "-rf", "/"], cwd: "/work" } }), false],
  ["another capability", effectRequest({ capability: "http.fetch" }), false],
];

for (const [what, second, same] of EFFECT_DEDUPE) {
  test(`effect request dedupe: ${what} → ${same ? "the same pending approval" : "a new one"}`, () =>
    withHarness(async ({ approvals }) => {
      const first = await approvals.request(effectRequest());
      assert.equal((await approvals.request(second)).id === first.id, same);
    }));
}

test("concurrent identical requests make one approval", () =>
  withHarness(async ({ approvals }) => {
    const results = await Promise.all([1, 2, 3, 4].map(() => approvals.request(toolCallRequest())));
    assert.equal(new Set(results.map((a) => a.id)).size, 1);
    assert.equal((await approvals.pendingForRun("run_1")).length, 1);
  }));

test("once decided, the same call may ask again: a new pending approval", () =>
  withHarness(async ({ approvals }) => {
    const first = await approvals.request(toolCallRequest());
    await approvals.decide(first.id, { decision: "approve", by: "alice" });
    assert.notEqual((await approvals.request(toolCallRequest())).id, first.id);
  }));

// [what, the bad request, the field named]; control: toolCallRequest() / effectRequest() is accepted
const INVALID: [string, ApprovalRequestInput, string][] = [
  ["a tool without its plugin", toolCallRequest({ tool: "write_file" }), "tool"],
  ["an upper-case tool", toolCallRequest({ tool: "Files.write_file" }), "tool"],
  ["an empty run id", toolCallRequest({ runId: "" }), "runId"],
  ["an empty reason", toolCallRequest({ reason: "" }), "reason"],
  ["an unknown risk", toolCallRequest({ risk: "extreme" as never }), "risk"],
  ["an unknown kind", { ...toolCallRequest(), kind: "grant" as never }, "kind"],
  ["input with no JSON form", toolCallRequest({ input: { when: new Date(0) } }), "input.when"],
  ["an effect without a capability", effectRequest({ capability: "" }), "capability"],
  ["an effect with NaN", effectRequest({ effect: { argv: ["sleep"], seconds: Number.NaN } }), "effect.seconds"],
];

for (const [what, bad, field] of INVALID) {
  test(`request refuses ${what} (invalid_input on ${field}); control: the valid request`, () =>
    withHarness(async ({ approvals }) => {
      await assert.rejects(approvals.request(bad), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError, String(error));
        assert.equal(error.field, field);
        assert.match(error.message, new RegExp(`^${field.replace(".", "\\.")}: `));
        return true;
      });
      assert.equal((await approvals.list()).length, 0);
      const control = bad.kind === "effect" ? effectRequest() : toolCallRequest();
      assert.equal((await approvals.request(control)).status, "pending");
    }));
}

test("list filters by status and run, newest first, and checks its limit", () =>
  withHarness(
    async ({ approvals, clock }) => {
      const a = await approvals.request(toolCallRequest());
      clock.advance(1);
      const b = await approvals.request(toolCallRequest({ runId: "run_2" }));
      clock.advance(1);
      const c = await approvals.request(effectRequest());
      await approvals.decide(c.id, { decision: "deny", by: "alice" });
      assert.deepEqual((await approvals.list()).map((x) => x.id), [c.id, b.id, a.id]);
      assert.deepEqual((await approvals.list({ limit: 1 })).map((x) => x.id), [c.id]);
      assert.deepEqual((await approvals.list({ runId: "run_1" })).map((x) => x.id), [c.id, a.id]);
      assert.deepEqual((await approvals.list({ status: "pending" })).map((x) => x.id), [b.id, a.id]);
      assert.deepEqual((await approvals.pendingForRun("run_1")).map((x) => x.id), [a.id]);
      await assert.rejects(approvals.list({ limit: 0 }), /limit: 0 must be a whole number/);
      await assert.rejects(approvals.list({ status: "lost" as never }), /status: "lost" must be one of/);
    },
    { newId: sequentialIds() },
  ));

function sequentialIds(): () => string {
  let n = 0;
  return () => `apr_${++n}`;
}
