/**
 * The bubblewrap confinement: what a command sees, and whether bwrap works here at all.
 *
 * Layout (one per proxy, fixed at creation):
 *   <guest mounts>       the instance's mounts, bound by descriptor (mounts.ts), ro or rw
 *   <sensitive entries>  inside them, covered: files by an empty read-only file, directories
 *                        by an empty tmpfs (the fs deny list, sensitive-overlay.ts)
 *   /usr                 read-only bind of the host's /usr
 *   /bin /sbin /lib*     the host's symlinks into /usr recreated, or read-only binds
 *   /etc                 only ld.so.cache, ld.so.conf(.d), localtime and alternatives (read-only
 *                        binds), and a synthesised passwd, group, nsswitch.conf and hosts:
 *                        no shadow, no host user list, no gitconfig, no ssh or ssl keys
 *   /proc                a fresh procfs of the sandbox's own PID namespace
 *   /dev                 a minimal devtmpfs (null, zero, random, urandom, tty, pts)
 *   /tmp                 a private tmpfs; HOME is /tmp/home, empty
 *   <binaries>           a resolved command outside /usr, bound read-only at its own path
 *   /                    a tmpfs, remounted read-only once everything is in place
 * Namespaces: all (`--unshare-all`: user where possible, ipc, pid, net, uts, cgroup), so no
 * network but loopback, and PID 1 is bwrap's init. `--die-with-parent`, `--new-session`
 * (no TIOCSTI into the runtime's terminal: CVE-2017-5226), `--cap-drop ALL` when the runtime
 * is root, `--clearenv` and the scrubbed environment, `--chdir` to the guest cwd.
 */
import { constants, promises as fsp } from "node:fs";
import { spawn } from "node:child_process";
import type { OpenShellMount } from "./mounts.js";

export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";
export const SANDBOX_HOME = "/tmp/home";

export type SandboxInfo =
  | { available: true; bwrapPath: string; system: readonly string[] }
  | { available: false; bwrapPath: string; reason: string };

const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
const ETC_BINDS = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives"];

/** Paths under these are visible in the sandbox already; a binary elsewhere is bound by itself. */
export function isSystemPath(path: string): boolean {
  return ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"].some((d) => path.startsWith(d));
}

/** The system part of the layout, read from the host's `/` once. */
export async function systemLayout(): Promise<string[]> {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stats = await fsp.lstat(dir).catch(() => undefined);
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) args.push("--symlink", await fsp.readlink(dir), dir);
    else if (stats.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  args.push("--dir", "/etc");
  for (const path of ETC_BINDS) args.push("--ro-bind-try", path, path);
  return args;
}

/** What `bwrapArgs` needs for one run. */
export interface BwrapSpec {
  system: readonly string[];
  mounts: readonly OpenShellMount[];
  /** bwrap arguments covering sensitive entries of the mounts (sensitive-overlay.ts). */
  covers?: readonly string[];
  /** Resolved binaries outside the system dirs, bound read-only at their own paths. */
  binaries: readonly string[];
  /** Guest cwd; default HOME. */
  cwd: string | undefined;
  env: Readonly<Record<string, string>>;
  path: string;
  args: readonly string[];
}

/** bwrap's argv and the extra descriptors (from fd 3 on) the spawn must pass. */
export interface BwrapPlan {
  args: string[];
  extraStdio: Array<number | Uint8Array>;
}

