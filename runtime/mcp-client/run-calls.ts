/**
 * The ToolCalls of one run to its agent's MCP servers. A server is started (or reached) on the
 * run's first call to it and kept for the run's later calls; it is stopped when the run pauses
 * for a person, ends, or a call passes its deadline. Before each call the tool's live
 * definition is compared with its pin: a changed tool is refused (one audit denial) until a
 * person accepts the diff. An allowed call writes its intent (durable) before the request is
 * sent, and its outcome after — as a plugin's effect does (a call to a server is an effect,
 * `mcp.call` in host-proxies/durability.ts); the answer is released once the outcome is durable.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentManifest } from "../agents/index.js";
import type { AuditLog, AuditSubject, OutcomeInput } from "../audit/index.js";
import { ClawhiveError } from "../errors.js";
import { checkJsonValue, GUEST_RESULT_JSON } from "../json/index.js";
import type { Denial } from "../../host-proxies/types.js";
import type { ToolCallError, ToolInfo } from "../runs/types.js";
import { redactionForms, sweep } from "../audit/redact.js";
import type { McpClient } from "./client.js";
import type { McpConnection } from "./connection.js";

export interface McpRunHooks {
  audit: AuditLog;
  /** The ToolCall's audit subject (the run's, with the call's tool, step, input and approval). */
  subject: () => AuditSubject;
  /** Told of the server a call used, and of a denial (the least-privilege report). */
  used: (capability: string) => void;
  denied: (denial: Denial) => void;
  /** Told of every call that reached a server (its intent is on record). */
  effect: () => void;
  /**
   * What the server answered, as the run passes it on (its secrets redacted, or the answer
   * refused for holding one transformed), before the outcome is recorded.
   */
  review?: (execution: McpExecution) => McpExecution | Promise<McpExecution>;
}

export type McpExecution = { ok: true; output: unknown } | { ok: false; error: ToolCallError };

interface Live {
  connection: McpConnection;
  /** The server's tools now: clawhive name → definition hash. */
  hashes: Map<string, string>;
}

/** The least-privilege report's name for what a run used of server `server`. */
export function mcpCapability(server: string): string {
  return `mcp:${server}`;
}

export class McpRunCalls {
  readonly #client: McpClient;
  readonly #agent: AgentManifest;
  #live = new Map<string, Promise<Live>>();

  constructor(client: McpClient, agent: AgentManifest) {
    this.#client = client;
    this.#agent = agent;
  }

  async execute(tool: ToolInfo, input: unknown, options: { timeoutMs: number; hooks: McpRunHooks }): Promise<McpExecution> {
    const { hooks } = options;
    const mcp = tool.mcp!;
    const capability = mcpCapability(mcp.server);
    let live: Live;
    try {
      live = await this.#open(mcp.server);
    } catch (error) {
      return this.#refuse(hooks, { capability, reason: "server-unavailable", message: (error as Error).message }, "mcp-unavailable");
    }
    if (live.hashes.get(tool.name) !== mcp.hash) {
      const now = live.hashes.has(tool.name) ? "changed its definition" : "no longer offers it";
      const message = `MCP server ${mcp.server} ${now} since it was accepted: ${tool.qualifiedName} is disabled until a person reviews and accepts the diff ('clawhive mcp review ${this.#agent.name} ${mcp.server}')`;
      return this.#refuse(hooks, { capability, reason: "definition-changed", message });
    }
    let intent;
    try {
      intent = await hooks.audit.appendIntent(hooks.subject());
    } catch (error) {
      return { ok: false, error: { kind: "audit-failed", message: `the call was not made because it could not be recorded: ${(error as Error).message}` } };
    }
    hooks.effect();
    hooks.used(capability);
    const answered = await this.#call(live, mcp.server, { mcpName: mcp.mcpName, input: input as Record<string, unknown>, timeoutMs: options.timeoutMs });
    const execution = hooks.review ? await hooks.review(answered) : answered;
    // A refused answer (its denial says why) is recorded as a refusal, not a failure.
    const outcome: OutcomeInput = execution.ok
      ? { status: "ok", resultSize: JSON.stringify(execution.output ?? null).length }
      : execution.error.denial
        ? { status: "denied", denial: execution.error.denial, error: { code: execution.error.kind, message: execution.error.message } }
        : { status: "error", error: { code: execution.error.kind, message: execution.error.message } };
    // The server's answer is released only once its outcome is durable (fail closed).
    const unrecorded = await hooks.audit.appendOutcome(intent, outcome).then(() => undefined, (error: unknown) => error as Error);
    if (unrecorded) return { ok: false, error: { kind: "audit-failed", message: `the result is withheld: a record of this call could not be made durable in the audit log (${unrecorded.message})` } };
    return execution;
  }

