/** The agents and waits the sub-agent tests share: lead → mid → helper, and lead → helper. */
import type { Runtime } from "../../runtime/index.js";
import { LLM_SECRET, until } from "./_loop.js";

/** The agents every runtime of these tests defines: lead → mid → helper, and lead → helper. */
export async function defineAgents(runtime: Runtime, baseUrl: string, dir: string): Promise<void> {
  const model = { provider: "anthropic", id: "m", base_url: baseUrl, api_key_secret: LLM_SECRET, max_tokens: 512 };
  const mount = { guest: "/work", host: dir };
  const files = { "fs.read": { mounts: [mount] }, "fs.write": { mounts: [{ ...mount, mode: "rw" }] } };
  const define = (name: string, extra: Record<string, unknown> = {}) =>
    runtime.defineAgent({ name, description: `agent ${name}`, model, system_prompt: `You are ${name}.`, plugins: [{ name: "files", version: "*" }], grants: files, ...extra });
  // files.write_file is Guarded: every write asks a person.
  await define("helper");
  await define("mid", { sub_agents: ["helper"], grants: { ...files, "agent.spawn": { agents: ["helper"] } } });
  // The lead's run timeout is short (yet long enough for its own work on a busy machine): it
  // must not tick while the lead waits for its child.
  await define("lead", {
    sub_agents: ["helper", "mid"],
    grants: { ...files, "agent.spawn": { agents: ["helper", "mid"] } },
    limits: { run_timeout_ms: 8000, call_timeout_ms: 8000, max_depth: 2 },
  });
}

export const write = (file: string, content: string) => ({ type: "tool_calls" as const, calls: [{ name: "files__write_file", arguments: { path: `/work/${file}`, content } }] });
export const delegate = (agent: string, task: string) => ({ type: "tool_calls" as const, calls: [{ name: `subagent_${agent}`, arguments: { task } }] });


export async function childOf(runtime: Runtime, parentId: string): Promise<string> {
  let id: string | undefined;
  await until(async () => (id = (await runtime.records.list({ limit: 500 })).find((r) => r.parentRunId === parentId)?.id) !== undefined, `a child of ${parentId}`);
  return id!;
}

export async function waiting(runtime: Runtime, id: string) {
  await until(async () => (await runtime.records.get(id))?.status === "awaiting_approval", `run ${id} to wait`);
  return (await runtime.records.get(id))!;
}

export async function ended(runtime: Runtime, id: string, ms = 8000) {
  await until(async () => (await runtime.records.get(id))?.status === "ended", `run ${id} to end`, ms);
  return (await runtime.records.get(id))!;
}
