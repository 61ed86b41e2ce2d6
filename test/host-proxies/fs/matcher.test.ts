import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalizeFsPath, DEFAULT_SENSITIVE_NAMES, FS_DENIAL_REASONS, matchFsOp } from "../../../host-proxies/fs/index.js";
import type { FsGrantOptions, FsMount, FsOp } from "../../../host-proxies/fs/index.js";

const MOUNTS: FsMount[] = [
  { guest: "/work", host: "/h/work", mode: "rw" },
  { guest: "/ref", host: "/h/ref", mode: "ro" },
];

function decide(op: FsOp, path: string, grant: FsGrantOptions = {}) {
  return matchFsOp(op, canonicalizeFsPath(path, MOUNTS, { op }), grant);
}

function assertDenied(op: FsOp, path: string, reason: string, grant: FsGrantOptions = {}): void {
  const decision = decide(op, path, grant);
  assert.equal(decision.allow, false, `${op} ${path} should be denied`);
  if (decision.allow) return;
  assert.equal(decision.denial.reason, reason);
  const capability = op === "read" || op === "list" || op === "stat" ? "fs.read" : "fs.write";
  assert.equal(decision.denial.capability, capability);
  assert.ok(decision.denial.message.startsWith(`${canonicalizeFsPath(path, MOUNTS).guest}: `), decision.denial.message);
}

function assertAllowed(op: FsOp, path: string, grant: FsGrantOptions = {}): void {
  assert.deepEqual(decide(op, path, grant), { allow: true }, `${op} ${path} should be allowed`);
}

test("reason codes are stable kebab-case strings", () => {
  for (const reason of Object.values(FS_DENIAL_REASONS)) assert.match(reason, /^[a-z]+(-[a-z]+)*$/);
  assert.equal(FS_DENIAL_REASONS.readOnlyMount, "read-only-mount");
  assert.equal(FS_DENIAL_REASONS.sensitiveName, "sensitive-name");
  assert.equal(FS_DENIAL_REASONS.outsideMount, "outside-mount");
});

const OPS: [FsOp, "allowed" | "read-only-mount"][] = [
  ["read", "allowed"],
  ["list", "allowed"],
  ["stat", "allowed"],
  ["write", "read-only-mount"],
  ["remove", "read-only-mount"],
  ["mkdir", "read-only-mount"],
];

for (const [op, onReadOnly] of OPS) {
  test(`matchFsOp: ${op} on an ro mount is ${onReadOnly}; control: on an rw mount it is allowed`, () => {
    if (onReadOnly === "allowed") assertAllowed(op, "/ref/notes.md");
    else {
      assertDenied(op, "/ref/notes.md", "read-only-mount");
      // The refusal says how to make it writable.
      const decision = decide(op, "/ref/notes.md");
      assert.match(decision.allow ? "" : decision.denial.message, /--mount \/ref=DIR:rw .*grants\.fs\.write\.mounts/);
    }
    assertAllowed(op, "/work/notes.md");
  });
}

/** A name each pattern matches: `*` becomes `x`. */
const sampleName = (pattern: string): string => pattern.replaceAll("*", "x");

for (const pattern of DEFAULT_SENSITIVE_NAMES) {
  const name = sampleName(pattern);
  test(`matchFsOp: sensitive ${JSON.stringify(name)} is denied; control: allowSensitive [${JSON.stringify(pattern)}] lifts it`, () => {
    assertDenied("read", `/work/${name}`, "sensitive-name");
    assertDenied("write", `/work/${name}`, "sensitive-name");
    assertAllowed("read", `/work/${name}`, { allowSensitive: [pattern] });
    assertAllowed("write", `/work/sub/${name}`, { allowSensitive: [pattern.toUpperCase()] });
  });
}

// Names that look like the list but are not on it: the deny list must not eat ordinary files.
const NOT_SENSITIVE = ["ssh", "env", "environment.ts", "env.example", "keys", "key.txt", "pem", "README.md", "my_credentials.md", "id.txt", "history"];

const SENSITIVE_VARIANTS: [string, string][] = [
  ["upper case directory", "/work/.SSH/config"],
  ["mixed case key", "/work/Id_RSA"],
  ["upper case extension", "/work/certs/Server.PEM"],
  ["compatibility form folds to .ssh (long s)", "/work/.\u017Fsh/id"],
  ["any segment: under a sensitive directory", "/work/.ssh/known_hosts"],
  ["any segment: sensitive directory deep down", "/work/a/b/.aws/config"],
  ["any segment: .env in a project", "/work/proj/.env"],
  [".env variant", "/work/proj/.env.production"],
  ["shell history", "/work/.bash_history"],
  ["public key matches id_rsa* (conservative)", "/work/id_rsa.pub"],
];

for (const [description, path] of SENSITIVE_VARIANTS) {
  test(`matchFsOp: sensitive ${description} (${path}); control: ordinary names`, () => {
    assertDenied("read", path, "sensitive-name");
    assertDenied("list", path, "sensitive-name");
    assertDenied("stat", path, "sensitive-name");
    for (const name of NOT_SENSITIVE) assertAllowed("read", `/work/proj/${name}`);
  });
}

test("matchFsOp: allowSensitive by guest path lifts that one entry, nothing else", () => {
  const grant = { allowSensitive: ["/work/proj/.env", "/work/.ssh"] };
  assertAllowed("read", "/work/proj/.env", grant);
  assertAllowed("read", "/work/.ssh/known_hosts", grant);
  assertDenied("read", "/work/other/.env", "sensitive-name", grant);
  assertDenied("read", "/work/proj/.env.local", "sensitive-name", grant);
  // A lifted directory does not lift a sensitive name inside it.
  assertDenied("read", "/work/.ssh/id_rsa", "sensitive-name", grant);
  // Prefix by segment, not by string.
  assertDenied("read", "/work/.ssh/config", "sensitive-name", { allowSensitive: ["/work/.ss"] });
});

test("matchFsOp: a name matching two patterns needs both lifted", () => {
  assertDenied("read", "/work/id_rsa.pem", "sensitive-name", { allowSensitive: ["*.pem"] });
  assertDenied("read", "/work/id_rsa.pem", "sensitive-name", { allowSensitive: ["id_rsa*"] });
  assertAllowed("read", "/work/id_rsa.pem", { allowSensitive: ["*.pem", "id_rsa*"] });
  assertAllowed("read", "/work/id_rsa.pem", { allowSensitive: ["/work/id_rsa.pem"] });
});

test("matchFsOp: read-only is reported before sensitive-name", () => {
  assertDenied("write", "/ref/.env", "read-only-mount");
  assertDenied("read", "/ref/.env", "sensitive-name");
});

test("matchFsOp: the mount's own guest path is not checked against the deny list", () => {
  // The operator chose to mount it; only what the guest names inside is matched.
  const mounts: FsMount[] = [{ guest: "/.aws", host: "/h", mode: "rw" }];
  const decision = matchFsOp("read", canonicalizeFsPath("/.aws/config", mounts), {});
  assert.deepEqual(decision, { allow: true });
});
