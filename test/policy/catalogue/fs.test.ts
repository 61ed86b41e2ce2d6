import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityCovers, capabilityMatches } from "../../../runtime/policy/catalogue/index.js";
import type { FsRequest } from "../../../runtime/policy/catalogue/index.js";
import { resource } from "./_resource.js";

const OUTER = resource("fs.write", { mounts: [{ guest: "/work", host: "/data/ws" }], allow_sensitive: [".env"] });

// [what, inner mounts, expected failure path or undefined when covered]
const COVERS: [string, { guest: string; host: string; mode?: string }[], string | undefined][] = [
  ["the same mount", [{ guest: "/work", host: "/data/ws" }], undefined],
  ["a subdirectory at the mirrored guest path", [{ guest: "/work/src", host: "/data/ws/src" }], undefined],
  ["a sibling sharing a prefix (/data/ws2)", [{ guest: "/work2", host: "/data/ws2" }], "mounts[0]"],
  ["'..' in the host", [{ guest: "/work/x", host: "/data/ws/../secret" }], "mounts[0]"],
  ["'..' that comes back (/data/ws/../ws/src)", [{ guest: "/work/src", host: "/data/ws/../ws/src" }], "mounts[0]"],
  ["'.' and '//' in the host", [{ guest: "/work/src", host: "/data/ws/./src" }], "mounts[0]"],
  ["a trailing slash", [{ guest: "/work/src", host: "/data/ws/src/" }], "mounts[0]"],
  ["a relative host", [{ guest: "/work/src", host: "ws/src" }], "mounts[0]"],
  ["the parent directory", [{ guest: "/", host: "/data" }], "mounts[0]"],
  ["a remapped guest path", [{ guest: "/src", host: "/data/ws/src" }], "mounts[0]"],
  ["'..' in the guest", [{ guest: "/work/../work/src", host: "/data/ws/src" }], "mounts[0]"],
  ["the second of two mounts", [{ guest: "/work", host: "/data/ws" }, { guest: "/etc", host: "/etc" }], "mounts[1]"],
];

for (const [what, mounts, failure] of COVERS) {
  test(`fs covers: ${what} → ${failure === undefined ? "covered" : `not covered at ${failure}`}`, () => {
    const inner = { mounts: mounts.map((m) => ({ mode: "rw" as const, ...m })) as typeof OUTER.mounts, allow_sensitive: [] };
    const result = capabilityCovers("fs.write", OUTER, inner);
    if (failure === undefined) assert.deepEqual(result, { covered: true });
    else assert.equal(result.covered ? "covered" : result.path, failure);
  });
}

test("fs covers: a remapped guest path says what it must be; control: the mirrored path", () => {
  const result = capabilityCovers("fs.write", OUTER, { mounts: [{ guest: "/src", host: "/data/ws/src", mode: "rw" }], allow_sensitive: [] });
  assert.ok(!result.covered && /guest must be \/work\/src/.test(result.reason), JSON.stringify(result));
});

test("fs covers: rw inside ro is a widening; control: ro inside rw is a narrowing", () => {
  const ro = resource("shell.exec", { mounts: [{ guest: "/work", host: "/data/ws", mode: "ro" }], commands: [{ name: "git" }] });
  const rw = resource("shell.exec", { mounts: [{ guest: "/work", host: "/data/ws", mode: "rw" }], commands: [{ name: "git" }] });
  assert.equal(capabilityCovers("shell.exec", ro, rw).covered, false);
  assert.equal(capabilityCovers("shell.exec", rw, ro).covered, true);
});

test("fs covers: lifting a sensitive name the outer does not lift is a widening; control: the same lift (any case)", () => {
  const base = { mounts: OUTER.mounts };
  assert.deepEqual(capabilityCovers("fs.write", OUTER, { ...base, allow_sensitive: ["*.pem"] }), { covered: false, path: "allow_sensitive[0]", reason: '"*.pem" is not lifted by the wider grant' });
  assert.deepEqual(capabilityCovers("fs.write", OUTER, { ...base, allow_sensitive: [".ENV"] }), { covered: true });
});

const READ = resource("fs.read", { mounts: [{ guest: "/work", host: "/data/ws" }, { guest: "/ref", host: "/data/ref" }] });

// [what, request, capability, reason or undefined for allowed]
const REQUESTS: [string, FsRequest, "fs.read" | "fs.write", string | undefined][] = [
  ["read inside a mount", { op: "read", path: "/work/a.txt" }, "fs.read", undefined],
  ["'..' out of the mount", { op: "read", path: "/work/../etc/passwd" }, "fs.read", "outside-mount"],
  ["'..' that stays inside", { op: "read", path: "/work/src/../a.txt" }, "fs.read", undefined],
  ["'..' across mounts", { op: "read", path: "/work/../ref/a.txt" }, "fs.read", "outside-mount"],
  ["outside every mount", { op: "list", path: "/etc" }, "fs.read", "outside-mount"],
  ["a relative path", { op: "read", path: "work/a.txt" }, "fs.read", "invalid-path"],
  ["a sensitive name", { op: "read", path: "/work/.env" }, "fs.read", "sensitive-name"],
  ["a write needs fs.write", { op: "write", path: "/work/a.txt" }, "fs.read", "not-granted"],
  ["a write on an fs.write grant", { op: "write", path: "/work/a.txt" }, "fs.write", undefined],
  ["a sensitive name lifted by the grant", { op: "write", path: "/work/.env" }, "fs.write", undefined],
  ["a read needs fs.read", { op: "read", path: "/work/a.txt" }, "fs.write", "not-granted"],
];

for (const [what, request, capability, reason] of REQUESTS) {
  test(`fs matches (${capability}): ${what} → ${reason ?? "allow"}`, () => {
    const grant = capability === "fs.read" ? READ : OUTER;
    const decision = capabilityMatches(capability, grant, request);
    if (reason === undefined) assert.deepEqual(decision, { allow: true });
    else assert.equal(decision.allow ? "allow" : decision.denial.reason, reason);
  });
}
