/**
 * Mount roots are shared between the proxies of later runs (shared-roots.ts), yet each proxy is
 * bound to the directory its host path names when the proxy is created: a path renamed,
 * replaced, removed, or led into a forbidden root between two runs is seen by the second run
 * exactly as a fresh open would see it. Each refusal sits beside a control that is served.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import { createMountHostGuard } from "../../../host-proxies/fs/host-path.js";
import { closeIdleRoots, IDLE_ROOTS_MAX } from "../../../host-proxies/fs/shared-roots.js";
import { InvalidInputError } from "../../../runtime/errors.js";
import { scratch, text } from "./_fixtures.js";

const openFds = async () => (await readdir("/proc/self/fd")).length;

test("a second proxy on an unchanged host path shares the first one's root (no new descriptor)", async (t) => {
  const s = await scratch(t, { "work/a.txt": "A" });
  const first = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }]);
  const before = await openFds();
  const second = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }]);
  assert.equal(await openFds(), before);
  assert.equal(text(await second.read("/work/a.txt")), "A");
  await first.close();
  assert.equal(text(await second.read("/work/a.txt")), "A", "closing one proxy leaves the shared root to the other");
  await second.close();
  await closeIdleRoots();
});

type Change = (s: { base: string; work: string; outside: string }) => Promise<void>;
const CASES: Array<{ name: string; change: Change; guard?: (base: string) => string[]; expect: { read: string } | { refused: RegExp } }> = [
  { name: "control: nothing changed", change: async () => {}, expect: { read: "A" } },
  {
    name: "renamed away, a new directory at the path",
    change: async (s) => {
      await rename(s.work, join(s.base, "old"));
      await mkdir(s.work);
      await writeFile(join(s.work, "a.txt"), "NEW");
    },
    expect: { read: "NEW" },
  },
  {
    name: "replaced by a symlink to another allowed directory",
    change: async (s) => {
      await rename(s.work, join(s.base, "old"));
      await mkdir(join(s.base, "other"));
      await writeFile(join(s.base, "other", "a.txt"), "OTHER");
      await symlink(join(s.base, "other"), s.work);
    },
    expect: { read: "OTHER" },
  },
  {
    name: "replaced by a symlink to a forbidden root",
    change: async (s) => {
      await rename(s.work, join(s.base, "old"));
      await symlink("/etc", s.work);
    },
    expect: { refused: /refused: the host directory is, contains or lies inside/ },
  },
  {
    name: "renamed away, nothing at the path",
    change: async (s) => rename(s.work, join(s.base, "old")),
    expect: { refused: /host directory does not exist/ },
  },
  {
    name: "control: the same directory moved into an allowed folder, the path a symlink to it",
    change: async (s) => {
      await mkdir(join(s.base, "allowed"));
      await rename(s.work, join(s.base, "allowed", "work"));
      await symlink(join(s.base, "allowed", "work"), s.work);
    },
    guard: (base) => [join(base, "forbidden")],
    expect: { read: "A" },
  },
  {
    name: "the same directory moved into a forbidden root, the path a symlink to it",
    change: async (s) => {
      await mkdir(join(s.base, "forbidden"));
      await rename(s.work, join(s.base, "forbidden", "work"));
      await symlink(join(s.base, "forbidden", "work"), s.work);
    },
    guard: (base) => [join(base, "forbidden")],
    expect: { refused: /refused: the host directory is, contains or lies inside/ },
  },
];

for (const c of CASES) {
  test(`host path ${c.name} between two runs: the second run sees what a fresh open sees`, async (t) => {
    const s = await scratch(t, { "work/a.txt": "A" });
    const hostGuard = c.guard ? createMountHostGuard({ runtimePaths: c.guard(s.base).map((path) => ({ path, what: "a forbidden test folder" })) }) : undefined;
    const mounts = [{ guest: "/work", host: s.work, mode: "ro" as const }];
    const first = await createFsProxy(mounts, { hostGuard });
    await c.change(s);
    try {
      if ("read" in c.expect) {
        const second = await createFsProxy(mounts, { hostGuard });
        assert.equal(text(await second.read("/work/a.txt")), c.expect.read);
        await second.close();
      } else {
        await assert.rejects(createFsProxy(mounts, { hostGuard }), (e: unknown) => e instanceof InvalidInputError && c.expect && "refused" in c.expect && c.expect.refused.test(e.message));
      }
      // The first run keeps the directory it was bound to, whatever became of the path.
      assert.equal(text(await first.read("/work/a.txt")), "A");
    } finally {
      await first.close();
      await closeIdleRoots();
    }
  });
}

test(`idle roots are closed beyond ${IDLE_ROOTS_MAX}, and all of them on closeIdleRoots`, async (t) => {
  const s = await scratch(t);
  await closeIdleRoots();
  const before = await openFds();
  for (let i = 0; i < IDLE_ROOTS_MAX + 10; i++) {
    const dir = join(s.base, `d${i}`);
    await mkdir(dir);
    await (await createFsProxy([{ guest: "/w", host: dir, mode: "ro" }])).close();
  }
  assert.equal(await openFds(), before + IDLE_ROOTS_MAX);
  await closeIdleRoots();
  assert.equal(await openFds(), before);
});

/**
 * A mount table checked once is not walked again for the next run (mounts.ts): what may change
 * between runs is where each host path leads, decided again on every proxy. Each case runs a
 * proxy on the table (so it is known and its root idles, shared), changes the host path with no
 * proxy holding it, and opens the table again; beside it, a table never seen before (another
 * guest name) after the same change must get the same answer.
 */
