import { agentRiskOverride } from "../agents/index.js";
import { argsHash, type Approval } from "../policy/approvals/index.js";
import type { CapabilityGrant } from "../policy/catalogue/index.js";
import { parseTaskGrants } from "./agent-setup.js";
import { toolRisk, unreachableTool } from "../policy/engine.js";
import type { Denial } from "../../host-proxies/types.js";
import { toolCallSubject, type ActiveToolCall } from "./host-context.js";
import { fencedAudit } from "./fence.js";
import { ToolExecutor, type Execution } from "./executor.js";
import { checkToolInput } from "./tool-input.js";
import { compileToolSchemas, resolveRunTool, toolPlugins } from "./run-tool-lookup.js";
import type { ApprovalNeeded, ToolCallOutcome, ToolInfo } from "./types.js";
import { McpRunCalls, mcpCapability, serverManifest } from "../mcp-client/index.js";
import type { PluginManifest } from "../plugins/manifest.js";
import type { CallToolOptions, RunServices, RunSetup, RunSide } from "./run-setup.js";
import { requestToolApproval } from "./tool-approval.js";
import { logToolCallEnd } from "./tool-call-log.js";
import { McpServerSecrets } from "./mcp-secrets.js";
import { approvalOutcome, errorOutcome, stillWaiting } from "./tool-call-outcome.js";

export type { RunSide } from "./run-setup.js";

/**
 * A run's ToolCalls: the risk gate (Guarded calls wait for an approval), the run's instances and
 * MCP servers they run on, their audit records and outcomes, pauses and replays.
 */
export class RunToolCalls {
  readonly #setup: RunSetup;
  readonly #services: RunServices;
  readonly #side: RunSide;
  readonly #executor: ToolExecutor;
  /** Calls to the agent's MCP servers (none when it lists none). */
  readonly #mcp: McpRunCalls | undefined;
  #nextStep = 1;
  #nextCall = 1;
  /** Per MCP server of the run: the secrets its environment holds. */
  #mcpSecrets: McpServerSecrets;