export function bwrapArgs(spec: BwrapSpec): BwrapPlan {
  const extraStdio: Array<number | Uint8Array> = [];
  const fd = (value: number | Uint8Array): string => `${3 + extraStdio.push(value) - 1}`;
  const args = ["--unshare-all", "--die-with-parent", "--new-session", "--hostname", "clawhive"];
  if (process.getuid?.() === 0) args.push("--cap-drop", "ALL");
  // Guest mounts first, parents before children so a nested mount lands on top of the one
  // around it. Everything the sandbox provides itself comes after them: should a nested
  // mount point inside a writable mount have been swapped for a symlink (`../../usr/bin`),
  // bwrap would follow it, and only a later mount puts the system back on top.
  const mounts = [...spec.mounts].sort((a, b) => depth(a.spec.guest) - depth(b.spec.guest));
  for (const m of mounts) args.push(m.spec.mode === "rw" ? "--bind-fd" : "--ro-bind-fd", fd(m.root.fd), m.spec.guest);
  // On top of the mounts (so a cover lands inside them), below the system (see sensitive-overlay.ts).
  args.push(...(spec.covers ?? []));
  args.push(...spec.system);
  for (const [name, text] of Object.entries(etcFiles())) args.push("--perms", "0644", "--ro-bind-data", fd(Buffer.from(text)), `/etc/${name}`);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", SANDBOX_HOME);
  for (const binary of spec.binaries) args.push("--ro-bind", binary, binary);
  args.push("--remount-ro", "/", "--chdir", spec.cwd ?? SANDBOX_HOME, "--clearenv");
  for (const [key, value] of Object.entries(spec.env)) args.push("--setenv", key, value);
  args.push("--", spec.path, ...spec.args);
  return { args, extraStdio };
}

function depth(guest: string): number {
  return guest.split("/").length;
}

function etcFiles(): Record<string, string> {
  const uid = process.getuid?.() ?? 65534;
  const gid = process.getgid?.() ?? 65534;
  const user = uid === 0 ? "" : `sandbox:x:${uid}:${gid}::${SANDBOX_HOME}:/usr/sbin/nologin\n`;
  const group = gid === 0 ? "" : `sandbox:x:${gid}:\n`;
  return {
    passwd: `root:x:0:0::${uid === 0 ? SANDBOX_HOME : "/root"}:/usr/sbin/nologin\n${user}nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\n${group}nogroup:x:65534:\n`,
    "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
    hosts: "127.0.0.1 localhost\n::1 localhost\n",
  };
}

export interface ProbeOptions {
  /** Default /usr/bin/bwrap. */
  bwrapPath?: string;
}

/**
 * Whether bwrap at `bwrapPath` can build this layout here: a real run of `/usr/bin/true` with
 * every feature the proxy uses (user namespaces may be disabled, `--bind-fd` missing in old
 * bwrap). Call once and pass the result to every proxy; it never throws.
 */
export async function probeSandbox(options: ProbeOptions = {}): Promise<SandboxInfo> {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  try {
    await fsp.access(bwrapPath, constants.X_OK);
  } catch {
    return { available: false, bwrapPath, reason: `${bwrapPath} is not an executable file` };
  }
  const system = await systemLayout();
  const dir = await fsp.open("/usr", constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const plan = bwrapArgs({ system, mounts: [{ spec: { guest: "/probe", host: "/usr", mode: "ro" }, root: dir }], binaries: [], cwd: "/probe", env: {}, path: "/usr/bin/true", args: [] });
    const failure = await runProbe(bwrapPath, plan);
    return failure === undefined ? { available: true, bwrapPath, system: Object.freeze(system) } : { available: false, bwrapPath, reason: failure };
  } finally {
    await dir.close();
  }
}

function runProbe(bwrapPath: string, plan: BwrapPlan): Promise<string | undefined> {
  return new Promise((resolve) => {
    const stdio = ["ignore", "ignore", "pipe", ...plan.extraStdio.map((x) => (typeof x === "number" ? x : "pipe"))] as const;
    const child = spawn(bwrapPath, plan.args, { stdio: [...stdio], env: {}, cwd: "/" });
    plan.extraStdio.forEach((x, i) => {
      if (typeof x !== "number") endQuietly(child.stdio[3 + i], x);
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-500)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve(`${bwrapPath} could not be started: ${err.message}`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : `${bwrapPath} failed the probe (${signal ?? `exit ${code}`}): ${stderr.trim()}`);
    });
  });
}

/** Writes `data` to one of the child's extra descriptors; the child may close it first. */
export function endQuietly(stream: unknown, data: Uint8Array): void {
  const writable = stream as NodeJS.WritableStream & { on(event: "error", fn: () => void): unknown };
  if (writable === null || typeof writable !== "object") return;
  writable.on("error", () => undefined);
  writable.end(data);
}