const AFTER_CACHING: Array<{ name: string; change: Change; guard?: (base: string) => string[]; expect: { read: string } | { refused: RegExp } }> = [
  { name: "control: nothing changed", change: async () => {}, expect: { read: "A" } },
  {
    name: "replaced by a symlink to /etc",
    change: async (s) => {
      await rename(s.work, join(s.base, "old"));
      await symlink("/etc", s.work);
    },
    expect: { refused: /refused: the host directory is, contains or lies inside/ },
  },
  {
    name: "replaced by a symlink to /proc/self",
    change: async (s) => {
      await rename(s.work, join(s.base, "old"));
      await symlink("/proc/self", s.work);
    },
    expect: { refused: /refused: the host directory is, contains or lies inside/ },
  },
  {
    name: "replaced by a symlink to another directory inside a forbidden root",
    change: async (s) => {
      await mkdir(join(s.base, "forbidden", "inner"), { recursive: true });
      await writeFile(join(s.base, "forbidden", "inner", "a.txt"), "FORBIDDEN");
      await rename(s.work, join(s.base, "moved"));
      await symlink(join(s.base, "forbidden", "inner"), s.work);
    },
    guard: (base) => [join(base, "forbidden")],
    expect: { refused: /refused: the host directory is, contains or lies inside/ },
  },
  {
    // The path leads to the very directory the shared root holds: only the decision on where
    // that directory lies now refuses it.
    name: "the same directory moved into a forbidden root, the path a symlink to it",
    change: async (s) => {
      await mkdir(join(s.base, "forbidden"));
      await rename(s.work, join(s.base, "forbidden", "work"));
      await symlink(join(s.base, "forbidden", "work"), s.work);
    },
    guard: (base) => [join(base, "forbidden")],
    expect: { refused: /refused: the host directory is, contains or lies inside/ },
  },
  {
    name: "control: replaced by a symlink to an allowed directory",
    change: async (s) => {
      await rename(s.work, join(s.base, "old"));
      await mkdir(join(s.base, "other"));
      await writeFile(join(s.base, "other", "a.txt"), "OTHER");
      await symlink(join(s.base, "other"), s.work);
    },
    expect: { read: "OTHER" },
  },
];

for (const c of AFTER_CACHING) {
  test(`a known mount table whose host path is ${c.name}: answered as a table never seen`, async (t) => {
    const s = await scratch(t, { "work/a.txt": "A" });
    const hostGuard = c.guard ? createMountHostGuard({ runtimePaths: c.guard(s.base).map((path) => ({ path, what: "a forbidden test folder" })) }) : undefined;
    const known = [{ guest: "/work", host: s.work, mode: "ro" as const }];
    const unseen = [{ guest: "/unseen", host: s.work, mode: "ro" as const }];
    await (await createFsProxy(known, { hostGuard })).close();
    await (await createFsProxy(known, { hostGuard })).close();
    await c.change(s);
    try {
      for (const [mounts, guest] of [[known, "/work"], [unseen, "/unseen"]] as const) {
        if ("read" in c.expect) {
          const proxy = await createFsProxy(mounts, { hostGuard });
          assert.equal(text(await proxy.read(`${guest}/a.txt`)), c.expect.read);
          await proxy.close();
        } else {
          const refused = c.expect.refused;
          await assert.rejects(createFsProxy(mounts, { hostGuard }), (e: unknown) => e instanceof InvalidInputError && refused.test(e.message), `${guest}: refused`);
        }
      }
    } finally {
      await closeIdleRoots();
    }
  });
}

test("a mount table refused once is checked whole again: fixed, it is served", async (t) => {
  const s = await scratch(t, { "elsewhere/a.txt": "A" });
  const mounts = [{ guest: "/work", host: join(s.base, "link"), mode: "ro" as const }];
  await symlink("/etc", join(s.base, "link"));
  await assert.rejects(createFsProxy(mounts), (e: unknown) => e instanceof InvalidInputError && /refused/.test(e.message));
  await rm(join(s.base, "link"));
  await symlink(join(s.base, "elsewhere"), join(s.base, "link"));
  const proxy = await createFsProxy(mounts);
  assert.equal(text(await proxy.read("/work/a.txt")), "A");
  await proxy.close();
  await closeIdleRoots();
});
