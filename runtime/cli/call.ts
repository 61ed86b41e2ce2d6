import { createHash } from "node:crypto";
import { jsonOut } from "./render.js";
import { isAbsolute, resolve } from "node:path";
import { stringify } from "yaml";
import { checkMountHost, type MountHostGuard } from "../../host-proxies/fs/index.js";
import { InvalidInputError } from "../errors.js";
import { Runtime } from "../runtime.js";
import { failureOf } from "../runs/errors.js";
import { pausedHint } from "./hints.js";
import { progressPrinter } from "./progress.js";
import { parseCommandArgs, parseMountFlag } from "./args.js";
import { resolveAgentsDir, resolveDataDir } from "./store-path.js";
import { CLIENT_JSON, parseArgument } from "../json/index.js";

export const callHelp = `clawhive call — run one tool in a fresh run of an agent, then end the run

  clawhive call TOOL [JSON-INPUT] --agent NAME
  clawhive call TOOL [JSON-INPUT] --mount GUEST=HOST[:ro|rw] ...

  TOOL              plugin.tool or a bare tool name, e.g. files.read_file
  JSON-INPUT        the tool's input as JSON (default {})
  --agent NAME      run as this agent (capabilities/NAME.yaml): its grants apply
  --agents DIR      where agent manifests live (default the project's capabilities/;
                    env CLAWHIVE_AGENTS_DIR)
  --mount M         run as an ad-hoc agent granted only these mounts, e.g. /work=./project:rw
                    (read-only unless :rw); it may use every loaded plugin. It is stored as
                    agent cli-<hash> so that 'clawhive resume' finds it after an approval
  --timeout MS      deadline of the call
  --json            print the whole outcome as JSON
  --data-dir DIR    (env CLAWHIVE_DATA_DIR; default the nearest .clawhive with a store
                    from here up, else the project's .clawhive)

  A Guarded tool (a write) pauses for a person's approval: the run id and approval id are
  printed; decide with 'clawhive approvals approve ID' and continue with 'clawhive resume RUN'.
  A call that fails before it runs (an unknown tool, a bad input) ends its run as failed.

  Exit codes: 0 output; 1 the tool returned an error; 3 waiting for approval; 2 bad usage.`;

export async function callCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    mount: { type: "string", multiple: true },
    agent: { type: "string" },
    agents: { type: "string" },
    timeout: { type: "string" },
    json: { type: "boolean" },
    "data-dir": { type: "string" },
  });
  const [tool, inputText = "{}", ...rest] = positionals;
  if (!tool || rest.length > 0) throw new InvalidInputError("usage: clawhive call TOOL [JSON-INPUT] --mount GUEST=HOST[:ro|rw]");
  const input = parseArgument(inputText, CLIENT_JSON, { at: "JSON-INPUT", field: "input" });
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new InvalidInputError("--timeout: expected milliseconds > 0", { field: "timeout" });
  const mounts = ((values.mount as string[] | undefined) ?? []).map(parseMountFlag);
  const agentName = values.agent as string | undefined;
  if (!agentName && mounts.length === 0) throw new InvalidInputError("name an agent (--agent NAME) or grant mounts (--mount GUEST=HOST[:rw])", { field: "agent" });
  if (agentName && mounts.length > 0) throw new InvalidInputError("--agent and --mount do not combine: an agent's grants come from its manifest", { field: "mount" });
  const progress = progressPrinter(process.stderr);
  const runtime = await Runtime.create({ dataDir: resolveDataDir(values), agentsDir: resolveAgentsDir(values), sandbox: { poolSize: 0 }, onProgress: progress }).finally(() => progress.stop());
  try {
    const checked = mounts.map((m, i) => checkMountFlag(m, { text: (values.mount as string[])[i]!, guard: runtime.mountGuard }));
    const agent = agentName ?? (await storeAdHocAgent(runtime, adHocAgent(checked, runtime.plugins())));
    const run = await runtime.startRun({ agent, task: `clawhive call ${tool}` });
    let outcome: Awaited<ReturnType<typeof run.callTool>>;
    try {
      outcome = await run.callTool(tool, input, timeoutMs === undefined ? {} : { timeoutMs });
    } catch (error) {
      // An unknown tool, a bad input: the run ends failed, saying why, rather than stay active.
      await run.fail(failureOf(error)).catch(() => undefined);
      throw error;
    }
    if (outcome.status !== "approval_required") await run.end();
    if (values.json) console.log(jsonOut({ run: run.id, ...outcome }));
    else if (outcome.status === "ok") console.log(typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output, null, 2));
    else if (outcome.status === "error") console.error(`${tool}: ${outcome.error.kind}: ${outcome.error.message}`);
    else {
      console.error(`${tool}: waiting for approval ${outcome.approval.id} (${outcome.approval.reason})`);
      console.error(`  run ${run.id}: ${pausedHint(run.id, outcome.approval.id, "")}`);
    }
    return outcome.status === "ok" ? 0 : outcome.status === "error" ? 1 : 3;
  } finally {
    await runtime.close();
  }
}

/** The mount with its host canonical, or an error naming the flag as it was typed. */
function checkMountFlag(mount: { guest: string; host: string; mode: "ro" | "rw" }, options: { text: string; guard: MountHostGuard }): { guest: string; host: string; mode: "ro" | "rw" } {
  // Joined, not resolved: `..` after a symlink is the kernel's to walk (checkMountHost does).
  const checked = checkMountHost(isAbsolute(mount.host) ? mount.host : `${process.cwd()}/${mount.host}`, options.guard);
  if (!checked.ok) throw new InvalidInputError(`--mount ${options.text}: ${checked.message}`, { field: "mount" });
  return { ...mount, host: checked.host };
}

/**
 * Stores the ad-hoc agent under a name derived from its manifest, so that `clawhive resume`
 * (another process, or a server on the store) finds the agent a paused call ran as. The same
 * mounts and plugins give the same agent: repeated calls do not pile up agents.
 */
async function storeAdHocAgent(runtime: Runtime, manifest: Record<string, unknown>): Promise<string> {
  const name = `cli-${createHash("sha256").update(JSON.stringify(manifest)).digest("hex").slice(0, 12)}`;
  const source = stringify({ ...manifest, name });
  if ((await runtime.agentStore.get(name))?.source !== source) {
    await runtime.agentStore.put(name, source, { format: "yaml", dataDir: runtime.dataDir, protectedDirs: [runtime.agentsDir], hostGuard: runtime.mountGuard });
  }
  await runtime.refreshAgents();
  return name;
}

/** The agent a `--mount` call runs as: exactly those mounts, every loaded plugin, nothing else. */
function adHocAgent(mounts: Array<{ guest: string; host: string; mode: "ro" | "rw" }>, plugins: Array<{ name: string }>): Record<string, unknown> {
  const grants: Record<string, unknown> = { "fs.read": { mounts: mounts.map((m) => ({ guest: m.guest, host: resolve(m.host) })) }, log: {} };
  const writable = mounts.filter((m) => m.mode === "rw");
  if (writable.length > 0) grants["fs.write"] = { mounts: writable.map((m) => ({ guest: m.guest, host: resolve(m.host), mode: "rw" })) };
  return {
    name: "cli",
    description: "Ad-hoc agent of one clawhive call: only the mounts given on the command line.",
    model: { provider: "anthropic", id: "none" },
    system_prompt: "Not used: tools are called directly.",
    plugins: plugins.map((p) => ({ name: p.name, version: "*" })),
    grants,
  };
}
