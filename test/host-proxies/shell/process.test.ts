/**
 * Running: deadlines kill the whole process group (also children that ignore SIGTERM), output
 * floods cost bounded memory, stdin and exit status pass through. Sandboxed and direct.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { test } from "node:test";
import type { TestContext } from "node:test";
import type { SandboxInfo, ShellProxy } from "../../../host-proxies/shell/index.js";
import { bytes, needsSandbox, proxyFor, run, scratch, script } from "./_fixtures.js";

const NO_BWRAP: SandboxInfo = { available: false, bwrapPath: "/nonexistent/bwrap", reason: "test: no bwrap" };

/** Host processes whose command line contains `tag`. */
async function processesWith(tag: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(tag)) found.push(Number(entry));
  }
  return found;
}

async function gone(tag: string): Promise<void> {
  for (let i = 0; i < 400 && (await processesWith(tag)).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.deepEqual(await processesWith(tag), [], `processes tagged ${tag} outlived the call`);
}

/** A script that ignores SIGTERM and leaves a grandchild sleeping with a unique argument. */
async function stubborn(t: TestContext, mode: "sandbox" | "direct"): Promise<{ proxy: ShellProxy; tag: string }> {
  const s = await scratch(t);
  const tag = `86399.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  await script(s.bin, "stubborn", `#!/bin/sh\ntrap '' TERM\nsleep ${tag} &\nsleep ${tag}\n`);
  await script(s.bin, "background", `#!/bin/sh\nsleep ${tag} &\necho started\n`);
  const proxy = await proxyFor(t, s, {
    commands: ["stubborn", "background", "sleep"],
    sandbox: mode === "sandbox",
    resolve: { searchPath: `${s.bin}:/usr/bin:/bin` },
    proxy: mode === "direct" ? { sandbox: NO_BWRAP } : {},
  });
  return { proxy, tag };
}

for (const mode of ["sandbox", "direct"] as const) {
  const options = mode === "sandbox" ? await needsSandbox() : {};

  test(`process (${mode}): a deadline kills the whole group, SIGTERM-proof children included`, options, async (t) => {
    const { proxy, tag } = await stubborn(t, mode);
    const started = Date.now();
    const r = await run(proxy, ["stubborn"], { timeoutMs: 300 });
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, undefined);
    // Sandboxed, bwrap itself dies of SIGTERM and takes the namespace down; direct, the group
    // ignores SIGTERM and needs the SIGKILL after the grace period.
    assert.equal(r.signal, mode === "sandbox" ? "SIGTERM" : "SIGKILL");
    assert.ok(Date.now() - started < 10_000);
    await gone(tag);
  });

  test(`process (${mode}): a background child does not outlive a command that exited`, options, async (t) => {
    const { proxy, tag } = await stubborn(t, mode);
    const started = Date.now();
    const r = await run(proxy, ["background"], { timeoutMs: 5_000 });
    assert.equal(r.exitCode, 0);
    assert.equal(r.timedOut, false);
    assert.equal(r.stdout.text, "started\n");
    assert.ok(Date.now() - started < 10_000, "the call returns without waiting for the sleeper");
    await gone(tag);
  });

  test(`process (${mode}): a plain sleep past its deadline is killed (control: a short one is not)`, options, async (t) => {
    const { proxy } = await stubborn(t, mode);
    const killed = await run(proxy, ["sleep", "30"], { timeoutMs: 200 });
    assert.deepEqual([killed.timedOut, killed.signal], [true, "SIGTERM"]);
    const finished = await run(proxy, ["sleep", "0.05"], { timeoutMs: 5_000 });
    assert.deepEqual([finished.timedOut, finished.exitCode, finished.signal], [false, 0, undefined]);
  });
}

test("process: an output flood keeps head and tail only, in bounded memory", await needsSandbox(), async (t) => {
  const s = await scratch(t);
  const proxy = await proxyFor(t, s, { commands: ["yes"] });
  const before = process.memoryUsage().rss;
  const r = await run(proxy, ["yes"], { timeoutMs: 400 });
  const grown = process.memoryUsage().rss - before;
  assert.equal(r.timedOut, true);
  assert.ok(r.stdout.bytes > 4n * 1024n * 1024n, `only ${r.stdout.bytes} bytes: the flood was not a flood`);
  assert.ok(r.stdout.linesDropped > 0n);
  assert.equal(BigInt(r.stdout.text.split("\n").filter((l) => l === "y").length) + r.stdout.linesDropped, r.stdout.bytes / 2n);
  assert.ok(r.stdout.text.length < 64 * 1024 + 100);
  assert.ok(grown < 100 * 1024 * 1024, `rss grew by ${grown} bytes for ${r.stdout.bytes} bytes of output`);
});

test("process: head and tail of a long output, every line accounted for", await needsSandbox(), async (t) => {
  const s = await scratch(t);
  const proxy = await proxyFor(t, s, { commands: ["seq"], proxy: { headBytes: 1000, tailBytes: 1000 } });
  const r = await run(proxy, ["seq", "1", "100000"]);
  assert.equal(r.exitCode, 0);
  const shown = r.stdout.text.split("\n").filter((l) => /^\d+$/.test(l)).map(Number);
  assert.deepEqual([shown[0], shown.at(-1)], [1, 100000]);
  assert.equal(shown.length + Number(r.stdout.linesDropped), 100000);
  assert.match(r.stdout.text, /\n\[… \d+ lines \(\d+ bytes\) dropped …\]\n/);
});

test("process: stdin, exit codes and stderr pass through", await needsSandbox(), async (t) => {
  const s = await scratch(t);
  const proxy = await proxyFor(t, s, { commands: ["cat", "wc", "false", "ls"] });
  assert.equal((await run(proxy, ["cat"], { stdin: bytes("hello\n") })).stdout.text, "hello\n");
  assert.equal((await run(proxy, ["wc", "-c"], { stdin: new Uint8Array(1024 * 1024) })).stdout.text.trim(), "1048576");
  const noStdin = await run(proxy, ["cat"], { timeoutMs: 2_000 });
  assert.deepEqual([noStdin.exitCode, noStdin.timedOut, noStdin.stdout.text], [0, false, ""], "no stdin: empty, not a hang");
  const no = await run(proxy, ["false"]);
  assert.deepEqual([no.exitCode, no.signal, no.timedOut], [1, undefined, false]);
  const missing = await run(proxy, ["ls", "/work/nope"]);
  assert.equal(missing.exitCode, 2);
  assert.match(missing.stderr.text, /No such file/);
  assert.equal(typeof missing.durationMs, "number");
});
