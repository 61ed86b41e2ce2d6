/**
 * Dangerous combinations: each fails validation with its id and how to acknowledge it, passes
 * once acknowledged (and is still reported as a warning), and a near miss does not fire.
 */
import assert from "node:assert/strict";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import type { DangerId } from "../../runtime/agents/index.js";
import { assertManifestError, baseManifest, dataDir, parseObject, withField } from "./_fixtures.js";
import type { DataDir } from "./_fixtures.js";

type Grants = Record<string, unknown>;

/** Guest paths mirror the data dir (`./other` → `/other`): one guest path, one directory. */
const guestFor = (host: string): string => (host.startsWith("./") ? `/${host.slice(2)}` : "/up");
const shell = (host: string, extra: Record<string, unknown> = {}) => ({
  mounts: [{ guest: guestFor(host), host, mode: "rw" }],
  commands: [{ name: "git", subcommands: ["status"] }],
  ...extra,
});
const write = (host: string) => ({ mounts: [{ guest: guestFor(host), host }] });
const gmail = { labels: ["INBOX"] };

interface Row {
  name: string;
  id: DangerId;
  /** Grants that trip the danger, and the path the error names. */
  dangerous: (d: DataDir) => Grants;
  at: string;
  /** A near miss: the same shape, no danger. */
  control: (d: DataDir) => Grants;
}

/** Commands that run other programs, each granted once (with and without `runs_programs`). */
const RUNNERS: Array<[string, Record<string, unknown>]> = [
  ...["sh", "bash", "dash", "zsh", "python", "python3", "python3.12", "node", "perl", "ruby", "env", "busybox", "xargs", "awk", "timeout"].map(
    (name): [string, Record<string, unknown>] => [name, { name }],
  ),
  ["python3 with runs_programs", { name: "python3", runs_programs: true }],
  ["any command with runs_programs (npm)", { name: "npm", subcommands: ["test"], runs_programs: true }],
  ["an unknown name with runs_programs", { name: "mytool", runs_programs: true }],
];

