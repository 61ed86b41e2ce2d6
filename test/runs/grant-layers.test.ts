import assert from "node:assert/strict";
import { test } from "node:test";
import type { CapabilityGrant } from "../../runtime/policy/catalogue/index.js";
import type { PolicyLayers } from "../../runtime/policy/engine.js";
import { callTimeoutNotes, effectiveMounts, logPerMinute } from "../../runtime/runs/grant-limits.js";
import { environmentZone } from "../../runtime/runs/loop/request.js";

const ro = (guest: string, host: string) => ({ "fs.read": { mounts: [{ guest, host, mode: "ro" }] } }) as unknown as CapabilityGrant;
const rw = (guest: string, host: string) => ({ ...ro(guest, host), "fs.write": { mounts: [{ guest, host, mode: "rw" }] } }) as unknown as CapabilityGrant;
const layers = (agent: CapabilityGrant, extra: Partial<PolicyLayers> = {}): PolicyLayers => ({ agent: { name: "a", grants: agent }, ...extra });
const shown = (l: PolicyLayers) => effectiveMounts(l).map((m) => `${m.guest}=${m.host}:${m.mode}`).sort();

const cases: Array<{ name: string; layers: PolicyLayers; expect: string[] }> = [
  { name: "control: the agent alone", layers: layers(rw("/w", "/d/w")), expect: ["/w=/d/w:rw"] },
  { name: "task makes it read-only", layers: layers(rw("/w", "/d/w"), { task: ro("/w", "/d/w") }), expect: ["/w=/d/w:ro"] },
  { name: "task narrows to a subfolder", layers: layers(rw("/w", "/d/w"), { task: rw("/w/s", "/d/w/s") }), expect: ["/w/s=/d/w/s:rw"] },
  { name: "a parent narrower than the child", layers: layers(rw("/w", "/d/w"), { parents: [{ name: "p", grants: ro("/w/s", "/d/w/s") }] }), expect: ["/w/s=/d/w/s:ro"] },
  { name: "a parent elsewhere leaves nothing", layers: layers(rw("/w", "/d/w"), { parents: [{ name: "p", grants: ro("/x", "/d/x") }] }), expect: [] },
  { name: "a remapped guest path is not the same folder", layers: layers(rw("/w", "/d/w"), { task: ro("/other", "/d/w") }), expect: [] },
  { name: "an elevation stands in for the task", layers: layers(rw("/w", "/d/w"), { task: ro("/w", "/d/w"), elevation: rw("/w", "/d/w") }), expect: ["/w=/d/w:rw"] },
];
for (const c of cases) test(`effective mounts: ${c.name}`, () => assert.deepEqual(shown(c.layers), c.expect));

test("log.per_minute: the lowest layer holds; 120 when none names one", () => {
  const log = (n: number) => ({ log: { per_minute: n } }) as unknown as CapabilityGrant;
  assert.equal(logPerMinute(layers({} as CapabilityGrant)), 120);
  assert.equal(logPerMinute(layers(log(100), { task: log(10), parents: [{ name: "p", grants: log(50) }] })), 10);
  assert.equal(logPerMinute(layers(log(100), { parents: [{ name: "p", grants: log(5) }] })), 5);
});

test("an agent whose call deadline is over the operator's cap gets a note; control: one at the cap gets none", () => {
  const agents = [
    { name: "greedy", limits: { call_timeout_ms: 600_000 } },
    { name: "fine", limits: { call_timeout_ms: 60_000 } },
  ];
  const notes = callTimeoutNotes(agents, 60_000);
  assert.equal(notes.length, 1);
  assert.match(notes[0]!, /agent greedy: limits.call_timeout_ms 600000 is above sandbox.max_call_timeout_ms 60000/);
});

test("the prompt's environment lists the run's mounts, not the agent's wider ones", () => {
  const agent = { name: "a", grants: rw("/w", "/d/w") } as never;
  const zone = environmentZone(agent, { tools: [], now: 0, mounts: effectiveMounts(layers(rw("/w", "/d/w"), { task: ro("/w/s", "/d/w/s") })) });
  assert.ok(zone.includes("folder /w/s: read only"));
  assert.ok(!zone.some((line) => line.startsWith("folder /w:")));
});
