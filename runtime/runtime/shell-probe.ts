/**
 * The bubblewrap probe (host-proxies/shell: a real confined run of /usr/bin/true), remembered in
 * the data dir. Each start of a runtime ran it, a one-shot `clawhive call` too: a bwrap process
 * making its namespaces, whose CPU is the command's. A probe that passed is kept in
 * `bwrap-probe.json`, keyed by what its verdict depends on: the bwrap binary (path, size, mtime,
 * inode), the system layout it bound, who runs it, and the kernel's boot (a changed
 * `user.max_user_namespaces` or the like takes a reboot or a new binary to be seen). Any change
 * and it runs again. A failed probe is never kept: it is cheap and may pass next time.
 *
 * The file vouches only for "bwrap worked here": a forged one cannot unconfine anything, since a
 * command still runs under bwrap, which then fails the call if it cannot build the layout.
 */
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_BWRAP_PATH, probeSandbox, systemLayout, type SandboxInfo } from "../../host-proxies/shell/index.js";

const FILE = "bwrap-probe.json";

/** What the probe's verdict depends on; undefined when bwrap is not there to be probed. */
async function probeKey(bwrapPath: string): Promise<string | undefined> {
  const binary = await stat(bwrapPath).catch(() => undefined);
  if (binary === undefined) return undefined;
  const boot = await readFile("/proc/sys/kernel/random/boot_id", "utf8").catch(() => "");
  return JSON.stringify({
    v: 1,
    bwrap: [bwrapPath, binary.size, binary.mtimeMs, binary.ino, binary.mode],
    system: await systemLayout(),
    uid: process.getuid?.() ?? null,
    boot: boot.trim(),
  });
}

/** `probeSandbox`, its passing verdict remembered in `dataDir` until what it depends on changes. */
export async function cachedSandboxProbe(dataDir: string, options: { bwrapPath?: string } = {}): Promise<SandboxInfo> {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  const key = await probeKey(bwrapPath);
  const file = join(dataDir, FILE);
  if (key !== undefined) {
    const kept = await readFile(file, "utf8").then(
      (text) => JSON.parse(text) as { key?: unknown; system?: unknown },
      () => undefined,
    ).catch(() => undefined);
    if (kept?.key === key && Array.isArray(kept.system) && kept.system.every((a) => typeof a === "string")) {
      return { available: true, bwrapPath, system: Object.freeze([...(kept.system as string[])]) };
    }
  }
  const info = await probeSandbox({ bwrapPath });
  if (info.available && key !== undefined) {
    // Written whole, then renamed: a reader never sees half a file. Not being able to is no failure.
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify({ key, system: info.system }), { mode: 0o600 })
      .then(() => rename(temp, file))
      .catch(() => undefined);
  }
  return info;
}
