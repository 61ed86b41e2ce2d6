/** An approval holds at most MAX_APPROVAL_ARGS_BYTES of arguments; its context is cut, not refused. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApprovalError, MAX_APPROVAL_ARGS_BYTES, MAX_APPROVAL_CONTEXT_BYTES } from "../../../runtime/policy/approvals/index.js";
import type { ApprovalRequestInput } from "../../../runtime/policy/approvals/index.js";
import { effectRequest, toolCallRequest, withHarness } from "./_fixtures.js";

const text = (bytes: number) => "a".repeat(bytes);
/** Canonical JSON of `{"text":"…"}` adds 11 bytes. */
const args = (bytes: number) => ({ text: text(bytes - 11) });

const rows: Array<[string, ApprovalRequestInput, boolean]> = [
  ["tool_call input just over the cap", toolCallRequest({ input: args(MAX_APPROVAL_ARGS_BYTES + 1) }), false],
  ["tool_call input at the cap (control)", toolCallRequest({ input: args(MAX_APPROVAL_ARGS_BYTES) }), true],
  ["tool_call input of 42 MB", toolCallRequest({ input: args(42 * 1024 * 1024) }), false],
  ["multi-byte text over the cap in bytes, not in characters", toolCallRequest({ input: { text: "é".repeat(MAX_APPROVAL_ARGS_BYTES / 2 + 10) } }), false],
  ["effect whose input and effect together pass the cap", effectRequest({ input: args(MAX_APPROVAL_ARGS_BYTES / 2 + 100), effect: args(MAX_APPROVAL_ARGS_BYTES / 2 + 100) }), false],
  ["effect under the cap (control)", effectRequest({ input: args(1000), effect: args(1000) }), true],
];

for (const [label, request, filed] of rows) {
  test(`approval size: ${label} is ${filed ? "filed" : "refused"}`, () =>
    withHarness(async ({ approvals }) => {
      if (filed) {
        const approval = await approvals.request(request);
        assert.equal(approval.status, "pending");
        return;
      }
      await assert.rejects(approvals.request(request), (error: unknown) => {
        assert.ok(error instanceof ApprovalError);
        assert.equal(error.code, "approval_too_large");
        assert.equal(error.status, 413);
        assert.match(error.message, /over the \d+ bytes an approval may hold/);
        return true;
      });
      assert.deepEqual(await approvals.list(), [], "nothing was filed");
    }));
}

test("approval size: a long context is cut to its cap, marked, and the approval filed", () =>
  withHarness(async ({ approvals }) => {
    const approval = await approvals.request(toolCallRequest({ context: "ü".repeat(MAX_APPROVAL_CONTEXT_BYTES) }));
    assert.ok(Buffer.byteLength(approval.context ?? "") <= MAX_APPROVAL_CONTEXT_BYTES);
    assert.match(approval.context ?? "", /… \(cut: the model's text was longer\)$/);
    const short = await approvals.request(toolCallRequest({ stepId: "step_2", context: "Please save my notes." }));
    assert.equal(short.context, "Please save my notes.");
  }));