const ROWS: Row[] = [
  {
    name: "fs.write and shell.exec on the same dir",
    id: "fs-write-shell-same-mount",
    dangerous: () => ({ "fs.write": write("./workspace"), "shell.exec": shell("./workspace") }),
    at: "grants.shell.exec.mounts[0]",
    control: () => ({ "fs.write": write("./workspace"), "shell.exec": shell("./other") }),
  },
  {
    name: "fs.write and shell.exec where one dir is under the other",
    id: "fs-write-shell-same-mount",
    dangerous: () => ({ "fs.write": write("./workspace/src"), "shell.exec": shell("./workspace", { mounts: [{ guest: "/workspace", host: "./workspace", mode: "ro" }] }) }),
    at: "grants.shell.exec.mounts[0]",
    control: () => ({ "fs.write": write("./workspace/src") }),
  },
  {
    name: "fs.write and shell.exec through a symlink to the same dir",
    id: "fs-write-shell-same-mount",
    dangerous: () => ({ "fs.write": write("./workspace"), "shell.exec": shell("./link-to-workspace") }),
    at: "grants.shell.exec.mounts[0]",
    control: () => ({ "fs.write": write("./workspace"), "shell.exec": shell("./link-to-other") }),
  },
  {
    name: "fs.write on the data dir itself",
    id: "fs-write-runtime-files",
    dangerous: () => ({ "fs.write": write(".") }),
    at: "grants.fs.write.mounts[0].host",
    control: () => ({ "fs.write": write("./workspace") }),
  },
  {
    name: "a rw shell mount above the data dir",
    id: "fs-write-runtime-files",
    dangerous: (d) => ({ "shell.exec": shell(join(d.base, "..")) }),
    at: "grants.shell.exec.mounts[0].host",
    control: (d) => ({ "shell.exec": shell(join(d.base, ".."), { mounts: [{ guest: "/up", host: join(d.base, ".."), mode: "ro" }] }) }),
  },
  {
    name: "gmail.read with http.fetch to any host",
    id: "mail-read-open-network",
    dangerous: () => ({ "gmail.read": gmail, "http.fetch": { hosts: ["api.example.com", "*"] } }),
    at: "grants.http.fetch.hosts[1]",
    control: () => ({ "gmail.read": gmail, "http.fetch": { hosts: ["api.example.com", "*.example.com"] } }),
  },
  {
    name: "gmail.read with http.fetch to a whole top-level domain",
    id: "mail-read-open-network",
    dangerous: () => ({ "gmail.read": gmail, "http.fetch": { hosts: ["*.com"] } }),
    at: "grants.http.fetch.hosts[0]",
    control: () => ({ "http.fetch": { hosts: ["*.com"] } }),
  },
  {
    name: "gmail.read with shell.exec",
    id: "mail-read-shell",
    dangerous: () => ({ "gmail.read": gmail, "shell.exec": shell("./other") }),
    at: "grants.shell.exec",
    control: () => ({ "gmail.read": gmail, "fs.write": write("./workspace") }),
  },
  {
    name: "gmail.read with schedule",
    id: "mail-read-schedule",
    dangerous: () => ({ "gmail.read": gmail, schedule: { max_schedules: 1, agents: ["a"] } }),
    at: "grants.schedule",
    control: () => ({ "calendar.read": { calendars: ["primary"] }, schedule: { max_schedules: 1, agents: ["a"] } }),
  },
  {
    name: "shell.exec without the sandbox",
    id: "shell-without-sandbox",
    dangerous: () => ({ "shell.exec": shell("./other", { sandbox: false }) }),
    at: "grants.shell.exec.sandbox",
    control: () => ({ "shell.exec": shell("./other", { sandbox: true }) }),
  },
  ...RUNNERS.map(([name, rule]): Row => ({
    name: `shell.exec granting ${name}`,
    id: "shell-program-runner",
    dangerous: () => ({ "shell.exec": shell("./other", { commands: [{ name: "git", subcommands: ["status"] }, rule] }) }),
    at: "grants.shell.exec.commands[1]",
    control: () => ({ "shell.exec": shell("./other", { commands: [{ name: "git", subcommands: ["status"] }, { name: "grep" }] }) }),
  })),
];

async function setup(t: TestContext): Promise<DataDir> {
  const d = await dataDir(t);
  await symlink(d.workspace, join(d.base, "link-to-workspace"));
  await symlink(d.other, join(d.base, "link-to-other"));
  return d;
}

const manifest = (grants: Grants, acknowledge: DangerId[] = []) =>
  withField(withField(baseManifest(), ["grants"], grants), ["acknowledge"], acknowledge);

for (const row of ROWS) {
  test(`danger ${row.id}: ${row.name} fails until acknowledged; control: a near miss passes`, async (t) => {
    const d = await setup(t);
    const error = assertManifestError(() => parseObject(manifest(row.dangerous(d)), d.base), row.at, new RegExp(`^dangerous combination ${row.id}: `));
    assert.match(error.message, new RegExp(`acknowledge it in this manifest: acknowledge: \\[${row.id}\\]`));
    const accepted = parseObject(manifest(row.dangerous(d), [row.id]), d.base);
    assert.ok(accepted.warnings.some((w) => w.id === row.id && w.path === row.at), "an acknowledged danger is still reported");
    const near = parseObject(manifest(row.control(d)), d.base);
    assert.deepEqual(near.warnings.map((w) => w.id), []);
  });
}

test("danger: acknowledging one id does not accept another", async (t) => {
  const d = await setup(t);
  const both = { "gmail.read": gmail, "shell.exec": shell("./other", { sandbox: false }) };
  assertManifestError(() => parseObject(manifest(both, ["mail-read-shell"]), d.base), "grants.shell.exec.sandbox", /shell-without-sandbox/);
  const ok = parseObject(manifest(both, ["mail-read-shell", "shell-without-sandbox"]), d.base);
  assert.deepEqual(ok.warnings.map((w) => w.id).sort(), ["mail-read-shell", "shell-without-sandbox"]);
});
