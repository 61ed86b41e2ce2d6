/**
 * The read commands of the shipped CLI read a store they cannot write wherever that comes from —
 * a folder the user may not write (so SQLite cannot put its WAL index beside the file), a
 * read-only bind mount (`:ro`) — and a command that must write says "read-only". A folder whose
 * log holds commits not yet in the file (a writer stopped without checkpointing) cannot be read
 * without writing: that is a clear error, not stale rows. Control: the same store where it can be
 * written. Tests run as root, whom permission bits do not stop: the folder case runs the CLI as
 * `nobody`, the mount case in a mount namespace of its own; each is skipped, saying why, on a
 * machine that cannot make it.
 */
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { chmod, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Runtime } from "../../runtime/index.js";
import { openStore } from "../../runtime/store/index.js";
import { BIN, WRITER } from "../cli/fixtures.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDir } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

const NOBODY = 65534;
let root: string;
let source: string;
let runId: string;

before(async () => {
  root = await tempDir("clawhive-ro-places-");
  await chmod(root, 0o755);
  source = join(root, "source");
  await writeTestSecretKey(source);
  await mkdir(join(root, "agents"), { recursive: true });
  await writeFile(join(root, "agents", "writer.yaml"), WRITER);
  const runtime = await Runtime.create({ dataDir: source, agentsDir: join(root, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } });
  try {
    const agent = await defineTestAgent(runtime, "reader", { plugins: ["probe"] });
    const { run, settled } = await runtime.submitRun({ agent, toolCalls: [{ name: "probe.echo", input: { a: 1 } }] });
    await settled;
    runId = run.id;
  } finally {
    await runtime.close();
  }
  // The copies below take the file alone: everything committed must be in it, none left in a log.
  const store = await openStore({ url: `file:${join(source, "clawhive.db")}` });
  try {
    await store.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    await store.close();
  }
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A copy of the store alone (closed cleanly: no log beside it) in a folder of its own, readable by all. */
async function copyOf(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  await copyFile(join(source, "clawhive.db"), join(dir, "clawhive.db"));
  await chmod(dir, 0o755);
  await chmod(join(dir, "clawhive.db"), 0o644);
  return dir;
}

function env(): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_SERVER", "CLAWHIVE_TOKEN", "CLAWHIVE_AGENTS_DIR"]) delete clean[name];
  return clean;
}

const COMMANDS: Array<{ args: string[]; out?: () => RegExp }> = [
  { args: ["runs", "list"], out: () => new RegExp(runId) },
  { args: ["audit", "verify"], out: () => /^ok: \d+ records/m },
  { args: ["approvals", "list", "--status", "all"], out: () => /no approvals/ },
];
/** A run of the `writer` agent (files plugin, its workspace in the data dir): it must write. */
const WRITE = ["run", "writer", "look around", "--call", `files.list_dir={"path":"/workspace"}`];

interface Place {
  label: string;
  /** Why this machine cannot make the place, if it cannot. */
  skip(): string | undefined;
  make(): Promise<string>;
  /** Runs the CLI with `args` on the place's data dir. */
  cli(dir: string, args: string[]): { status: number | null; stdout: string; stderr: string };
}

const asNobody = (dir: string, args: string[]) => run(process.execPath, [BIN, ...args, "--data-dir", dir], process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {});
const inReadOnlyMount = (dir: string, args: string[]) => {
  // The folder is bound read-only over itself, in a mount namespace that ends with the command.
  const script = `mount --bind -o ro "$1" "$1" && shift && exec "$@"`;
  return run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh", dir, process.execPath, BIN, ...args, "--data-dir", dir], {});
};

function run(command: string, args: string[], extra: SpawnSyncOptions): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 300_000, env: env(), ...extra });
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const PLACES: Place[] = [
  {
    label: "a folder the user may not write (the CLI as another user)",
    skip: () => {
      if (process.getuid?.() !== 0) return undefined;
      const probe = run(process.execPath, ["-e", `require("node:fs").accessSync(${JSON.stringify(BIN)})`], { uid: NOBODY, gid: NOBODY });
      return probe.status === 0 ? undefined : `user ${NOBODY} cannot read ${BIN} here: ${probe.stderr.trim().split("\n")[0] ?? ""}`;
    },
    make: async () => {
      const dir = await copyOf("folder");
      await chmod(dir, 0o555);
      return dir;
    },
    cli: asNobody,
  },
  {
    label: "a read-only bind mount",
    skip: () => {
      // Decided when the suite is declared, before `root` exists: a folder of its own.
      const probeDir = mkdtempSync(join(tmpdir(), "clawhive-ro-mount-"));
      try {
        const probe = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", `mount --bind -o ro "${probeDir}" "${probeDir}"`], { encoding: "utf8" });
        return probe.status === 0 ? undefined : `no mount namespace here (unshare/mount: ${String(probe.stderr).trim() || String(probe.error)})`;
      } finally {
        rmSync(probeDir, { recursive: true, force: true });
      }
    },
    make: () => copyOf("mount"),
    cli: inReadOnlyMount,
  },
];

