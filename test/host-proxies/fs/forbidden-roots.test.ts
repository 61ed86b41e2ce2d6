/**
 * Adversarial table: mount hosts that name the kernel, the machine's configuration, private
 * dot-folders or the runtime's own state — directly, through a symlink, a child, a parent that
 * contains them, `..` spellings and trailing slashes — each refused, beside controls that pass.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { checkMountHost, createFsProxy, createMountHostGuard } from "../../../host-proxies/fs/index.js";
import type { MountHostGuard } from "../../../host-proxies/fs/index.js";
import { InvalidInputError } from "../../../runtime/errors.js";

let base = "";
let guard: MountHostGuard;
const at = (rel: string): string => `${base}/${rel}`;

before(async () => {
  base = await mkdtemp(join(tmpdir(), "clawhive-roots-"));
  for (const dir of ["data/workspace", "data/mail", "data/agents", "cache/build", "install/node_modules", "home/.ssh", "home/.config/gh", "home/projects", "keys", "elsewhere/sub", "data2"]) {
    await mkdir(at(dir), { recursive: true });
  }
  for (const file of ["data/clawhive.db", "data/clawhive.db-wal", "data/clawhive.db-shm", "data/secret.key", "keys/other.key", "home/.ssh/id_ed25519"]) await writeFile(at(file), "x");
  const links: Array<[string, string]> = [
    ["to-proc", "/proc"],
    ["to-proc-self", "/proc/self"],
    ["to-etc", "/etc"],
    ["to-var-run", "/var/run"],
    ["to-root", "/"],
    ["to-data", at("data")],
    ["to-ssh", at("home/.ssh")],
    ["to-cache", at("cache/build")],
    ["to-elsewhere", at("elsewhere")],
    ["dangling-proc", "/proc/clawhive-no-such-entry"],
    ["relative-up", "../../../../../../../../etc"],
    ["data/workspace/escape", "/proc"],
  ];
  for (const [name, target] of links) await symlink(target, at(name));
  guard = createMountHostGuard({
    dataDir: at("data"),
    storeFile: at("data/clawhive.db"),
    keyFile: at("keys/other.key"),
    buildCacheDir: at("cache/build"),
    installDir: at("install"),
    home: at("home"),
    runtimePaths: [
      { path: at("data/mail"), what: "the runtime's Maildir" },
      { path: at("data/agents"), what: "the agents' memory files" },
    ],
  });
});
after(() => rm(base, { recursive: true, force: true }));

/** [name, host (a function of the scratch base), the root the refusal must name] */
const DENIED: Array<[string, () => string, RegExp]> = [
  ["/ itself", () => "/", /\/ is the whole host filesystem/],
  ["/ spelled //", () => "//", /the whole host filesystem/],
  ["/proc", () => "/proc", /\/proc is the kernel's process table/],
  ["/proc/ with a trailing slash", () => "/proc/", /kernel's process table/],
  ["/proc spelled ///proc/./", () => "///proc/./", /kernel's process table/],
  ["a child of /proc", () => "/proc/1", /lies inside \/proc/],
  ["/proc via a .. spelling", () => `${at("elsewhere")}/../../../../../../../../proc`, /\/proc/],
  ["/sys", () => "/sys", /\/sys/],
  ["a child of /sys", () => "/sys/kernel", /lies inside \/sys/],
  ["/dev", () => "/dev", /\/dev/],
  ["/dev/shm", () => "/dev/shm", /lies inside \/dev/],
  ["/boot", () => "/boot", /\/boot/],
  ["/run", () => "/run", /\/run/],
  ["/var/run (a symlink to /run)", () => "/var/run", /resolved: \/run/],
  ["/etc", () => "/etc", /\/etc/],
  ["a child of /etc", () => "/etc/ssl", /lies inside \/etc/],
  ["/root", () => "/root", /\/root/],
  ["a parent containing /proc (/)", () => `${at("elsewhere")}/../../../..//../../../..`, /whole host filesystem/],
  ["a symlink to /proc", () => at("to-proc"), /resolved: \/proc\)/],
  ["a symlink to /proc with a trailing slash", () => `${at("to-proc")}/`, /resolved: \/proc\)/],
  ["a child through a symlink to /proc", () => `${at("to-proc")}/self/fd`, /lies inside \/proc/],
  ["a symlink's .. (kernel order, not lexical)", () => `${at("to-proc-self")}/..`, /resolved: \/proc\)/],
  ["a symlink to /etc", () => at("to-etc"), /resolved: \/etc\)/],
  ["a symlink to /var/run", () => at("to-var-run"), /resolved: \/run\)/],
  ["a symlink to /", () => at("to-root"), /whole host filesystem/],
  ["a dangling symlink into /proc", () => at("dangling-proc"), /lies inside \/proc/],
  ["a relative symlink climbing to /etc", () => at("relative-up"), /resolved: \/etc\)/],
  ["a symlink inside the workspace pointing at /proc", () => at("data/workspace/escape"), /\/proc/],
  ["the data dir", () => at("data"), /the runtime's data dir/],
  ["the data dir with a trailing slash", () => `${at("data")}/`, /the runtime's data dir/],
  ["the data dir via workspace/..", () => `${at("data/workspace")}/..`, /the runtime's data dir/],
  ["a symlink to the data dir", () => at("to-data"), /the runtime's data dir/],
  ["a parent containing the data dir", () => base, /contains .*data/],
  ["the store file", () => at("data/clawhive.db"), /the runtime's store/],
  ["the store's WAL", () => at("data/clawhive.db-wal"), /store \(wal file\)/],
  ["the store's shared memory", () => at("data/clawhive.db-shm"), /store \(shm file\)/],
  ["the secret key file", () => at("keys/other.key"), /secret key file/],
  ["a folder containing the secret key file", () => at("keys"), /contains .*secret key file/],
  ["the build cache", () => at("cache/build"), /plugin build cache/],
  ["a child of the build cache", () => at("cache/build/some-plugin"), /lies inside .*build cache/],
  ["a parent containing the build cache", () => at("cache"), /contains .*build cache/],
  ["a symlink to the build cache", () => at("to-cache"), /build cache/],
  ["the install folder", () => at("install"), /install folder/],
  ["a child of the install folder", () => at("install/node_modules"), /lies inside .*install folder/],
  ["the Maildir inside the data dir", () => at("data/mail"), /Maildir/],
  ["the agents' memory inside the data dir", () => at("data/agents"), /memory files/],
  ["$HOME/.ssh", () => at("home/.ssh"), /dot-folders/],
  ["$HOME/.ssh/ with a trailing slash", () => `${at("home/.ssh")}/`, /dot-folders/],
  ["a child of a dot-folder", () => at("home/.config/gh"), /lies inside .*\.config/],
  ["a dot-folder that does not exist yet", () => at("home/.aws"), /dot-folders/],
  ["$HOME (contains its dot-folders)", () => at("home"), /contains .*\/\.\*/],
  ["$HOME via projects/..", () => `${at("home/projects")}/..`, /dot-folders/],
  ["a symlink to $HOME/.ssh", () => at("to-ssh"), /dot-folders/],
];

const ALLOWED: Array<[string, () => string, () => string]> = [
  ["a folder of its own", () => at("elsewhere"), () => at("elsewhere")],
  ["its child, with a trailing slash", () => `${at("elsewhere/sub")}/`, () => at("elsewhere/sub")],
  ["a symlink to a folder of its own", () => at("to-elsewhere"), () => at("elsewhere")],
  ["the workspace inside the data dir", () => at("data/workspace"), () => at("data/workspace")],
  ["a workspace folder not created yet", () => at("data/workspace/new"), () => at("data/workspace/new")],
  ["a sibling whose name extends the data dir's", () => at("data2"), () => at("data2")],
  ["a folder in $HOME that is not a dot-folder", () => at("home/projects"), () => at("home/projects")],
];

for (const [name, host, why] of DENIED) {
  test(`refused: ${name}`, () => {
    const result = checkMountHost(host(), guard);
    assert.equal(result.ok, false, `${host()} should be refused`);
    if (!result.ok) {
      assert.match(result.message, /^refused: /);
      assert.match(result.message, why);
      assert.match(result.message, /a mount may not (be, contain or lie inside|be or contain) it/);
    }
  });
}

for (const [name, host, canonical] of ALLOWED) {
  test(`allowed (control): ${name}`, () => {
    assert.deepEqual(checkMountHost(host(), guard), { ok: true, host: canonical() });
  });
}

test("relative and NUL-bearing hosts are refused, never resolved against the cwd", () => {
  for (const host of ["proc", "./data", "/tmp/a\0b"]) assert.equal(checkMountHost(host, guard).ok, false, host);
});

test("a data dir inside $HOME/.x or the install folder excuses only what lies inside it", () => {
  const inHome = createMountHostGuard({ dataDir: at("home/.clawhive"), home: at("home"), installDir: at("install") });
  assert.equal(checkMountHost(at("home/.clawhive/workspace"), inHome).ok, true);
  assert.equal(checkMountHost(at("home/.clawhive"), inHome).ok, false);
  assert.equal(checkMountHost(at("home/.ssh"), inHome).ok, false);
  const inInstall = createMountHostGuard({ dataDir: at("install/.clawhive"), installDir: at("install") });
  assert.equal(checkMountHost(at("install/.clawhive/workspace"), inInstall).ok, true);
  assert.equal(checkMountHost(at("install/node_modules"), inInstall).ok, false);
  // A data dir of / excuses nothing: /root still lies inside /root.
  const wholeDisk = createMountHostGuard({ dataDir: "/" });
  assert.equal(checkMountHost("/root/.ssh", wholeDisk).ok, false);
  assert.equal(checkMountHost(at("elsewhere"), wholeDisk).ok, true);
  // Under /root (a runtime run as root), the workspace in its data dir passes; /root itself does not.
  const asRoot = createMountHostGuard({ dataDir: "/root/.clawhive-test-data", home: "/root" });
  assert.equal(checkMountHost("/root/.clawhive-test-data/workspace", asRoot).ok, true);
  assert.equal(checkMountHost("/root/.ssh", asRoot).ok, false);
  assert.equal(checkMountHost("/root/notes", asRoot).ok, false);
});

test("a symlink loop is refused with a clear reason", async () => {
  await symlink(at("loop-b"), at("loop-a"));
  await symlink(at("loop-a"), at("loop-b"));
  const result = checkMountHost(at("loop-a"), guard);
  assert.deepEqual(result.ok ? undefined : result.message, `refused: ${at("loop-a")} has a symlink loop`);
});

test("the fs proxy refuses a forbidden host even without the runtime's guard, naming the mount not the path", async () => {
  for (const host of ["/proc", at("to-proc"), "/etc"]) {
    await assert.rejects(createFsProxy([{ guest: "/work", host, mode: "ro" }]), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.equal(error.field, "mounts[0].host");
      assert.match(error.message, /^mounts\[0\]\.host \(\/work\): refused: /);
      assert.doesNotMatch(error.message, new RegExp(base));
      return true;
    });
  }
  await assert.rejects(createFsProxy([{ guest: "/work", host: at("data"), mode: "ro" }], { hostGuard: guard }), /data dir/);
  // Control: the same proxy options over a folder of its own.
  const proxy = await createFsProxy([{ guest: "/work", host: at("elsewhere"), mode: "ro" }], { hostGuard: guard });
  assert.deepEqual(await proxy.mounts(), [{ guest: "/work", mode: "ro" }]);
  await proxy.close();
});

/**
 * Every forbidden root in every spelling: itself, with a trailing slash, through `child/..`,
 * through a symlink to it (and that symlink with a trailing slash), a child of it, and its
 * parent (which contains it). The control beside each: a sibling folder of its own.
 */
const ROOTS: Array<[label: string, path: () => string]> = [
  ["/proc", () => "/proc"],
  ["/sys", () => "/sys"],
  ["/dev", () => "/dev"],
  ["/boot", () => "/boot"],
  ["/run", () => "/run"],
  ["/etc", () => "/etc"],
  ["/root", () => "/root"],
  ["the data dir", () => at("data")],
  ["the store file", () => at("data/clawhive.db")],
  ["the store's -wal", () => at("data/clawhive.db-wal")],
  ["the store's -shm", () => at("data/clawhive.db-shm")],
  ["the secret key file", () => at("keys/other.key")],
  ["the build cache", () => at("cache/build")],
  ["the install folder", () => at("install")],
  ["a $HOME dot-folder", () => at("home/.ssh")],
  ["the Maildir", () => at("data/mail")],
  ["the agents' memory", () => at("data/agents")],
];

for (const [label, path] of ROOTS) {
  test(`every spelling of ${label} is refused`, async () => {
    const root = path();
    const link = at(`link-${label.replace(/[^a-z0-9]+/gi, "-")}`);
    await symlink(root, link);
    const spellings = [root, `${root}/`, `${root}//`, `${root}/./`, `${root}/child/..`, link, `${link}/`, join(root, "..")];
    for (const spelling of spellings) {
      const result = checkMountHost(spelling, guard);
      assert.equal(result.ok, false, `${spelling} (${label}) should be refused`);
    }
    // What lies inside: refused, except in the data dir, where workspaces live.
    for (const spelling of [`${root}/child`, `${link}/child`]) {
      assert.equal(checkMountHost(spelling, guard).ok, label === "the data dir", `${spelling} (${label})`);
    }
  });
}

test("control beside every root: a folder of its own, by path, with a trailing slash and through a symlink", async () => {
  await symlink(at("elsewhere/sub"), at("link-control"));
  for (const spelling of [at("elsewhere/sub"), `${at("elsewhere/sub")}/`, `${at("elsewhere")}/./sub`, at("link-control"), `${at("link-control")}/`, `${at("elsewhere/sub")}/new/..`]) {
    assert.deepEqual(checkMountHost(spelling, guard), { ok: true, host: at("elsewhere/sub") }, spelling);
  }
});
