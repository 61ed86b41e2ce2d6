/**
 * One MCP session: an agent's tools served to one MCP client as one Run of that agent. The
 * Run's grants are fixed when it starts; every `tools/call` is a ToolCall of it, through the
 * same policy, approvals and audit as the model loop's. When an install or upgrade changes the
 * agent's tools, the Run ends (with its least-privilege report) and the next one starts with
 * the new tools, and the client is told (`notifications/tools/list_changed`): a Run never
 * gains a tool it did not start with. Closing the session ends its Run.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ClawhiveError, NotFoundError } from "../errors.js";
import type { Runtime } from "../runtime.js";
import type { Run } from "../runs/run.js";
import type { ToolCallOutcome } from "../runs/types.js";
import { awaitDecision } from "./approval.js";
import { errorResult, okResult } from "./results.js";
import { mcpTools, resolveMcpToolName } from "./tool-list.js";
import { toolsVersion } from "./tools-version.js";
import { progressReporter, type CallExtra } from "./progress.js";
import { traceMcpServer } from "../telemetry/mcp-server-spans.js";
import { runSpanContext } from "../telemetry/run-log-fields.js";

export interface McpSessionOptions {
  agent: string;
  /** The server's version, told to the client. */
  version: string;
  /** The API token the session acts for: its runs' owner. */
  ownerToken?: string;
  /** Its person may decide approvals through elicitation (stdio's operator, an admin token). */
  mayApprove: boolean;
  /** Recorded as the decider of approvals given through elicitation. */
  decidedBy: string;
  /** Shown to approvers as the ToolCall's context. */
  clientLabel?: string;
  /** Deadline of one call, waiting for a person included; default 10 minutes. */
  callTimeoutMs?: number;
  /** How often a waiting call looks for its approval's decision; default 250 ms. */
  pollMs?: number;
  /** How often the agent's tools are checked for an install or upgrade; default 2 s (0: never). */
  watchMs?: number;
}

const DEFAULT_CALL_TIMEOUT_MS = 10 * 60_000;

export class McpSession {
  readonly server: Server;
  readonly #runtime: Runtime;
  readonly #options: McpSessionOptions;
  /** Undefined until `start()`: a session nobody initialized writes nothing. */
  #run: Run | undefined;
  #toolsKey = "";
  /** The store's `toolsVersion` when plugins and pins were last loaded; "" until then. */
  #seen = "";
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;
  #watch: NodeJS.Timeout | undefined;
  #closed = false;
  /** The session's id where its transport has none (stdio): its spans' `mcp.session.id`. */
  readonly #ownId = `mcp_${randomUUID()}`;

  private constructor(runtime: Runtime, options: McpSessionOptions) {
    this.#runtime = runtime;
    this.#options = options;
    this.server = new Server(
      { name: "clawhive", version: options.version, title: `clawhive agent ${options.agent}` },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: `The tools of clawhive agent ${options.agent}. Each call runs sandboxed under the agent's grants; a Guarded call waits for a person's approval, and a denial comes back as an error result with its reason.`,
      },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => this.#serial(async () => ({ tools: this.#offered(await this.#current()) })));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.#serial(() => this.#call(request, extra)));
  }

  /** A session whose Run has started; an unknown agent or a plugin it lacks is refused here. */
  static async open(runtime: Runtime, options: McpSessionOptions): Promise<McpSession> {
    const session = await McpSession.prepare(runtime, options);
    await session.start();
    return session;
  }

  /**
   * A session of a known agent, its Run not started yet: over HTTP the Run starts only once the
   * transport has accepted an initialize (`start()`), so a stray or invalid request writes nothing.
   */
  static async prepare(runtime: Runtime, options: McpSessionOptions): Promise<McpSession> {
    await runtime.refreshAgents();
    if (!runtime.agents().some((a) => a.name === options.agent)) {
      throw new NotFoundError(`no agent named ${options.agent}; 'clawhive agent list' shows the agents`);
    }
    return new McpSession(runtime, options);
  }