  /** Stops the calls in flight: their servers are stopped (the calls end with an error). */
  async abortAll(): Promise<void> {
    await this.releaseAll();
  }

  /** Stops every server of the run. */
  async releaseAll(): Promise<void> {
    const live = [...this.#live.values()];
    this.#live.clear();
    await Promise.all(live.map((l) => l.then((x) => x.connection.close(), () => undefined)));
  }

  async #call(live: Live, server: string, call: { mcpName: string; input: Record<string, unknown>; timeoutMs: number }): Promise<McpExecution> {
    let result: CallToolResult;
    try {
      result = await live.connection.call(call.mcpName, call.input, { timeoutMs: call.timeoutMs });
    } catch (error) {
      // A deadline or a broken connection: the next call starts the server again.
      if (live.connection.closed) this.#live.delete(server);
      const kind = error instanceof ClawhiveError ? error.code.replace(/^mcp_/, "mcp-").replace(/_/g, "-") : "failed";
      return { ok: false, error: { kind, message: (error as Error).message } };
    }
    const execution = outputOf(result, server);
    if (live.connection.secrets.length === 0) return execution;
    // A server may echo its env; the secrets it was given are not the model's to read. Redacted
    // in the audit log's forms, as a plugin's secrets are (runs/secrets-read.ts).
    const forms = redactionForms([...live.connection.secrets]);
    if (execution.ok) return { ok: true, output: redactValue(execution.output, forms) };
    return { ok: false, error: { ...execution.error, message: sweep(execution.error.message, forms) } };
  }

  #open(server: string): Promise<Live> {
    const existing = this.#live.get(server);
    if (existing) return existing;
    const opening = (async () => {
      const connection = await this.#client.connect(this.#agent, server);
      try {
        const { tools } = await connection.definitions();
        return { connection, hashes: new Map(tools.map((t) => [t.name, t.hash])) };
      } catch (error) {
        await connection.close();
        throw error;
      }
    })();
    this.#live.set(server, opening);
    opening.then((l) => l.connection.closed && this.#live.delete(server), () => this.#live.delete(server));
    return opening;
  }

  async #refuse(hooks: McpRunHooks, denial: Denial, kind = "denied"): Promise<McpExecution> {
    await hooks.audit.appendDenial({ ...hooks.subject(), denial }).catch(() => undefined);
    hooks.denied(denial);
    return { ok: false, error: { kind, message: denial.message, denial } };
  }
}

/**
 * What the model gets back: the structured result when the server gave one, else its text;
 * binary content is described, not passed on. A result past the JSON bounds is refused.
 */
function outputOf(result: CallToolResult, server: string): McpExecution {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text);
  if (result.isError === true) {
    return { ok: false, error: { kind: "tool-error", message: `MCP server ${server}: ${texts.join("\n").slice(0, 4000) || "the tool reported an error"}` } };
  }
  let output: unknown;
  if (result.structuredContent !== undefined) output = result.structuredContent;
  else if (texts.length === content.length) output = texts.join("\n");
  else output = content.map(describe);
  const problem = checkJsonValue(output, GUEST_RESULT_JSON, { at: "result" });
  if (problem) return { ok: false, error: { kind: "result-too-large", message: `MCP server ${server}: the result is refused: ${problem.message}` } };
  return { ok: true, output };
}

/** `value` (JSON values) with every string in it, keys too, redacted. */
function redactValue(value: unknown, forms: readonly string[]): unknown {
  if (forms.length === 0) return value;
  if (typeof value === "string") return sweep(value, forms);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, forms));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [sweep(key, forms), redactValue(item, forms)]));
  return value;
}

function describe(item: CallToolResult["content"][number]): unknown {
  switch (item.type) {
    case "text":
      return { type: "text", text: item.text };
    case "image":
    case "audio":
      return { type: item.type, mimeType: item.mimeType, bytes: Math.floor((item.data.length * 3) / 4) };
    case "resource_link":
      return { type: "resource_link", uri: item.uri, name: item.name };
    case "resource":
      return { type: "resource", uri: item.resource.uri, ...("text" in item.resource ? { text: item.resource.text } : {}) };
    default:
      return { type: "unknown" };
  }
}