for (const place of PLACES) {
  const skip = place.skip();
  describe(`a store in ${place.label}`, skip === undefined ? {} : { skip }, () => {
    let dir: string;
    before(async () => {
      dir = await place.make();
    });
    for (const command of COMMANDS) {
      it(`clawhive ${command.args.join(" ")} reads it (exit 0)`, () => {
        const result = place.cli(dir, command.args);
        assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
        if (command.out) assert.match(`${result.stdout}${result.stderr}`, command.out());
        assert.doesNotMatch(result.stderr, /unable to open|read-only|readonly/i);
      });
    }
    it("clawhive run, which must write, says read-only (exit 1)", () => {
      const result = place.cli(dir, [...WRITE, "--agents", join(root, "agents")]);
      assert.equal(result.status, 1, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stderr, /is read-only/);
    });
  });
}

describe("control: the same store where it can be written", () => {
  it("reads it and runs on it", async () => {
    const dir = await copyOf("writable");
    for (const command of COMMANDS) {
      const result = run(process.execPath, [BIN, ...command.args, "--data-dir", dir], {});
      assert.equal(result.status, 0, result.stderr);
      if (command.out) assert.match(`${result.stdout}${result.stderr}`, command.out());
    }
    await writeTestSecretKey(dir);
    const ran = run(process.execPath, [BIN, ...WRITE, "--agents", join(root, "agents"), "--data-dir", dir], {});
    assert.equal(ran.status, 0, ran.stderr);
  });
});

describe("a read-only folder whose log holds commits not yet in the file", PLACES[0]!.skip() === undefined ? {} : { skip: PLACES[0]!.skip()! }, () => {
  it("is a clear error naming the log, never rows read without it", async () => {
    const dir = await copyOf("logged");
    // A writer that has not checkpointed: its commit is in the -wal only, and no -shm is copied.
    const writer = await openStore({ url: `file:${join(source, "clawhive.db")}` });
    try {
      await writer.execute("PRAGMA wal_autocheckpoint = 0");
      await writer.execute({ sql: "UPDATE runs SET task = 'in the log only' WHERE id = ?", args: [runId] });
      await copyFile(join(source, "clawhive.db"), join(dir, "clawhive.db"));
      await copyFile(join(source, "clawhive.db-wal"), join(dir, "clawhive.db-wal"));
    } finally {
      await writer.close();
    }
    await chmod(join(dir, "clawhive.db"), 0o644);
    await chmod(join(dir, "clawhive.db-wal"), 0o644);
    await chmod(dir, 0o555);
    const result = asNobody(dir, ["runs", "list"]);
    assert.equal(result.status, 1, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, /has a log of commits not yet in the file .*open it once where its folder is writable/);
  });
});