  /** Starts the session's first Run (once); refused for an agent whose plugins are missing. */
  async start(): Promise<void> {
    if (this.#run !== undefined || this.#closed) return;
    // Read before the run starts (startRun reloads plugins and pins), so nothing slips between.
    const seen = await toolsVersion(this.#runtime.store, this.#options.agent);
    this.#run = await startSessionRun(this.#runtime, this.#options);
    this.#toolsKey = await toolsKey(this.#runtime, this.#options.agent);
    this.#seen = seen;
    if ((this.#options.watchMs ?? 2000) > 0) {
      this.#watch = setInterval(() => void this.#serial(() => this.#current()).catch(() => undefined), this.#options.watchMs ?? 2000);
      this.#watch.unref();
    }
  }

  get run(): Run {
    if (this.#run === undefined) throw new ClawhiveError("mcp_session_not_started", "the MCP session has not started: no initialize was accepted");
    return this.#run;
  }

  /** A request of this session is being served (a call waiting for a person included). */
  get busy(): boolean {
    return this.#pending > 0;
  }

  /**
   * Serves the session over `transport`, traced (mcp-server-spans.ts) when tracing is on:
   * `network` is `pipe` for stdio, `tcp` for streamable HTTP.
   */
  async connect(transport: Transport, network: "pipe" | "tcp"): Promise<void> {
    await this.server.connect(transport);
    setImmediate(primeCallSchemas);
    traceMcpServer(transport, { network, sessionId: () => transport.sessionId ?? this.#ownId, fallbackParent: () => (this.#run === undefined ? undefined : runSpanContext(this.#run.id)) });
  }

  /** Ends the session: its Run ends (report stored), the connection closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#watch) clearInterval(this.#watch);
    await this.#queue.catch(() => undefined);
    if (this.#run !== undefined && !this.#run.ended) await this.#run.end("completed").catch(() => undefined);
    await this.server.close().catch(() => undefined);
  }

  /**
   * The tools a client is offered: the run's tools but those its grants can never satisfy
   * (Run.reachableTools). A call by name to one left out is still decided, and denied, by policy.
   */
  #offered(run: Run): ReturnType<typeof mcpTools> {
    return mcpTools(run.reachableTools());
  }

  /** One request at a time: ToolCalls of a Run run in order, as the model loop's do. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    this.#pending++;
    const next = this.#queue.then(work, work).finally(() => void this.#pending--);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** The session's Run, replaced by a new one when the agent's tools changed. */
  async #current(): Promise<Run> {
    if (this.#closed) throw new ClawhiveError("mcp_session_closed", "the MCP session is closed");
    const run = this.run;
    // One statement when nothing changed (the common case); the full reload only when it did.
    // The version is read before the reload, so a change landing during it is seen next time.
    const seen = await toolsVersion(this.#runtime.store, this.#options.agent);
    if (seen === this.#seen) return run;
    await this.#runtime.refreshPlugins();
    await this.#runtime.mcpClient.refresh();
    this.#seen = seen;
    const key = await toolsKey(this.#runtime, this.#options.agent);
    if (key === this.#toolsKey || run.cancelled) return run;
    if (!run.ended) await run.end("completed");
    this.#run = await startSessionRun(this.#runtime, this.#options);
    this.#toolsKey = key;
    await this.server.sendToolListChanged().catch(() => undefined);
    return this.#run;
  }

  async #call(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    let run: Run;
    try {
      run = await this.#current();
    } catch (error) {
      return errorResult({ kind: "unavailable", message: (error as Error).message });
    }
    if (run.cancelled) return errorResult({ kind: "run-cancelled", message: `run ${run.id} of this session was cancelled; start a new MCP session` });
    const name = request.params.name;
    const tool = resolveMcpToolName(run.tools, name);
    const progress = progressReporter(request, extra);
    const onAbort = () => void run.abortToolCalls("the MCP client cancelled the call");
    extra.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.#runtime.holdRun(run.id, () => this.#drive(run, tool?.qualifiedName ?? name, request.params.arguments ?? {}, { extra, progress }));
    } catch (error) {
      if (error instanceof ClawhiveError) return errorResult({ kind: error.code, message: error.message });
      throw error;
    } finally {
      extra.signal.removeEventListener("abort", onAbort);
      progress.stop();
    }
  }

  /** The ToolCall, and its replays after each approval it waits for, until it has an outcome. */
  async #drive(run: Run, name: string, input: unknown, ctx: { extra: CallExtra; progress: ReturnType<typeof progressReporter> }): Promise<CallToolResult> {
    const timeoutMs = this.#options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const context = `MCP tool call from ${this.#options.clientLabel ?? "an MCP client"}`;
    let outcome: ToolCallOutcome | undefined = await run.callTool(name, input, { context });
    while (outcome?.status === "approval_required") {
      const needed = outcome.approval;
      const end = await awaitDecision(needed, {
        server: this.server,
        approvals: this.#runtime.approvals,
        mayApprove: this.#options.mayApprove,
        decidedBy: this.#options.decidedBy,
        deadline,
        signal: ctx.extra.signal,
        pollMs: this.#options.pollMs ?? 250,
        now: () => Date.now(),
        progress: (message) => ctx.progress.say(message),
        agent: () => this.#runtime.agents().find((a) => a.name === this.#options.agent),
      });
      if (end !== "decided") return this.#withdraw(run, needed.id, end, timeoutMs);
      outcome = await run.resume();
    }
    if (ctx.extra.signal.aborted) return errorResult({ kind: "cancelled", message: "the MCP client cancelled the call" });
    if (outcome === undefined) return errorResult({ kind: "failed", message: "the call's approval was decided elsewhere and the call did not run here" });
    return outcome.status === "ok" ? okResult(outcome.output) : errorResult(outcome.error);
  }

  /**
   * Nobody decided in time, or the client gave up: the approval is withdrawn (denied, so nobody
   * can approve a call nobody waits for) and the run stops waiting on it.
   */
  async #withdraw(run: Run, approvalId: string, end: "timeout" | "cancelled", timeoutMs: number): Promise<CallToolResult> {
    const reason = end === "timeout" ? `nobody decided within the MCP call's deadline (${timeoutMs} ms)` : "the MCP client cancelled the call";
    await this.#runtime.approvals.decide(approvalId, { decision: "deny", by: "clawhive:mcp", reason }).catch(() => undefined);
    await run.resume().catch(() => undefined);
    return errorResult({ kind: end === "timeout" ? "approval-timeout" : "cancelled", message: `approval ${approvalId} was withdrawn: ${reason}` });
  }
}

/**
 * The SDK checks every tools/call request (twice) and its result with zod, which compiles a
 * schema's fast path on its first use (tens of ms): done here, while the client initializes and
 * the session's instances are made, not on the client's first call.
 */
function primeCallSchemas(): void {
  CallToolRequestSchema.safeParse({ method: "tools/call", params: { name: "t", arguments: { path: "/" } } });
  CallToolResultSchema.safeParse({ content: [{ type: "text", text: "" }], structuredContent: {}, isError: false });
}

async function startSessionRun(runtime: Runtime, options: McpSessionOptions): Promise<Run> {
  const run = await runtime.startRun({
    agent: options.agent,
    task: `MCP session${options.clientLabel ? ` (${options.clientLabel})` : ""}`,
    ...(options.ownerToken === undefined ? {} : { ownerToken: options.ownerToken }),
  });
  // Its instances are readied while the client initializes, not on its first tools/call.
  void run.prepare();
  return run;
}

/**
 * What the agent's tools are built from: its plugins as installed now (name, version, blob), and
 * its MCP servers' accepted definitions (a person accepting a new diff changes the tools).
 */
async function toolsKey(runtime: Runtime, agentName: string): Promise<string> {
  const agent = runtime.agents().find((a) => a.name === agentName);
  const installed = new Map(runtime.plugins().map((p) => [p.name, `${p.version}#${p.sha256}`]));
  const plugins = (agent?.plugins ?? []).map((p) => `${p.name}@${installed.get(p.name) ?? "-"}`);
  const pins = Object.keys(agent?.mcp_servers ?? {}).map((s) => `${s}@${runtime.mcpClient.pins.get(`${agentName}/${s}`)?.acceptedAt ?? "-"}`);
  return [...plugins, ...pins].join(",");
}
