import assert from "node:assert/strict";
import { test } from "node:test";
import { argsHash, ApprovalStore } from "../../../runtime/policy/approvals/index.js";
import { openStore } from "../../../runtime/store/index.js";
import { tempDir } from "../../store/temp-store.js";
import { effectRequest, MINUTE, RM_EFFECT, testClock, toolCallRequest, WRITE_ARGS } from "./_fixtures.js";

test("pending approvals survive a reopen of a file store and can be decided and consumed after it", async () => {
  const dir = await tempDir("clawhive-approvals-");
  const clock = testClock();
  const open = async () => {
    const store = await openStore({ url: dir.url(), clock });
    return { store, approvals: await ApprovalStore.open(store, { clock, expiryMinutes: 60 }) };
  };
  try {
    const first = await open();
    const call = await first.approvals.request(toolCallRequest());
    const effect = await first.approvals.request(effectRequest());
    await first.store.close();

    clock.advance(10 * MINUTE);
    const second = await open();
    assert.deepEqual((await second.approvals.pendingForRun("run_1")).map((a) => a.id), [call.id, effect.id]);
    assert.equal((await second.approvals.request(toolCallRequest())).id, call.id, "dedupe holds across the reopen");
    await second.approvals.decide(call.id, { decision: "approve", by: "alice" });
    await second.approvals.decide(effect.id, { decision: "approve", by: "alice" });
    const toolMatch = { runId: "run_1", stepId: "step_1", tool: "files.write_file", argsHash: argsHash(WRITE_ARGS) };
    const effectMatch = { runId: "run_1", tool: "shell.exec", capability: "shell.exec", effectHash: argsHash(RM_EFFECT) };
    assert.equal((await second.approvals.consumeToolCall(toolMatch))?.id, call.id);
    await second.store.close();

    const third = await open();
    assert.equal(await third.approvals.consumeToolCall(toolMatch), undefined, "a spent approval stays spent");
    assert.equal((await third.approvals.consumeEffect(effectMatch))?.id, effect.id, "control: the approved effect is still usable");
    assert.equal((await third.approvals.get(call.id))?.status, "used");
    await third.store.close();
  } finally {
    await dir.remove();
  }
});

test("racing deciders through the client driver on a file: exactly one wins", async () => {
  const dir = await tempDir("clawhive-approvals-");
  const clock = testClock();
  const store = await openStore({ url: dir.url(), clock, driver: "client" });
  try {
    const approvals = await ApprovalStore.open(store, { clock });
    const request = await approvals.request(toolCallRequest());
    const results = await Promise.allSettled([
      approvals.decide(request.id, { decision: "approve", by: "alice" }),
      approvals.decide(request.id, { decision: "deny", by: "bob" }),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  } finally {
    await store.close();
    await dir.remove();
  }
});
