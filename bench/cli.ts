/**
 * CLI figures (group `cli`), each beside its reference in the same minute:
 * - cli_call_cpu_ratio: CPU (user + system, the process and every child it waited for) of
 *   `clawhive call files.read_file … --mount …` on a data dir whose plugins are installed ÷ that
 *   of `node -e 0` (goal ≤ 3); cli_call_cpu / node_cpu are the two medians. The runtime is opened
 *   in the command's own process: the store, the plugins' compiled builds, a sandbox worker.
 * - cli_call_server_cpu_ratio: the same call through a running `clawhive serve` (`--server`,
 *   an admin token in CLAWHIVE_TOKEN) ÷ `node -e 0`: the process is only the client; the
 *   server's own CPU is not counted (it is the server's, as in http_run_ratio).
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { value, type Metrics } from "./metrics.js";
import { percentile, startServer } from "./server.js";

const CLI = join(PROJECT_ROOT, "bin", "clawhive.js");

export async function benchCli(options: { quick?: boolean } = {}): Promise<Metrics> {
  const rounds = options.quick ? 3 : 7;
  const dir = await mkdtemp(join(tmpdir(), "clawhive-bench-cli-"));
  try {
    await mkdir(join(dir, "work"));
    await writeFile(join(dir, "work", "note.txt"), "a small file a tool reads\n");
    const call = [CLI, "call", "files.read_file", '{"path":"/work/note.txt"}', "--mount", `/work=${join(dir, "work")}`, "--data-dir", join(dir, "data")];
    cpuSeconds(call); // the first call installs the plugins into the data dir: not what is measured
    const server = await startServer();
    try {
      const env = { CLAWHIVE_TOKEN: server.token("admin") };
      const remote = [CLI, "call", "files.read_file", '{"path":"/work/note.txt"}', "--mount", `/work=${join(server.dataDir, "work")}`, "--server", server.url];
      cpuSeconds(remote, env); // the first stores the ad-hoc agent on the server: not what is measured
      const cli: number[] = [];
      const viaServer: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < rounds; i++) {
        bare.push(cpuSeconds(["-e", "0"]));
        cli.push(cpuSeconds(call));
        viaServer.push(cpuSeconds(remote, env));
      }
      const median = (s: number[]) => percentile(s, 50);
      return {
        cli_call_cpu: value(median(cli) * 1000, "ms"),
        node_cpu: value(median(bare) * 1000, "ms"),
        cli_call_cpu_ratio: value(median(cli) / median(bare), "ratio"),
        cli_call_server_cpu: value(median(viaServer) * 1000, "ms"),
        cli_call_server_cpu_ratio: value(median(viaServer) / median(bare), "ratio"),
      };
    } finally {
      await server.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** CPU seconds of `node ...args`, from the shell's `times` (children it waited for). */
function cpuSeconds(args: string[], env: Record<string, string> = {}): number {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const result = spawnSync("/bin/sh", ["-c", `${quoted} >/dev/null 2>&1 || echo "exit $?" >&2; times`], { encoding: "utf8", env: { ...process.env, CLAWHIVE_CONFIG: "", ...env } });
  if (result.stderr.includes("exit ")) throw new Error(`node ${args.join(" ")} failed: ${result.stderr}`);
  const lines = result.stdout.trim().split("\n");
  const children = lines[lines.length - 1]!.trim().split(/\s+/);
  const seconds = (t: string) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    if (!m) throw new Error(`times: unexpected ${t}`);
    return Number(m[1]) * 60 + Number(m[2]);
  };
  return seconds(children[0]!) + seconds(children[1]!);
}
