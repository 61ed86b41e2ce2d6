/**
 * The memory proxy behind the host-call handler, with a fake audit log: what a guest can and
 * cannot do whatever it sends (a read-only tool that writes, fields that try to set trust,
 * malformed arguments).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { agentMemoryBinding } from "../../../host-proxies/memory/index.js";
import type { HostCallResult } from "../../../host-proxies/types.js";
import type { AuditLog } from "../../../runtime/audit/index.js";
import { MemoryStore } from "../../../runtime/memory/index.js";
import type { PluginManifest } from "../../../runtime/plugins/manifest.js";
import { createHostContext, type ActiveToolCall, type HostContext } from "../../../runtime/runs/host-context.js";
import { openStore, type Store } from "../../../runtime/store/index.js";

let store: Store;
let memory: MemoryStore;
let tainted = false;
const denials: string[] = [];

const plugin: PluginManifest = {
  name: "memory",
  version: "0.1.0",
  description: "test",
  publisher: "test",
  format: "component",
  source: "src/index.ts",
  capabilities: ["memory"],
  tools: { recall: { risk: "safe" }, remember: { risk: "guarded" } },
};
const audit = {
  appendIntent: async () => ({ seq: 1 }),
  appendOutcome: async () => undefined,
  appendDenial: async (subject: { denial: { reason: string } }) => void denials.push(subject.denial.reason),
} as unknown as AuditLog;

let active: ActiveToolCall | undefined;
let context: HostContext;

before(async () => {
  store = await openStore({ url: ":memory:" });
  memory = await MemoryStore.open(store);
  context = await createHostContext({
    layers: { agent: { name: "keeper", grants: { memory: { read: ["agent"], write: ["agent"] } } } },
    mounts: [],
    allowSensitive: [],
    audit,
    subject: () => ({ traceId: "t", runId: "r", taskId: "k", parentRunId: null, agent: "keeper" }),
    active: () => active,
    approveEffect: async () => false,
    memory: { memory: async () => memory, agent: agentMemoryBinding(["keeper"]), tainted: async () => tainted, markTainted: async () => void (tainted = true) },
    onLog: () => {},
  });
});
after(async () => {
  await context.close();
  await store.close();
});

const as = (tool: "recall" | "remember"): ActiveToolCall => ({
  tool: { plugin, name: tool, capabilities: ["memory"] },
  qualifiedName: `memory.${tool}`,
  toolCallId: "c1",
  stepId: "s1",
  risk: "guarded",
});
const call = (fn: string, args: unknown[]): Promise<HostCallResult> => context.handler({ iface: "memory", fn, args });
const reason = (r: HostCallResult) => (!r.ok && r.error.tag === "denied" ? r.error.val.reason : !r.ok ? r.error.tag : "ok");

test("a tool its plugin declares read-only cannot write, whatever it sends; control: the Guarded tool writes", async () => {
  active = as("recall");
  assert.equal(reason(await call("write", ["note from a read-only tool", {}])), "read-only-tool");
  assert.equal(reason(await call("search", ["note", {}])), "ok");
  active = as("remember");
  const written = await call("write", ["note from remember", {}]);
  assert.equal(reason(written), "ok");
  assert.equal((await memory.search("keeper", "note")).length, 1);
});

test("the guest cannot set trust: extra fields are ignored and the run's mark decides", async () => {
  active = as("remember");
  tainted = true;
  assert.equal(reason(await call("write", ["Tainted pelican note", { untrusted: false, source: "person", scope: undefined }])), "ok");
  tainted = false;
  assert.equal(reason(await call("write", ["Clean pelican note", { untrusted: true }])), "ok");
  const hits = await memory.search("keeper", "pelican", { k: 5 });
  assert.deepEqual(Object.fromEntries(hits.map((h) => [h.text.split(" ")[0], [h.untrusted, h.source]])), { Tainted: [true, "model"], Clean: [false, "model"] });
});

test("malformed arguments are refused at the edge", async () => {
  active = as("remember");
  const cases: Array<[string, unknown[], string]> = [
    ["search", [42, {}], "invalid-input"],
    ["search", ["q"], "invalid-input"],
    ["search", ["q", { k: "5" }], "invalid-input"],
    ["search", ["q", { k: 2.5 }], "invalid-input"],
    ["search", ["", {}], "invalid-input"],
    ["search", ["q", { scope: 7 }], "invalid-input"],
    ["write", ["x", null], "invalid-input"],
    ["write", ["x", { title: 5 }], "invalid-input"],
    ["write", ["x".repeat(32 * 1024 + 1), {}], "invalid-input"],
    ["forget", ["x"], "unknown-function"],
  ];
  for (const [fn, args, expected] of cases) assert.equal(reason(await call(fn, args)), expected, `${fn} ${JSON.stringify(args).slice(0, 60)}`);
});

test("no call is served outside a tool call", async () => {
  active = undefined;
  assert.equal(reason(await call("search", ["q", {}])), "no-tool-call");
});
