/**
 * Adversarial table: the fs deny list (`.env`, `.ssh`, `*.pem`, …) holds inside shell mounts
 * too — bubblewrap binds a mount whole, so each sensitive entry must be covered. Each attack
 * runs real commands under bwrap beside a control on the same proxy that must still work.
 */
import assert from "node:assert/strict";
import { link, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import type { ExecResult, ShellProxy } from "../../../host-proxies/shell/index.js";
import type { Scratch } from "./_fixtures.js";
import { needsSandbox, proxyFor, rejectsWith, run, scratch } from "./_fixtures.js";

const COMMANDS = ["cat", "ls", "grep", "touch", "rm", "mv", "find"];
const SECRET = "SENSITIVE-CONTENT";
const ok = (r: ExecResult): void => assert.equal(r.exitCode, 0, `exit ${r.exitCode}: ${r.stderr.text}`);
const noSecret = (r: ExecResult): void => assert.doesNotMatch(r.stdout.text, new RegExp(SECRET), r.stdout.text);

const FILES: Record<string, string> = {
  "work/inside.txt": "inside",
  "work/.env": SECRET,
  "work/.ENV.local": SECRET,
  "work/.ssh/id_rsa": SECRET,
  "work/.ssh/config": SECRET,
  "work/sub/deep/server.pem": SECRET,
  "work/sub/deep/notes.md": "notes",
  "work/config/credentials.json": SECRET,
  "work/nested/.SsH/id_ed25519": SECRET,
  "work/tf/prod.tfstate": SECRET,
  "ro/.netrc": SECRET,
  "ro/readme.txt": "readme",
  "inner/.npmrc": SECRET,
  "inner/inner.txt": "inner",
};

interface Row {
  name: string;
  attack: (p: ShellProxy, s: Scratch) => Promise<void>;
  control: (p: ShellProxy, s: Scratch) => Promise<void>;
}

const ROWS: Row[] = [
  {
    name: "cat .env reads nothing; a plain file beside it reads",
    attack: async (p) => noSecret(await run(p, ["cat", ".env"], { cwd: "/work" })),
    control: async (p) => assert.equal((await run(p, ["cat", "inside.txt"], { cwd: "/work" })).stdout.text, "inside"),
  },
  {
    name: "a key inside .ssh is not there; the folder shows empty",
    attack: async (p) => {
      const r = await run(p, ["cat", "/work/.ssh/id_rsa"]);
      assert.notEqual(r.exitCode, 0);
      noSecret(r);
      assert.equal((await run(p, ["ls", "-A", "/work/.ssh"])).stdout.text, "");
    },
    control: async (p) => assert.match((await run(p, ["ls", "-A", "/work"])).stdout.text, /inside\.txt/),
  },
  {
    name: "deep and case-folded names are covered (*.pem, .ENV.local, .SsH, credentials.json, *.tfstate)",
    attack: async (p) => {
      for (const path of ["/work/sub/deep/server.pem", "/work/.ENV.local", "/work/config/credentials.json", "/work/tf/prod.tfstate"]) noSecret(await run(p, ["cat", path]));
      noSecret(await run(p, ["cat", "/work/nested/.SsH/id_ed25519"]));
    },
    control: async (p) => assert.equal((await run(p, ["cat", "/work/sub/deep/notes.md"])).stdout.text, "notes"),
  },
  {
    name: "a recursive grep over every mount finds no secret",
    attack: async (p) => {
      const r = await run(p, ["grep", "-r", "-l", SECRET, "/work", "/ro", "/work/inner"]);
      assert.equal(r.stdout.text, "", `found in: ${r.stdout.text}`);
    },
    control: async (p) => assert.equal((await run(p, ["grep", "-r", "-l", "notes", "/work/sub"])).stdout.text, "/work/sub/deep/notes.md\n"),
  },
  {
    name: "a read-only mount and a nested mount are covered too",
    attack: async (p) => {
      noSecret(await run(p, ["cat", "/ro/.netrc"]));
      noSecret(await run(p, ["cat", "/work/inner/.npmrc"]));
    },
    control: async (p) => {
      assert.equal((await run(p, ["cat", "/ro/readme.txt"])).stdout.text, "readme");
      assert.equal((await run(p, ["cat", "/work/inner/inner.txt"])).stdout.text, "inner");
    },
  },
  {
    name: "a symlink to .env reads the cover, not the file",
    attack: async (p, s) => {
      await symlink(".env", join(s.work, "alias"));
      noSecret(await run(p, ["cat", "/work/alias"]));
    },
    control: async (p, s) => {
      await symlink("inside.txt", join(s.work, "alias2"));
      assert.equal((await run(p, ["cat", "/work/alias2"])).stdout.text, "inside");
    },
  },
  {
    name: "a covered file cannot be moved, removed or rewritten from the rw mount",
    attack: async (p, s) => {
      for (const argv of [["mv", "/work/.env", "/work/moved"], ["rm", "/work/.env"], ["touch", "/work/.env"]]) {
        assert.notEqual((await run(p, argv)).exitCode, 0, argv.join(" "));
      }
      assert.equal(await readFile(join(s.work, ".env"), "utf8"), SECRET, "the host file is untouched");
    },
    control: async (p, s) => {
      ok(await run(p, ["mv", "/work/inside.txt", "/work/moved.txt"]));
      assert.equal(await readFile(join(s.work, "moved.txt"), "utf8"), "inside");
    },
  },
  {
    name: "a sensitive file created after the proxy was bound is covered at the next run",
    attack: async (p, s) => {
      await import("node:fs/promises").then((fs) => fs.writeFile(join(s.work, "late.key"), SECRET));
      noSecret(await run(p, ["cat", "/work/late.key"]));
    },
    control: async (p, s) => {
      await import("node:fs/promises").then((fs) => fs.writeFile(join(s.work, "late.txt"), "late"));
      assert.equal((await run(p, ["cat", "/work/late.txt"])).stdout.text, "late");
    },
  },
];

async function setup(t: TestContext, extra: { maxScanEntries?: number } = {}): Promise<{ s: Scratch; proxy: ShellProxy }> {
  const s = await scratch(t, FILES);
  // The nested mount's host lies outside /work, so only its own walk can find its .npmrc.
  const proxy = await proxyFor(t, s, {
    commands: COMMANDS,
    mounts: [
      { guest: "/work", host: s.work, mode: "rw" },
      { guest: "/ro", host: join(s.base, "ro"), mode: "ro" },
      { guest: "/work/inner", host: join(s.base, "inner"), mode: "ro" },
    ],
    proxy: extra.maxScanEntries === undefined ? {} : { maxScanEntries: extra.maxScanEntries },
  });
  return { s, proxy };
}

test("sensitive names in shell mounts: table", await needsSandbox(), async (t) => {
  for (const row of ROWS) {
    await t.test(row.name, async (tt) => {
      const { s, proxy } = await setup(tt);
      await row.attack(proxy, s);
      await row.control(proxy, s);
    });
  }
});

test("sensitive names in shell mounts: a mount too large to check refuses the run; a cap above its size runs", await needsSandbox(), async (t) => {
  const small = await setup(t, { maxScanEntries: 5 });
  await rejectsWith(run(small.proxy, ["cat", "/work/inside.txt"]), { tag: "denied", reason: "size-cap", message: "more than 5 entries" });
  const large = await setup(t, { maxScanEntries: 1000 });
  assert.equal((await run(large.proxy, ["cat", "/work/inside.txt"])).stdout.text, "inside");
});

test("sensitive names in shell mounts: a hard link to .env under a plain name is covered; a plain file with two names is not", await needsSandbox(), async (t) => {
  const { s, proxy } = await setup(t);
  await link(join(s.work, ".env"), join(s.work, "plain.txt"));
  await link(join(s.work, "sub", "deep", "server.pem"), join(s.work, "sub", "cert.txt"));
  for (const path of ["/work/plain.txt", "/work/sub/cert.txt", "/work/.env"]) noSecret(await run(proxy, ["cat", path]));
  // Control: a harmless file with a second name stays readable (only sensitive content is covered).
  await link(join(s.work, "inside.txt"), join(s.work, "inside-too.txt"));
  assert.equal((await run(proxy, ["cat", "/work/inside-too.txt"])).stdout.text, "inside");
});
