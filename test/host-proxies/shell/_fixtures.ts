/** Temp dirs, grants and proxies shared by the shell proxy tests. */
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { createShellProxy, probeSandbox, resolveShellGrant } from "../../../host-proxies/shell/index.js";
import type { ExecResult, ResolveShellGrantOptions, ResolvedShellGrant, SandboxInfo, ShellProxy, ShellProxyOptions } from "../../../host-proxies/shell/index.js";
import type { FsMount } from "../../../host-proxies/fs/index.js";
import * as shared from "../../helpers/host-errors.js";
import type { Expected } from "../../helpers/host-errors.js";
export type { Expected } from "../../helpers/host-errors.js";

/** Every shell denial is of `shell.exec`. */
export const rejectsWith = (promise: Promise<unknown>, expected: Expected) => shared.rejectsWith(promise, { capability: "shell.exec", ...expected });
export const throwsWith = (fn: () => unknown, expected: Expected) => shared.throwsWith(fn, { capability: "shell.exec", ...expected });


/** One probe for the whole test file, as a runtime would share it across proxies. */
export const sandboxProbe: Promise<SandboxInfo> = probeSandbox();

/**
 * `{skip}` for tests that need bubblewrap, naming why it is missing. With
 * `CLAWHIVE_REQUIRE_SANDBOX=1` (CI) a missing sandbox fails instead of hiding the tests.
 */
export async function needsSandbox(): Promise<{ skip?: string }> {
  const info = await sandboxProbe;
  if (info.available) return {};
  if (process.env.CLAWHIVE_REQUIRE_SANDBOX === "1") throw new Error(`bubblewrap is required here and unusable: ${info.reason}`);
  return { skip: `bubblewrap unusable here: ${info.reason}` };
}

export const OUTSIDE_SECRET = "OUTSIDE-SECRET";

export interface Scratch {
  base: string;
  /** Mounted as /work (rw) by most tests. */
  work: string;
  /** Mounted nowhere: its content must never reach a command. */
  outside: string;
  /** A private search-path directory for test programs. */
  bin: string;
}

/** A fresh scratch tree removed when `t` ends; `files` maps paths relative to `base` to text. */
export async function scratch(t: TestContext, files: Record<string, string> = {}): Promise<Scratch> {
  const base = await mkdtemp(join(tmpdir(), "clawhive-shell-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  const s = { base, work: join(base, "work"), outside: join(base, "outside"), bin: join(base, "bin") };
  await Promise.all([mkdir(s.work), mkdir(s.outside), mkdir(s.bin)]);
  await writeFile(join(s.outside, "secret.txt"), OUTSIDE_SECRET);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(base, rel)), { recursive: true });
    await writeFile(join(base, rel), text);
  }
  return s;
}

/** Writes an executable script into `dir`. */
export async function script(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
}

export interface ProxySetup {
  commands: string[];
  mounts?: FsMount[];
  sandbox?: boolean;
  resolve?: ResolveShellGrantOptions;
  proxy?: ShellProxyOptions;
}

export async function grantFor(setup: ProxySetup): Promise<ResolvedShellGrant> {
  return resolveShellGrant(
    { mounts: setup.mounts ?? [], commands: setup.commands.map((name) => ({ name, deny: [], runs_programs: false })), sandbox: setup.sandbox ?? true },
    setup.resolve,
  );
}

/** A proxy over `s.work` at /work (rw) unless `mounts` says otherwise; closed after the test. */
export async function proxyFor(t: TestContext, s: Scratch, setup: ProxySetup): Promise<ShellProxy> {
  const mounts = setup.mounts ?? [{ guest: "/work", host: s.work, mode: "rw" as const }];
  const grant = await grantFor({ ...setup, mounts });
  const proxy = await createShellProxy(grant, { sandbox: await sandboxProbe, killGraceMs: 300, ...setup.proxy });
  t.after(() => proxy.close());
  return proxy;
}

/** Canonicalise and run, as the host function does; a refusal either way is a rejection. */
export async function run(proxy: ShellProxy, argv: string[], extra: { cwd?: string; stdin?: Uint8Array; timeoutMs?: number } = {}): Promise<ExecResult> {
  return proxy.exec(proxy.canonicalize({ argv, ...extra }));
}

export const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "utf8"));
