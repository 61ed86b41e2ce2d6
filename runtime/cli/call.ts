import { createHash } from "node:crypto";
import { isAbsolute } from "node:path";
import { stringify } from "yaml";
import type { ClawhiveClient, OutcomeView, RunView } from "../client/client.js";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import { parseArgument } from "../json/bounded.js";
import { CLIENT_JSON } from "../json/limits.js";
import { parseCommandArgs, parseMountFlag } from "./args.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { withClient } from "./command-client.js";
import { pausedHint, serverFlagOf } from "./hints.js";
import { jsonOut } from "./render.js";
import { camelKeys } from "./views.js";

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
                    agent cli-<hash> so that 'clawhive resume' finds it after an approval.
                    Through a server (--server) HOST is a path on the server's machine (a
                    relative one is joined to this directory) and the server checks it
  --timeout MS      deadline of the call
  --json            print the whole outcome as JSON
  --data-dir DIR    (env CLAWHIVE_DATA_DIR; default the nearest .clawhive with a store
                    from here up, else the project's .clawhive)
${SERVER_FLAGS_HELP}

  A Guarded tool (a write) pauses for a person's approval: the run id and approval id are
  printed; decide with 'clawhive approvals approve ID' and continue with 'clawhive resume RUN'
  (through a server, the server continues it once decided).
  A tool the agent does not have starts no run (exit 2); an input the tool refuses ends the
  run with that error (exit 1).

  Exit codes: 0 output; 1 the tool returned an error; 3 waiting for approval; 2 bad usage.

  Example:
    clawhive call files.read_file '{"path":"/work/README.md"}' --mount /work=.`;

type Mount = { guest: string; host: string; mode: "ro" | "rw" };

export async function callCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...SERVER_FLAGS,
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
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= 86_400_000)) throw new InvalidInputError("--timeout: expected milliseconds > 0 (at most a day)", { field: "timeout" });
  const texts = (values.mount as string[] | undefined) ?? [];
  // Joined, not resolved: `..` after a symlink is the kernel's to walk (the runtime's mount check does).
  const mounts = texts.map(parseMountFlag).map((m) => ({ ...m, host: isAbsolute(m.host) ? m.host : `${process.cwd()}/${m.host}` }));
  const agentName = values.agent as string | undefined;
  if (!agentName && mounts.length === 0) throw new InvalidInputError("name an agent (--agent NAME) or grant mounts (--mount GUEST=HOST[:rw])", { field: "agent" });
  if (agentName && mounts.length > 0) throw new InvalidInputError("--agent and --mount do not combine: an agent's grants come from its manifest", { field: "mount" });
  return withClient(values, async (client) => {
    const agent = agentName ?? (await storeAdHocAgent(client, mounts, texts));
    const call = { name: tool, input, ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }) };
    const run = await client.submitRun({ agent, task: `clawhive call ${tool}`, tool_calls: [call] }, { wait: true }).catch((error: unknown) => {
      // The one call is the command's TOOL and JSON-INPUT: say so rather than name the API's field.
      if (error instanceof ClawhiveError && error.code === "invalid_input") throw new InvalidInputError(error.message.replace(/^tool_calls\[0\]\.name\b/, "TOOL").replace(/^tool_calls\[0\]\.input\b/, "JSON-INPUT"), { field: "tool" });
      throw error;
    });
    return printOutcome(client, tool, run, values.json === true);
  }, { oneShot: true });
}

/** Prints the one call's outcome; the exit code. */
async function printOutcome(client: ClawhiveClient, tool: string, run: RunView, json: boolean): Promise<number> {
  if (run.status !== "ended" && run.pending_approval) {
    const pending = run.pending_approval;
    const approval = await client.getApproval(pending.id).catch(() => undefined);
    const reason = approval?.reason ?? "a person decides";
    if (json) {
      const needed = { id: pending.id, kind: approval?.kind ?? "tool_call", tool: pending.tool, reason, expiresAt: approval === undefined ? null : Date.parse(approval.expires_at) };
      console.log(jsonOut({ run: run.id, tool: pending.tool, stepId: pending.step_id, status: "approval_required", approval: needed }));
    } else {
      console.error(`${tool}: waiting for approval ${pending.id} (${reason})`);
      console.error(`  run ${run.id}: ${pausedHint(run.id, pending.id, serverFlagOf(client))}`);
    }
    return 3;
  }
  const outcome = run.outcomes[0] as OutcomeView | undefined;
  if (outcome === undefined) {
    // Ended before its call ran (failed, cancelled): nothing to print but why.
    console.error(`${tool}: the run ${run.id} ended ${run.end_reason ?? "failed"} before the call ran; 'clawhive runs show ${run.id}'`);
    return 1;
  }
  if (json) console.log(jsonOut({ run: run.id, ...camelKeys<Record<string, unknown>>(outcome, new Set(["output", "input"])) }));
  else if (outcome.status === "ok") console.log(typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output, null, 2));
  else if (outcome.status === "error") console.error(`${tool}: ${outcome.error.kind}: ${outcome.error.message}`);
  return outcome.status === "ok" ? 0 : 1;
}

/**
 * Stores the ad-hoc agent under a name derived from its manifest, so that `clawhive resume`
 * (another process, or a server on the store) finds the agent a paused call ran as. The same
 * mounts and plugins give the same agent: repeated calls do not pile up agents. A mount the
 * runtime refuses is named as it was typed.
 */
async function storeAdHocAgent(client: ClawhiveClient, mounts: readonly Mount[], texts: readonly string[]): Promise<string> {
  const manifest = adHocAgent(mounts, await client.listPlugins());
  const name = `cli-${createHash("sha256").update(JSON.stringify(manifest)).digest("hex").slice(0, 12)}`;
  const source = stringify({ ...manifest, name });
  // Stored already (the same mounts, the same plugins): reading it is cheaper than storing it again.
  const stored = await client.getAgent(name).catch(() => undefined);
  if (stored?.source === source) return name;
  try {
    await client.putAgent(name, { text: source, format: "yaml" });
  } catch (error) {
    const flag = error instanceof ClawhiveError ? mountFlagOf(error, mounts, texts) : undefined;
    if (flag !== undefined) throw new InvalidInputError(`--mount ${flag.text}: ${flag.message}`, { field: "mount" });
    throw error;
  }
  return name;
}

/** The --mount flag a refused manifest field (`grants.fs.read.mounts[i].host`) came from. */
function mountFlagOf(error: ClawhiveError, mounts: readonly Mount[], texts: readonly string[]): { text: string; message: string } | undefined {
  const field = (error as { field?: string }).field ?? "";
  const at = /^(?:body\.)?grants\.fs\.(read|write)\.mounts\[(\d+)\]\.host\b/.exec(field) ?? /grants\.fs\.(read|write)\.mounts\[(\d+)\]\.host: /.exec(error.message);
  if (!at) return undefined;
  const among = at[1] === "read" ? mounts.map((_, i) => i) : mounts.flatMap((m, i) => (m.mode === "rw" ? [i] : []));
  const index = among[Number(at[2])];
  if (index === undefined) return undefined;
  const message = error.message.replace(/^.*?mounts\[\d+\]\.host: /, "");
  return { text: texts[index]!, message };
}

/** The agent a `--mount` call runs as: exactly those mounts, every loaded plugin, nothing else. */
function adHocAgent(mounts: readonly Mount[], plugins: ReadonlyArray<{ name: string }>): Record<string, unknown> {
  const grants: Record<string, unknown> = { "fs.read": { mounts: mounts.map((m) => ({ guest: m.guest, host: m.host })) }, log: {} };
  const writable = mounts.filter((m) => m.mode === "rw");
  if (writable.length > 0) grants["fs.write"] = { mounts: writable.map((m) => ({ guest: m.guest, host: m.host, mode: "rw" })) };
  return {
    name: "cli",
    description: "Ad-hoc agent of one clawhive call: only the mounts given on the command line.",
    model: { provider: "anthropic", id: "none" },
    system_prompt: "Not used: tools are called directly.",
    plugins: plugins.map((p) => ({ name: p.name, version: "*" })),
    grants,
  };
}
