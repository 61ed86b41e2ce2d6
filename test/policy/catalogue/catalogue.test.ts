import assert from "node:assert/strict";
import { test } from "node:test";
import * as v from "valibot";
import { CAPABILITY_CATALOGUE, CAPABILITY_NAMES, CapabilityGrantSchema, grantCovers } from "../../../runtime/policy/catalogue/index.js";
import type { CapabilityGrant } from "../../../runtime/policy/catalogue/index.js";

// DESIGN: reads Safe, writes Guarded, shell Unsafe. The rest are choices, justified in riskReason.
const DEFAULTS = {
  "fs.read": "safe",
  "fs.write": "guarded",
  "shell.exec": "unsafe",
  "http.fetch": "guarded",
  "gmail.read": "safe",
  "calendar.read": "safe",
  "calendar.add": "guarded",
  "mail.send": "guarded",
  "message.send": "guarded",
  kv: "safe",
  log: "safe",
  "agent.spawn": "safe",
  memory: "guarded",
  schedule: "guarded",
} as const;

test("catalogue: every entry is filed under its own name with a description and a reason for its risk", () => {
  assert.deepEqual([...CAPABILITY_NAMES].sort(), Object.keys(DEFAULTS).sort());
  for (const name of CAPABILITY_NAMES) {
    const entry = CAPABILITY_CATALOGUE[name];
    assert.equal(entry.name, name);
    assert.ok(entry.description.length > 10 && entry.riskReason.length > 10, name);
    assert.equal(entry.defaultRisk, DEFAULTS[name], name);
  }
});

test("grant schema: an unknown capability is refused with the list of known ones; control: a known one parses", () => {
  const bad = v.safeParse(CapabilityGrantSchema, { "fs.exec": {} });
  assert.equal(bad.success, false);
  assert.match(bad.issues?.[0]?.message ?? "", /^unknown capability "fs.exec"; expected one of: fs.read, fs.write/);
  assert.equal(v.safeParse(CapabilityGrantSchema, { log: {} }).success, true);
});

const mounts = (host: string, guest = "/work") => ({ mounts: [{ guest, host, mode: "ro" as const }], allow_sensitive: [] });
const OUTER: CapabilityGrant = { "fs.read": mounts("/data/ws"), log: { per_minute: 60 } };

// [what, inner, failure path or undefined when covered]
const GRANTS: [string, CapabilityGrant, string | undefined][] = [
  ["nothing", {}, undefined],
  ["a narrower mount", { "fs.read": mounts("/data/ws/src", "/work/src") }, undefined],
  ["a capability the outer lacks", { "fs.read": mounts("/data/ws"), "fs.write": { mounts: [{ guest: "/work", host: "/data/ws", mode: "rw" }], allow_sensitive: [] } }, "fs.write"],
  ["a wider resource", { "fs.read": mounts("/data") }, "fs.read.mounts[0]"],
  ["a higher log rate", { log: { per_minute: 61 } }, "log.per_minute"],
];

for (const [what, inner, failure] of GRANTS) {
  test(`grantCovers: ${what} → ${failure ?? "covered"}`, () => {
    const result = grantCovers(OUTER, inner);
    if (failure === undefined) assert.deepEqual(result, { covered: true });
    else assert.equal(result.covered ? "covered" : result.path, failure);
  });
}