  constructor(setup: RunSetup, services: RunServices, side: RunSide) {
    this.#setup = setup;
    this.#services = services;
    this.#side = side;
    if (services.mcp && Object.keys(setup.agent.mcp_servers).length > 0) this.#mcp = new McpRunCalls(services.mcp, setup.agent);
    this.#mcpSecrets = new McpServerSecrets(setup, services);
    this.#executor = new ToolExecutor(setup, services, {
      subject: () => side.subject(),
      emit: (event) => side.emit(event),
      report: side.report,
      stopped: (options) => side.stoppedBeforeEffect(options),
      fence: () => side.fence(),
      effect: (effect) => side.effects.add(effect),
    });
  }

  /**
   * Prepares what the run's first calls need, off their path: its plugins loaded with an
   * instance of each ready (unbound until a call takes it), its tools' input schemas compiled.
   */
  async prepare(): Promise<void> {
    const plugins = toolPlugins(this.#setup.tools);
    const ready = this.#executor.prepare(plugins);
    // The schemas compile (the first one ~0.1 s of CPU, the validator's own start) once the
    // plugins are loaded and their instances are being made off this thread, not before: a
    // first call waits for its instance, and would wait for the compile too.
    await Promise.allSettled(plugins.map((name) => this.#services.plugins.get(name)?.load()));
    await new Promise((resolve) => setImmediate(resolve));
    compileToolSchemas(this.#setup.tools);
    await ready;
  }

  /** Lets go of the run's instances and MCP servers (a pause, an end). */
  async releaseAll(reason: string): Promise<void> {
    await Promise.all([this.#executor.releaseAll(reason), this.#mcp?.releaseAll()]);
  }

  /** Stops the ToolCalls in flight: their instances and servers are replaced. */
  async abortAll(reason: string): Promise<void> {
    await Promise.all([this.#executor.abortAll(reason), this.#mcp?.abortAll()]);
  }

  /** A ToolCall by name, once the run has said it may start one (see Run.callTool). */
  async call(name: string, input: unknown, options: CallToolOptions): Promise<ToolCallOutcome> {
    const tool = this.#resolve(name);
    const elevation = options.elevation === undefined ? undefined : parseTaskGrants(options.elevation, this.#setup.agent, { field: "elevation", hostGuard: this.#services.mountGuard });
    const stepId = options.stepId ?? `step_${this.#nextStep++}`;
    return this.#call(tool, input ?? {}, { ...options, elevation, stepId, toolApproved: false });
  }

  /**
   * Pauses for a person instead of replaying a ToolCall that this run's previous node was inside
   * when it stopped, and that had begun effects (`reason` shows them): replaying it silently
   * could make them twice. Approved, the ToolCall runs again; denied, it fails.
   */
  async pauseInterrupted(name: string, input: unknown, options: { stepId: string; reason: string }): Promise<ToolCallOutcome> {
    const tool = this.#resolve(name);
    const calling = { plugin: this.#services.plugins.get(tool.plugin)!.manifest, name: tool.name, capabilities: tool.capabilities };
    const risk = toolRisk(calling, { agentOverride: agentRiskOverride(this.#setup.agent, tool.qualifiedName) }).risk;
    const active: ActiveToolCall = { tool: calling, qualifiedName: tool.qualifiedName, toolCallId: `call_${this.#nextCall++}`, stepId: options.stepId, risk };
    const started = performance.now();
    const requested = await requestToolApproval(this.#setup, this.#services, this.#side.subject(), active, input, undefined, options.reason, this.#side.report.secretsRead());
    if ("message" in requested) return this.#refuse(active, input, started, requested);
    return this.#pause(active, input, started, requested, true);
  }

  /**
   * Records a ToolCall refused before it could start because its input never became a value
   * (the model's arguments were malformed, not an object, or past the JSON limits): one audit
   * denial, as for an input refused here. A tool the run does not have is not recorded here.
   */
  /** A ToolCall refused before it starts (see Run.refuseCall); false for a tool the run lacks. */
  async refuseCall(name: string, input: unknown, options: { stepId: string; kind: string; denial: Denial }): Promise<boolean> {
    const tool = this.#setup.tools.find((t) => t.qualifiedName === name) ?? this.#setup.tools.filter((t) => t.name === name).at(0);
    if (!tool) return false;
    const calling = { plugin: this.#manifestOf(tool), name: tool.name, capabilities: tool.capabilities };
    const risk = toolRisk(calling, { agentOverride: agentRiskOverride(this.#setup.agent, tool.qualifiedName) }).risk;
    const active: ActiveToolCall = { tool: calling, qualifiedName: tool.qualifiedName, toolCallId: `call_${this.#nextCall++}`, stepId: options.stepId, risk };
    this.#side.emit({ type: "tool-call", id: active.toolCallId, tool: tool.qualifiedName, stepId: options.stepId, input, at: this.#services.now() });
    await this.#refuse(active, input, performance.now(), options.denial, options.kind);
    return true;
  }

  /**
   * Replays the paused ToolCall once its approval is decided. Returns the ToolCall's new
   * outcome (which may pause again for another effect), or `undefined` if nothing was pending.
   */
  async resume(): Promise<ToolCallOutcome | undefined> {
    const pending = this.#side.pending();
    // A wait for a sub-agent is not a ToolCall to replay: the run loop takes the child's outcome.
    if (!pending || this.#side.status() !== "awaiting_approval" || pending.childRunId !== undefined) return undefined;
    // A cancel recorded while the run waited (on any node, before a restart) wins over any
    // approval given since: the replay does not happen.
    await this.#side.stopIfAsked();
    const approval = await this.#services.approvals.get(pending.approvalId);
    const tool = this.#resolve(pending.tool);
    if (!approval || approval.status === "pending") return stillWaiting(`call_${this.#nextCall++}`, tool.qualifiedName, { pending, approval });
    await this.#side.setPending(null);
    this.#side.report.approval({ id: approval.id, kind: approval.kind, tool: approval.tool, outcome: approval.status });
    if (approval.status !== "approved" && approval.status !== "used") {
      const kind = approval.status === "expired" ? "approval-expired" : "approval-denied";
      const message = `approval ${approval.id} was ${approval.status}${approval.decisionReason ? `: ${approval.decisionReason}` : ""}`;
      // Finished like any other outcome: counted in the report, shown as the call's result.
      const outcome: ToolCallOutcome = { id: `call_${this.#nextCall++}`, tool: tool.qualifiedName, stepId: pending.stepId, status: "error", error: { kind, message }, durationMs: 0 };
      this.#finish(outcome);
      return outcome;
    }
    return this.#call(tool, pending.input, { stepId: pending.stepId, toolApproved: pending.toolApproved === true });
  }

  async #call(tool: ToolInfo, input: unknown, options: Omit<CallToolOptions, "elevation"> & { elevation?: CapabilityGrant | undefined; stepId: string; toolApproved: boolean }): Promise<ToolCallOutcome> {
    // The store, not this node's memory, says whether the run may go on: a cancel recorded on
    // another node (or before a restart) stops it before this ToolCall starts.
    await this.#side.stopIfAsked();
    const id = `call_${this.#nextCall++}`;
    const started = performance.now();
    // Checked before the input is recorded, shown to a person or sent to a guest.
    const refused = checkToolInput(tool, input);
    this.#side.emit({ type: "tool-call", id, tool: tool.qualifiedName, stepId: options.stepId, input: refused ? refused.recorded : input, at: this.#services.now() });
    const calling = { plugin: this.#manifestOf(tool), name: tool.name, capabilities: tool.capabilities };
    const risk = toolRisk(calling, { agentOverride: agentRiskOverride(this.#setup.agent, tool.qualifiedName) }).risk;
    const active: ActiveToolCall = { tool: calling, qualifiedName: tool.qualifiedName, toolCallId: id, stepId: options.stepId, risk };
    if (refused) return this.#refuse(active, refused.recorded, started, refused.denial, refused.kind);
    let toolApproved = options.toolApproved;
    let approvalResult = "approved";
    // An MCP server's call is its one effect, made outside any host proxy: Unsafe asks a person
    // before each call as Guarded does (a plugin's Unsafe effects are approved one by one instead).
    if ((risk === "guarded" || (tool.mcp !== undefined && risk === "unsafe")) && !toolApproved) {
      // A person is never asked to approve what the policy would refuse anyway.
      const unreachable = unreachableTool(options.elevation ? { ...this.#setup.layers, elevation: options.elevation } : this.#setup.layers, calling, { input });
      if (unreachable) return this.#refuse(active, input, started, unreachable);
      const approval = await this.#services.approvals.consumeToolCall({ runId: this.#setup.id, stepId: options.stepId, tool: tool.qualifiedName, argsHash: argsHash(input) });
      // After the grant allowed it (`unreachable` above): a pattern stands in for a person, never for the grant.
      const pattern = approval ? undefined : await this.#services.approvals.matchPattern({ agent: this.#setup.agent.name, runId: this.#setup.id, kind: "tool_call", tool: tool.qualifiedName, arguments: input });
      if (pattern) approvalResult = `pattern:${pattern.id}`;
      if (!approval && pattern) this.#side.report.approval({ id: pattern.id, kind: "tool_call", tool: pattern.tool, outcome: "approved" });
      if (!approval && !pattern) {
        const requested = await requestToolApproval(this.#setup, this.#services, this.#side.subject(), active, input, options.context, undefined, this.#side.report.secretsRead());
        if ("message" in requested) return this.#refuse(active, input, started, requested);
        return this.#pause(active, input, started, requested);
      }
      if (approval) this.#side.report.approval({ id: approval.id, kind: approval.kind, tool: approval.tool, outcome: "approved" });
      toolApproved = true;
    }
    const result = tool.mcp
      ? await this.#callMcp(tool, active, input, { timeoutMs: options.timeoutMs, approvalResult: toolApproved ? approvalResult : null })
      : await this.#executor.execute(active, input, { elevation: options.elevation, timeoutMs: options.timeoutMs, approvalResult: toolApproved ? approvalResult : null, context: options.context });
    // Fenced out during the call (its effect was refused): the new holder goes on, not this node.
    if (this.#side.takenOver()) throw this.#side.takenOverError();
    if (result.effectApproval) return this.#pause(active, input, started, result.effectApproval, toolApproved);
    const outcome: ToolCallOutcome = result.ok
      ? { id, tool: tool.qualifiedName, stepId: options.stepId, status: "ok", output: result.output, durationMs: performance.now() - started }
      : { id, tool: tool.qualifiedName, stepId: options.stepId, status: "error", error: result.error!, durationMs: performance.now() - started };
    this.#finish(outcome);
    return outcome;
  }

  /** The plugin manifest policy sees for `tool`: its plugin's, or its MCP server's stand-in. */
  #manifestOf(tool: ToolInfo): PluginManifest {
    if (tool.mcp) return serverManifest(tool.mcp.server, this.#setup.tools.filter((t) => t.plugin === tool.plugin).map((t) => t.name));
    return this.#services.plugins.get(tool.plugin)!.manifest;
  }

  /** A ToolCall to an MCP server (after the risk gate): audited intent and outcome, or a denial. */
  async #callMcp(tool: ToolInfo, active: ActiveToolCall, input: unknown, options: { timeoutMs?: number | undefined; approvalResult: string | null }): Promise<Execution> {
    const stopped = await this.#side.stoppedBeforeEffect();
    if (stopped !== undefined) return { ok: false as const, error: { kind: "run-stopped", message: stopped.message } };
    if (!this.#mcp) return { ok: false as const, error: { kind: "mcp-unavailable", message: `this runtime has no MCP client for ${tool.qualifiedName}` } };
    const granted = Object.keys(this.#setup.layers.task ?? this.#setup.layers.agent.grants);
    const spec = this.#setup.agent.mcp_servers[tool.plugin];
    const result = await this.#mcp.execute(tool, input, {
      timeoutMs: options.timeoutMs ?? spec?.call_timeout_ms ?? this.#setup.agent.limits.call_timeout_ms,
      hooks: {
        // The server call is an effect: its intent is fenced like a host call's.
        audit: fencedAudit(this.#services.audit, () => this.#side.fence()),
        subject: () => toolCallSubject(this.#side.subject(), { active, input, granted, approvalResult: options.approvalResult }),
        used: (capability) => this.#side.report.used(capability),
        denied: (denial) => this.#side.report.denied(denial),
        effect: () => this.#side.effects.add({ toolCallId: active.toolCallId, tool: active.qualifiedName, capability: mcpCapability(tool.plugin) }),
        review: (execution) => this.#mcpSecrets.review(execution, { server: tool.plugin, active, report: this.#side.report }),
      },
    });
    // Its intent refused by the fence (or not written): the store says whether the run was
    // cancelled or taken over meanwhile, so a node taken over stops here as after a host call.
    const why = !result.ok && result.error?.kind === "audit-failed" ? await this.#side.stoppedBeforeEffect() : undefined;
    return why === undefined ? result : { ok: false, error: { kind: "run-stopped", message: why.message } };
  }

  /** Ends a ToolCall before it runs: the denial is audited and goes back as its error. */
  async #refuse(active: ActiveToolCall, input: unknown, started: number, denial: Denial, kind = "denied"): Promise<ToolCallOutcome> {
    const granted = Object.keys(this.#setup.layers.task ?? this.#setup.layers.agent.grants);
    await this.#services.audit.appendDenial({ ...toolCallSubject(this.#side.subject(), { active, input, granted, approvalResult: null }), denial });
    this.#side.report.denied(denial);
    const outcome = errorOutcome(active, started, { kind, message: denial.message, denial });
    this.#finish(outcome);
    return outcome;
  }

  /** Pauses the run on `approval`: the run holds no instance while it waits. */
  async #pause(active: ActiveToolCall, input: unknown, started: number, approval: Approval, toolApproved = false): Promise<ToolCallOutcome> {
    await Promise.all([this.#executor.releaseAll("paused for approval"), this.#mcp?.releaseAll(), this.#services.audit.flush()]);
    await this.#side.setPending({ tool: active.qualifiedName, input, stepId: active.stepId, approvalId: approval.id, ...(toolApproved ? { toolApproved } : {}) });
    const needed: ApprovalNeeded = { id: approval.id, kind: approval.kind, tool: approval.tool, reason: approval.reason, expiresAt: approval.expiresAt };
    this.#side.emit({ type: "approval-required", toolCallId: active.toolCallId, approval: needed, at: this.#services.now() });
    await this.#side.flushEvents();
    const outcome = approvalOutcome(active, started, needed);
    this.#finish(outcome);
    return outcome;
  }

  #finish(outcome: ToolCallOutcome): void {
    this.#side.effects.finished(outcome);
    this.#side.report.toolCall(outcome);
    logToolCallEnd(outcome);
    this.#side.emit({
      type: "tool-result",
      id: outcome.id,
      tool: outcome.tool,
      status: outcome.status,
      ...(outcome.status === "error" ? { error: outcome.error } : {}),
      durationMs: outcome.durationMs,
      at: this.#services.now(),
    });
  }

  #resolve(name: string): ToolInfo {
    return resolveRunTool(this.#setup.tools, name, this.#setup.agent.name);
  }

  /**
   * Pauses the run until sub-agent run `wait.childRunId` ends: the child waits for approval
   * `wait.approvalId`, so this run does too (holding no instance). Approvers see the approval
   * once, as the child's; this run's stream shows it too.
   */
  async waitForSubAgent(wait: { tool: string; input: unknown; stepId: string; approvalId: string; childRunId: string; toolCallId: string }): Promise<void> {
    await this.releaseAll("paused for a sub-agent");
    const { toolCallId, ...pending } = wait;
    await this.#side.setPending(pending);
    const approval = await this.#services.approvals.get(wait.approvalId);
    const needed: ApprovalNeeded = {
      id: wait.approvalId,
      kind: approval?.kind ?? "tool_call",
      tool: approval?.tool ?? wait.tool,
      reason: approval?.reason ?? `sub-agent run ${wait.childRunId} waits for a person`,
      expiresAt: approval?.expiresAt ?? 0,
    };
    this.#side.emit({ type: "approval-required", toolCallId, approval: needed, subAgentRunId: wait.childRunId, at: this.#services.now() });
    await this.#side.flushEvents();
  }
}
