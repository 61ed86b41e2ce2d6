/**
 * canonicalizeExec: the request shape, argv[0], cwd, timeout and stdin. Every refused row has a
 * control beside it on the same grant. Nothing runs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { canonicalizeExec, MAX_ARGC, MAX_ARG_BYTES } from "../../../host-proxies/shell/index.js";
import type { ExecRequest, ResolvedShellGrant } from "../../../host-proxies/shell/index.js";
import type { Expected } from "./_fixtures.js";
import { grantFor, scratch, script, throwsWith } from "./_fixtures.js";

const PROGRAMS = ["git", "cat", "sh", "python3", "xargs", "env", "awk", "timeout"];

async function setup(t: TestContext, options: { allowProgramRunners?: string[] } = {}): Promise<ResolvedShellGrant> {
  const s = await scratch(t);
  for (const name of PROGRAMS) await script(s.bin, name, "#!/bin/sh\nexit 0\n");
  return grantFor({
    commands: PROGRAMS,
    mounts: [{ guest: "/work", host: s.work, mode: "rw" }, { guest: "/work/ro", host: s.outside, mode: "ro" }, { guest: "/data", host: s.outside, mode: "ro" }],
    resolve: { searchPath: s.bin, maxTimeoutMs: 5_000, defaultTimeoutMs: 1_000, ...options },
  });
}

interface Row {
  name: string;
  attack: ExecRequest;
  expected: Expected;
  control: ExecRequest;
}

const INVALID: Expected = { tag: "invalid-input" };
const denied = (reason: string): Expected => ({ tag: "denied", reason });

const ROWS: Row[] = [
  { name: "empty argv", attack: { argv: [] }, expected: INVALID, control: { argv: ["cat"] } },
  { name: "argv not a list", attack: { argv: "cat x" as unknown as string[] }, expected: INVALID, control: { argv: ["cat", "x"] } },
  { name: "non-string argument", attack: { argv: ["cat", 1 as unknown as string] }, expected: INVALID, control: { argv: ["cat", "1"] } },
  { name: "NUL truncation in an argument", attack: { argv: ["cat", "ok.txt\0/etc/passwd"] }, expected: INVALID, control: { argv: ["cat", "ok.txt"] } },
  { name: "NUL in argv[0]", attack: { argv: ["cat\0sh"] }, expected: INVALID, control: { argv: ["cat"] } },
  { name: "lone surrogate (encoded as U+FFFD)", attack: { argv: ["cat", "a\uD800b"] }, expected: INVALID, control: { argv: ["cat", "a\u{1F600}b"] } },
  { name: "too many arguments", attack: { argv: ["cat", ...Array<string>(MAX_ARGC).fill("x")] }, expected: INVALID, control: { argv: ["cat", ...Array<string>(MAX_ARGC - 1).fill("x")] } },
  { name: "one argument too long", attack: { argv: ["cat", "x".repeat(MAX_ARG_BYTES + 1)] }, expected: INVALID, control: { argv: ["cat", "x".repeat(MAX_ARG_BYTES)] } },
  { name: "argv too long in total", attack: { argv: ["cat", ...Array<string>(5).fill("x".repeat(MAX_ARG_BYTES))] }, expected: INVALID, control: { argv: ["cat", ...Array<string>(3).fill("x".repeat(MAX_ARG_BYTES))] } },
  { name: "argv[0] absolute path to a shell", attack: { argv: ["/bin/sh", "-c", "id"] }, expected: denied("command-path"), control: { argv: ["cat"] } },
  { name: "argv[0] absolute path to a granted program", attack: { argv: ["/usr/bin/git", "status"] }, expected: denied("command-path"), control: { argv: ["git", "status"] } },
  { name: "argv[0] ./x", attack: { argv: ["./cat"] }, expected: denied("command-path"), control: { argv: ["cat"] } },
  { name: "argv[0] ../x", attack: { argv: ["../bin/cat"] }, expected: denied("command-path"), control: { argv: ["cat"] } },
  { name: "argv[0] not granted", attack: { argv: ["rm", "-rf", "/work"] }, expected: denied("command-not-allowed"), control: { argv: ["cat"] } },
  { name: "argv[0] differs in case", attack: { argv: ["CAT"] }, expected: denied("command-not-allowed"), control: { argv: ["cat"] } },
  { name: "argv[0] with trailing space", attack: { argv: ["cat "] }, expected: denied("command-not-allowed"), control: { argv: ["cat"] } },
  { name: "shell as a command", attack: { argv: ["sh", "-c", "id"] }, expected: denied("dangerous-command"), control: { argv: ["cat"] } },
  { name: "interpreter as a command", attack: { argv: ["python3", "-c", "1"] }, expected: denied("dangerous-command"), control: { argv: ["cat"] } },
  { name: "xargs runs its argv", attack: { argv: ["xargs", "sh"] }, expected: denied("dangerous-command"), control: { argv: ["cat"] } },
  { name: "env runs its argv", attack: { argv: ["env", "sh"] }, expected: denied("dangerous-command"), control: { argv: ["cat"] } },
  { name: "awk system()", attack: { argv: ["awk", "BEGIN{system(\"id\")}"] }, expected: denied("dangerous-command"), control: { argv: ["cat"] } },
  { name: "timeout runs its argv", attack: { argv: ["timeout", "1", "sh"] }, expected: denied("dangerous-command"), control: { argv: ["cat"] } },
  { name: "cwd outside every mount", attack: { argv: ["cat"], cwd: "/etc" }, expected: denied("cwd-outside-mount"), control: { argv: ["cat"], cwd: "/work" } },
  { name: "cwd '..' out of the mount", attack: { argv: ["cat"], cwd: "/work/../etc" }, expected: denied("cwd-outside-mount"), control: { argv: ["cat"], cwd: "/work/sub/.." } },
  { name: "cwd '..' out and back in", attack: { argv: ["cat"], cwd: "/work/../work" }, expected: denied("cwd-outside-mount"), control: { argv: ["cat"], cwd: "/work/." } },
  { name: "cwd '..' from a nested mount into its parent", attack: { argv: ["cat"], cwd: "/work/ro/../x" }, expected: denied("cwd-outside-mount"), control: { argv: ["cat"], cwd: "/work/ro/x" } },
  { name: "cwd as a host path", attack: { argv: ["cat"], cwd: "/tmp" }, expected: denied("cwd-outside-mount"), control: { argv: ["cat"], cwd: "/data" } },
  { name: "cwd relative", attack: { argv: ["cat"], cwd: "work" }, expected: INVALID, control: { argv: ["cat"], cwd: "/work" } },
  { name: "cwd with NUL", attack: { argv: ["cat"], cwd: "/work\0/x" }, expected: INVALID, control: { argv: ["cat"], cwd: "/work/x" } },
  { name: "timeout above the grant's limit", attack: { argv: ["cat"], timeoutMs: 5_001 }, expected: denied("timeout-limit"), control: { argv: ["cat"], timeoutMs: 5_000 } },
  { name: "timeout zero", attack: { argv: ["cat"], timeoutMs: 0 }, expected: INVALID, control: { argv: ["cat"], timeoutMs: 1 } },
  { name: "timeout fractional", attack: { argv: ["cat"], timeoutMs: 1.5 }, expected: INVALID, control: { argv: ["cat"], timeoutMs: 2 } },
  { name: "stdin above the cap", attack: { argv: ["cat"], stdin: new Uint8Array(1025) }, expected: denied("size-cap"), control: { argv: ["cat"], stdin: new Uint8Array(1024) } },
  { name: "stdin not bytes", attack: { argv: ["cat"], stdin: "text" as unknown as Uint8Array }, expected: INVALID, control: { argv: ["cat"], stdin: new Uint8Array([116]) } },
];

test("canonicalize: table", async (t) => {
  const grant = await setup(t);
  for (const row of ROWS) {
    await t.test(row.name, () => {
      throwsWith(() => canonicalizeExec(row.attack, { grant, maxStdinBytes: 1024 }), row.expected);
      assert.ok(canonicalizeExec(row.control, { grant, maxStdinBytes: 1024 }), "control: accepted");
    });
  }
});

test("canonicalize: the canonical value", async (t) => {
  const grant = await setup(t);
  const stdin = new Uint8Array([1, 2, 3]);
  const c = canonicalizeExec({ argv: ["cat", "-n", "f"], cwd: "/work/a/./b/../c", stdin }, { grant });
  assert.equal(c.command.name, "cat");
  assert.match(c.command.path, /^\/.*\/bin\/cat$/);
  assert.deepEqual(c.argv, ["cat", "-n", "f"]);
  assert.equal(c.cwd?.guest, "/work/a/c");
  assert.deepEqual(c.cwd?.segments, ["a", "c"]);
  assert.equal(c.timeoutMs, 1_000, "the grant's default timeout");
  stdin[0] = 9;
  assert.deepEqual([...(c.stdin ?? [])], [1, 2, 3], "stdin is copied: later changes do not reach the effect");
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.argv));
  assert.equal(canonicalizeExec({ argv: ["cat"] }, { grant }).cwd?.guest, "/work", "default cwd: the first mount");
  assert.equal(canonicalizeExec({ argv: ["cat"], cwd: "/work/ro/x" }, { grant }).cwd?.mount.spec.guest, "/work/ro", "the longest mount wins");
  assert.equal(canonicalizeExec({ argv: ["cat"] }, { grant, mounts: [] }).cwd, undefined, "no mount: the private HOME");
});

test("canonicalize: an acknowledged program runner is allowed; others stay refused", async (t) => {
  const grant = await setup(t, { allowProgramRunners: ["python3"] });
  assert.equal(canonicalizeExec({ argv: ["python3", "-c", "1"] }, { grant }).command.name, "python3");
  throwsWith(() => canonicalizeExec({ argv: ["sh", "-c", "id"] }, { grant }), denied("dangerous-command"));
});
