/**
 * Run as a child process by confinement.test.ts with a host directory inherited (without
 * close-on-exec) at descriptor 40, the way a runtime inherits stray descriptors from its parent.
 * Prints what the runtime itself sees at 40 and what a sandboxed command sees there.
 */
import { readdir } from "node:fs/promises";
import { createShellProxy, resolveShellGrant } from "../../../host-proxies/shell/index.js";

const [work] = process.argv.slice(2);
const grant = await resolveShellGrant({ mounts: [{ guest: "/work", host: work ?? "/nonexistent", mode: "rw" }], commands: [{ name: "ls", deny: [], runs_programs: false }], sandbox: true });
const proxy = await createShellProxy(grant);
const runtimeSees = await readdir("/proc/self/fd/40").catch(() => []);
const command = await proxy.exec(proxy.canonicalize({ argv: ["ls", "-l", "/proc/self/fd/40", "/proc/self/fd/40/"] }));
await proxy.close();
process.stdout.write(JSON.stringify({ runtimeSees, stdout: command.stdout.text, stderr: command.stderr.text }));
