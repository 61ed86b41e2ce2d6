import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidInputError } from "../../../runtime/errors.js";
import { argsHash } from "../../../runtime/policy/approvals/index.js";
import type { EffectMatch } from "../../../runtime/policy/approvals/index.js";
import { effectRequest, RM_EFFECT, toolCallRequest, withHarness } from "./_fixtures.js";

const APPROVED: EffectMatch = { runId: "run_1", tool: "shell.exec", capability: "shell.exec", effectHash: argsHash(RM_EFFECT) };

// [what, the host call that tries to use the approval of APPROVED, does it match]
const ROWS: [string, EffectMatch, boolean][] = [
  ["control: the same host call", APPROVED, true],
  ["control: the same arguments, keys in another order", { ...APPROVED, effectHash: argsHash({ cwd: "/work", argv: ["rm", "-rf", "build"] }) }, true],
  ["argv changed", { ...APPROVED, effectHash: argsHash({ ...RM_EFFECT, argv: ["rm", "-rf", "/"] }) }, false],
  ["argv reordered", { ...APPROVED, effectHash: argsHash({ ...RM_EFFECT, argv: ["rm", "build", "-rf"] }) }, false],
  ["another working directory", { ...APPROVED, effectHash: argsHash({ ...RM_EFFECT, cwd: "/" }) }, false],
  ["another capability", { ...APPROVED, capability: "http.fetch" }, false],
  ["another tool", { ...APPROVED, tool: "shell.run_script" }, false],
  ["another run", { ...APPROVED, runId: "run_2" }, false],
];

for (const [what, match, matches] of ROWS) {
  test(`effect approval: ${what} → ${matches ? "runs" : "refused"}`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(effectRequest());
      await approvals.decide(request.id, { decision: "approve", by: "alice" });
      assert.equal((await approvals.consumeEffect(match))?.id, matches ? request.id : undefined);
    }));
}

test("effect approval: single use, even for the identical host call (control: the first use runs)", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(effectRequest());
    const decided = await approvals.decide(request.id, { decision: "approve", by: "alice" });
    assert.equal(decided.scope, "once");
    const first = await approvals.consumeEffect(APPROVED);
    assert.equal(first?.status, "used");
    assert.equal(await approvals.consumeEffect(APPROVED), undefined);
  }));

test("effect approval: two racing host calls → exactly one runs", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(effectRequest());
    await approvals.decide(request.id, { decision: "approve", by: "alice" });
    const results = await Promise.all([approvals.consumeEffect(APPROVED), approvals.consumeEffect(APPROVED)]);
    assert.equal(results.filter((r) => r !== undefined).length, 1);
  }));

test("effect approval: scope run is refused with invalid_input on scope and the request stays pending; control: once", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(effectRequest());
    await assert.rejects(approvals.decide(request.id, { decision: "approve", scope: "run", by: "alice" }), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.equal(error.code, "invalid_input");
      assert.equal(error.status, 400);
      assert.equal(error.field, "scope");
      return true;
    });
    assert.equal((await approvals.get(request.id))?.status, "pending");
    assert.equal((await approvals.decide(request.id, { decision: "approve", scope: "once", by: "alice" })).status, "approved");
  }));

test("kinds do not cross: an effect approval runs no ToolCall, a ToolCall approval no effect", () =>
  withHarness(async ({ approvals }) => {
    const effect = await approvals.request(effectRequest());
    await approvals.decide(effect.id, { decision: "approve", by: "alice" });
    const call = { runId: "run_1", stepId: "step_2", tool: "shell.exec", argsHash: effect.argsHash };
    assert.equal(await approvals.consumeToolCall(call), undefined);
    const toolCall = await approvals.request(toolCallRequest({ tool: "shell.exec", stepId: "step_2", input: effect.input }));
    await approvals.decide(toolCall.id, { decision: "approve", scope: "run", by: "alice" });
    assert.equal((await approvals.consumeEffect(APPROVED))?.id, effect.id, "control: the effect approval");
    assert.equal(await approvals.consumeEffect(APPROVED), undefined, "a run ToolCall approval is not an effect approval");
    assert.equal((await approvals.consumeToolCall(call))?.id, toolCall.id, "control: the ToolCall approval");
  }));

test("findDenied: a denied effect is found for the exact host call only", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(effectRequest());
    await approvals.decide(request.id, { decision: "deny", by: "alice" });
    assert.equal((await approvals.findDenied({ kind: "effect", ...APPROVED }))?.id, request.id);
    const other = { kind: "effect" as const, ...APPROVED, effectHash: argsHash({ argv: ["ls"] }) };
    assert.equal(await approvals.findDenied(other), undefined);
  }));

test("an effect request records the full context for the person deciding", () =>
  withHarness(async ({ approvals, clock }) => {
    const a = await approvals.request(effectRequest());
    assert.deepEqual(
      { kind: a.kind, capability: a.capability, effect: a.effect, effectHash: a.effectHash, parentRunId: a.parentRunId, risk: a.risk },
      { kind: "effect", capability: "shell.exec", effect: RM_EFFECT, effectHash: argsHash(RM_EFFECT), parentRunId: "run_0", risk: "unsafe" },
    );
    assert.equal(a.argsHash, argsHash({ command: "rm -rf build" }));
    assert.equal(a.expiresAt, clock.now() + 60 * 60_000);
  }));
