import { ConflictError, NotFoundError } from "../errors.js";
import type { AgentManifest } from "../agents/index.js";
import { agentRiskOverride } from "../agents/index.js";
import { ApprovalError, argsHash, type Approval } from "../policy/approvals/index.js";
import type { CapabilityGrant } from "../policy/catalogue/index.js";
import { parseTaskGrants } from "./agent-setup.js";
import { toolRisk, unreachableTool, type PolicyLayers } from "../policy/engine.js";
import type { Denial } from "../../host-proxies/types.js";
import { toolCallSubject, type ActiveToolCall, type RunStopped } from "./host-context.js";
import { effectGuard, fencedAudit } from "./fence.js";
import { approvalTooLarge, ToolExecutor, type Execution } from "./executor.js";
import { checkToolInput } from "./tool-input.js";
import type { PendingToolCall, RunEndReason, RunStatus } from "./records.js";
import { untrustedSources } from "./untrusted-sources.js";
import { ReportBuilder, type LeastPrivilegeReport } from "./report.js";
import type { CommittedEffect } from "./errors.js";
import { EffectLedger, type EffectMade } from "./effects.js";
import type { ApprovalNeeded, RunEvent, StepEvent, ToolCallOutcome, ToolInfo } from "./types.js";
import type { AuditSubject } from "../audit/index.js";
import { McpRunCalls, mcpCapability, serverManifest } from "../mcp-client/index.js";
import type { PluginManifest } from "../plugins/manifest.js";

export type { EffectMade } from "./effects.js";

export type { RunServices, RunSetup } from "./run-types.js";
import type { RunServices, RunSetup } from "./run-types.js";

/** Events a Run keeps in memory (all of them are in the store). */
const EVENTS_KEPT = 10_000;

export interface CallToolOptions {
  /** The step this call belongs to; a replay after an approval reuses its step. */
  stepId?: string;
  /** Restores, for this step only, what the task narrowed away (a grant within the agent's). */
  elevation?: unknown;
  timeoutMs?: number;
  /** The text that led to the call, shown to the person asked to approve it. */
  context?: string;
}

/**
 * One execution of a Task for an Agent. Every ToolCall passes the risk gate (Guarded calls wait
 * for an approval), runs on the run's own instances, and every host call it makes passes the
 * grant gate; all of it is audited under the run's trace id. A run waiting for a person holds
 * no instance, and is resumed (also by another runtime process) by replaying its ToolCall.
 */
export class Run {
  readonly id: string;
  readonly traceId: string;
  readonly taskId: string;
  readonly agent: AgentManifest;
  readonly events: RunEvent[] = [];
  #setup: RunSetup;
  #services: RunServices;
  #executor: ToolExecutor;
  #listeners = new Set<(event: RunEvent, seq: number) => void>();
  #status: RunStatus;
  #pending: PendingToolCall | null;
  #nextStep = 1;
  #nextCall = 1;
  #report: ReportBuilder;
  #seq: number;
  #cancelled = false;
  /** Another node holds the run now (the store said so): nothing further is done here. */
  #takenOver = false;
  /** The run's end is in the store (`ended` alone says only that this node ended it). */
  #endRecorded = false;
  #endWrite: Promise<void> | undefined;
  #endReason: RunEndReason = "completed";
  #endResult: string | undefined;
  #effects = new EffectLedger();
  /** Calls to the agent's MCP servers (none when it lists none). */
  #mcp: McpRunCalls | undefined;

  constructor(setup: RunSetup, services: RunServices) {
    this.id = setup.id;
    this.traceId = setup.traceId;
    this.taskId = setup.taskId;
    this.agent = setup.agent;
    this.#setup = setup;
    this.#services = services;
    this.#status = setup.status ?? "active";
    this.#pending = setup.pending ?? null;
    this.#seq = setup.lastEventSeq ?? 0;
    this.#report = new ReportBuilder([...Object.keys(setup.layers.task ?? setup.layers.agent.grants), ...Object.keys(setup.agent.mcp_servers).map(mcpCapability)]);
    if (services.mcp && Object.keys(setup.agent.mcp_servers).length > 0) this.#mcp = new McpRunCalls(services.mcp, setup.agent);
    this.#executor = new ToolExecutor(setup, services, {
      subject: () => this.#subject(),
      emit: (event) => this.#emit(event),
      report: this.#report,
      stopped: () => this.#stoppedBeforeEffect(),
      fence: () => this.#fence(),
      effect: (effect) => this.#effects.add(effect),
    });
  }

  get status(): RunStatus {
    return this.#status;
  }
  get ended(): boolean {
    return this.#status === "ended";
  }
  /** The run that spawned this one (a sub-agent's parent), or null. */
  get parentRunId(): string | null {
    return this.#setup.parentRunId;
  }
  /** The ToolCall waiting for a person, if any. */
  get pending(): PendingToolCall | null {
    return this.#pending;
  }
  /** Cancellation was asked for: no further ToolCall starts. */
  get cancelled(): boolean {
    return this.#cancelled;
  }
  /** This node ended the run but could not yet write its end to the store (it retries). */
  get endUnrecorded(): boolean {
    return this.#status === "ended" && !this.#endRecorded;
  }
  /** The effects the run has made so far (see EffectMade). */
  get effects(): readonly EffectMade[] {
    return this.#effects.list;
  }
  /** The effects made so far with their ToolCalls' outcomes, as a client is told of them. */
  committed(): CommittedEffect[] {
    return this.#effects.committed();
  }
  /** The tools this run may call. */
  get tools(): readonly ToolInfo[] {
    return this.#setup.tools;
  }
  /** Every layer the run's host calls must satisfy (agent, task, ancestors). */
  get layers(): PolicyLayers {
    return this.#setup.layers;
  }

  /** `seq` numbers the run's events (as stored), so a stream can resume after one. */
  onEvent(listener: (event: RunEvent, seq: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls a tool by `plugin.tool` (or a bare name when only one plugin has it). Tool-level
   * failures and pauses for approval come back as outcomes; caller mistakes throw.
   */
  async callTool(name: string, input: unknown, options: CallToolOptions = {}): Promise<ToolCallOutcome> {
    // Cancelled first: a cancel this node's tick noticed ends the run at once, and the caller is
    // told it was cancelled, as when this call's own check notices it.
    if (this.#cancelled || this.#endReason === "cancelled") throw new ConflictError("run_cancelled", `run ${this.id} was cancelled`);
    if (this.#status === "ended") throw new ConflictError("run_ended", `run ${this.id} has ended; start a new run`);
    if (this.#takenOver) throw this.#takenOverError();
    if (this.#status === "awaiting_approval") {
      throw new ConflictError("run_awaiting_approval", `run ${this.id} waits for approval ${this.#pending?.approvalId}; decide it, then resume the run`);
    }
    const tool = this.#resolve(name);
    const elevation = options.elevation === undefined ? undefined : parseTaskGrants(options.elevation, this.agent, { field: "elevation", hostGuard: this.#services.mountGuard });
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
    const risk = toolRisk(calling, { agentOverride: agentRiskOverride(this.agent, tool.qualifiedName) }).risk;
    const active: ActiveToolCall = { tool: calling, qualifiedName: tool.qualifiedName, toolCallId: `call_${this.#nextCall++}`, stepId: options.stepId, risk };
    const started = performance.now();
    const requested = await this.#requestToolApproval(active, input, undefined, options.reason);
    if ("message" in requested) return this.#refuse(active, input, started, requested);
    return this.#pause(active, input, started, requested, true);
  }

  /**
   * Records a ToolCall refused before it could start because its input never became a value
   * (the model's arguments were malformed, not an object, or past the JSON limits): one audit
   * denial, as for an input refused here. A tool the run does not have is not recorded here.
   */
  async refuseUnreadableInput(name: string, message: string, options: { stepId: string; raw?: string }): Promise<boolean> {
    const tool = this.#setup.tools.find((t) => t.qualifiedName === name) ?? this.#setup.tools.filter((t) => t.name === name).at(0);
    if (!tool) return false;
    const calling = { plugin: this.#manifestOf(tool), name: tool.name, capabilities: tool.capabilities };
    const risk = toolRisk(calling, { agentOverride: agentRiskOverride(this.agent, tool.qualifiedName) }).risk;
    const active: ActiveToolCall = { tool: calling, qualifiedName: tool.qualifiedName, toolCallId: `call_${this.#nextCall++}`, stepId: options.stepId, risk };
    const recorded = { refused: "malformed-input", characters: options.raw?.length ?? 0 };
    this.#emit({ type: "tool-call", id: active.toolCallId, tool: tool.qualifiedName, stepId: options.stepId, input: recorded, at: this.#services.now() });
    await this.#refuse(active, recorded, performance.now(), { capability: "tool-input", reason: "malformed-input", message }, "invalid-input");
    return true;
  }

  /**
   * Replays the paused ToolCall once its approval is decided. Returns the ToolCall's new
   * outcome (which may pause again for another effect), or `undefined` if nothing was pending.
   */
  async resume(): Promise<ToolCallOutcome | undefined> {
    const pending = this.#pending;
    // A wait for a sub-agent is not a ToolCall to replay: the run loop takes the child's outcome.
    if (!pending || this.#status !== "awaiting_approval" || pending.childRunId !== undefined) return undefined;
    // A cancel recorded while the run waited (on any node, before a restart) wins over any
    // approval given since: the replay does not happen.
    await this.#stopIfAsked();
    const approval = await this.#services.approvals.get(pending.approvalId);
    const tool = this.#resolve(pending.tool);
    if (!approval || approval.status === "pending") return this.#stillWaiting(tool, pending, approval);
    await this.#setPending(null);
    this.#report.approval({ id: approval.id, kind: approval.kind, tool: approval.tool, outcome: approval.status });
    if (approval.status !== "approved" && approval.status !== "used") {
      const kind = approval.status === "expired" ? "approval-expired" : "approval-denied";
      const message = `approval ${approval.id} was ${approval.status}${approval.decisionReason ? `: ${approval.decisionReason}` : ""}`;
      return { id: `call_${this.#nextCall++}`, tool: tool.qualifiedName, stepId: pending.stepId, status: "error", error: { kind, message }, durationMs: 0 };
    }
    return this.#call(tool, pending.input, { stepId: pending.stepId, toolApproved: pending.toolApproved === true });
  }

  /**
   * Pauses the run until sub-agent run `wait.childRunId` ends: the child waits for approval
   * `wait.approvalId`, so this run does too (status `awaiting_approval`, holding no instance).
   * Approvers see the approval once, as the child's; this run's stream shows it too.
   */
  async waitForSubAgent(wait: { tool: string; input: unknown; stepId: string; approvalId: string; childRunId: string; toolCallId: string }): Promise<void> {
    if (this.#status === "ended") throw new ConflictError("run_ended", `run ${this.id} has ended`);
    await Promise.all([this.#executor.releaseAll("paused for a sub-agent"), this.#mcp?.releaseAll()]);
    const { toolCallId, ...pending } = wait;
    await this.#setPending(pending);
    const approval = await this.#services.approvals.get(wait.approvalId);
    const needed: ApprovalNeeded = {
      id: wait.approvalId,
      kind: approval?.kind ?? "tool_call",
      tool: approval?.tool ?? wait.tool,
      reason: approval?.reason ?? `sub-agent run ${wait.childRunId} waits for a person`,
      expiresAt: approval?.expiresAt ?? 0,
    };
    this.#emit({ type: "approval-required", toolCallId, approval: needed, subAgentRunId: wait.childRunId, at: this.#services.now() });
    await this.flushEvents();
  }

  /**
   * The sub-agent this run waits for (or its own child) asks a person again: the store already
   * names the new approval (`RunRecords.setPending`); this run's stream shows it too, once.
   */
  relaySubAgentApproval(approval: ApprovalNeeded, childRunId: string): void {
    const pending = this.#pending;
    if (this.#status !== "awaiting_approval" || pending?.childRunId !== childRunId || pending.approvalId === approval.id) return;
    this.#pending = { ...pending, approvalId: approval.id };
    this.#emit({ type: "approval-required", toolCallId: pending.stepId, approval, subAgentRunId: childRunId, at: this.#services.now() });
  }

  /** The sub-agent this run waited for has ended: the run is active again. */
  async subAgentEnded(): Promise<void> {
    if (this.#pending?.childRunId !== undefined) await this.#setPending(null);
  }

  /**
   * Ends the run: destroys its instances, closes their grants, withdraws the approvals it still
   * asked for, stores its report. If the store write fails the run is ended here all the same
   * (no further ToolCall starts) and a later call (the driver retries) writes it again; `result`
   * says why a run failed when nothing else did.
   */
  async end(reason: RunEndReason = "completed", options: { result?: string } = {}): Promise<LeastPrivilegeReport> {
    if (this.#status !== "ended") {
      this.#status = "ended";
      this.#endReason = reason;
      this.#endResult = options.result;
      await this.#executor.releaseAll("run ended").catch(() => undefined);
      await this.#mcp?.releaseAll().catch(() => undefined);
      // Every event is stored before the record says ended: a stream that sees the run ended has
      // already been able to read its last event.
      this.#emit({ type: "run-ended", reason, at: this.#services.now() });
    }
    while (!this.#endRecorded) {
      this.#endWrite ??= this.#recordEnd().finally(() => (this.#endWrite = undefined));
      await this.#endWrite;
    }
    return this.#report.build();
  }

  /**
   * Ends the run `failed` because the runtime itself failed during a Step (a store or audit
   * write, a serialisation, an agent this node does not know): a `finish` Step names the code,
   * the run's result says what failed and which effects were already made.
   */
  async fail(failure: { code: string; message: string }): Promise<LeastPrivilegeReport> {
    if (this.#status !== "ended") {
      this.recordStep({ stepId: "finish", action: "finish", usage: null, reason: failure.code });
      return this.end("failed", { result: `the run failed: ${failure.code}: ${failure.message}${this.#effects.summary()}` });
    }
    return this.end();
  }

  async #recordEnd(): Promise<void> {
    // Its audit records too (a model call's record is queued, not awaited); one that cannot be
    // written does not keep the run from ending.
    await Promise.all([this.flushEvents(), this.#services.audit.flush().catch(() => undefined)]);
    await this.#services.approvals.withdrawForRun(this.id, `run ${this.id} ended (${this.#endReason}) before the approval was used`);
    await this.#services.records.end(this.id, this.#report.build(), this.#services.now(), this.#endReason, this.#endResult);
    this.#endRecorded = true;
    this.#services.onEnded?.(this.id);
  }

  /**
   * Cancels the run: no further ToolCall starts, a ToolCall in flight is stopped (its worker
   * ended; other runs' instances there are rebuilt), and the run ends as cancelled.
   */
  async cancel(): Promise<LeastPrivilegeReport> {
    this.#cancelled = true;
    // A tool still running is stopped, not waited for.
    await Promise.all([this.#executor.abortAll("the run was cancelled"), this.#mcp?.abortAll()]);
    return this.end("cancelled");
  }

  /**
   * Stops the ToolCalls in flight without cancelling the run (their instances are replaced): each
   * ends as an error outcome. For a caller that withdraws a call, e.g. an MCP client's cancellation.
   */
  async abortToolCalls(reason: string): Promise<void> {
    await Promise.all([this.#executor.abortAll(reason), this.#mcp?.abortAll()]);
  }

  /** Records a Step of the model-driven loop (runs/loop) among the run's events. */
  recordStep(step: Omit<StepEvent, "type" | "at">): void {
    this.#emit({ type: "step", ...step, at: this.#services.now() });
  }

  /** Records text the model streamed during a Step (runs/loop/text-events.ts coalesces the deltas). */
  recordText(stepId: string, text: string): void {
    if (text !== "") this.#emit({ type: "text", stepId, text, at: this.#services.now() });
  }

  /** Waits until every event so far is in the store. */
  async flushEvents(): Promise<void> {
    await this.#services.events?.flush().catch(() => undefined);
  }

  /** The least-privilege report so far. */
  report(): LeastPrivilegeReport {
    return this.#report.build();
  }

  async #call(tool: ToolInfo, input: unknown, options: Omit<CallToolOptions, "elevation"> & { elevation?: CapabilityGrant | undefined; stepId: string; toolApproved: boolean }): Promise<ToolCallOutcome> {
    // The store, not this node's memory, says whether the run may go on: a cancel recorded on
    // another node (or before a restart) stops it before this ToolCall starts.
    await this.#stopIfAsked();
    const id = `call_${this.#nextCall++}`;
    const started = performance.now();
    // Checked before the input is recorded, shown to a person or sent to a guest.
    const refused = checkToolInput(tool, input);
    this.#emit({ type: "tool-call", id, tool: tool.qualifiedName, stepId: options.stepId, input: refused ? refused.recorded : input, at: this.#services.now() });
    const calling = { plugin: this.#manifestOf(tool), name: tool.name, capabilities: tool.capabilities };
    const risk = toolRisk(calling, { agentOverride: agentRiskOverride(this.agent, tool.qualifiedName) }).risk;
    const active: ActiveToolCall = { tool: calling, qualifiedName: tool.qualifiedName, toolCallId: id, stepId: options.stepId, risk };
    if (refused) return this.#refuse(active, refused.recorded, started, refused.denial, refused.kind);
    let toolApproved = options.toolApproved;
    // An MCP server's call is its one effect, made outside any host proxy: Unsafe asks a person
    // before each call as Guarded does (a plugin's Unsafe effects are approved one by one instead).
    if ((risk === "guarded" || (tool.mcp !== undefined && risk === "unsafe")) && !toolApproved) {
      // A person is never asked to approve what the policy would refuse anyway.
      const unreachable = unreachableTool(options.elevation ? { ...this.#setup.layers, elevation: options.elevation } : this.#setup.layers, calling, { input });
      if (unreachable) return this.#refuse(active, input, started, unreachable);
      const approval = await this.#services.approvals.consumeToolCall({ runId: this.id, stepId: options.stepId, tool: tool.qualifiedName, argsHash: argsHash(input) });
      if (!approval) {
        const requested = await this.#requestToolApproval(active, input, options.context);
        if ("message" in requested) return this.#refuse(active, input, started, requested);
        return this.#pause(active, input, started, requested);
      }
      this.#report.approval({ id: approval.id, kind: approval.kind, tool: approval.tool, outcome: "approved" });
      toolApproved = true;
    }
    const result = tool.mcp
      ? await this.#callMcp(tool, active, input, { timeoutMs: options.timeoutMs, approvalResult: toolApproved ? "approved" : null })
      : await this.#executor.execute(active, input, { elevation: options.elevation, timeoutMs: options.timeoutMs, approvalResult: toolApproved ? "approved" : null, context: options.context });
    // Fenced out during the call (its effect was refused): the new holder goes on, not this node.
    if (this.#takenOver) throw this.#takenOverError();
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
    const stopped = await this.#stoppedBeforeEffect();
    if (stopped !== undefined) return { ok: false as const, error: { kind: "run-stopped", message: stopped.message } };
    if (!this.#mcp) return { ok: false as const, error: { kind: "mcp-unavailable", message: `this runtime has no MCP client for ${tool.qualifiedName}` } };
    const granted = Object.keys(this.#setup.layers.task ?? this.#setup.layers.agent.grants);
    const spec = this.agent.mcp_servers[tool.plugin];
    return this.#mcp.execute(tool, input, {
      timeoutMs: options.timeoutMs ?? spec?.call_timeout_ms ?? this.agent.limits.call_timeout_ms,
      hooks: {
        // The server call is an effect: its intent is fenced like a host call's.
        audit: fencedAudit(this.#services.audit, () => this.#fence()),
        subject: () => toolCallSubject(this.#subject(), { active, input, granted, approvalResult: options.approvalResult }),
        used: (capability) => this.#report.used(capability),
        denied: (denial) => this.#report.denied(denial),
        effect: () => this.#effects.add({ toolCallId: active.toolCallId, tool: active.qualifiedName, capability: mcpCapability(tool.plugin) }),
      },
    });
  }

  /** Ends a ToolCall before it runs: the denial is audited and goes back as its error. */
  async #refuse(active: ActiveToolCall, input: unknown, started: number, denial: Denial, kind = "denied"): Promise<ToolCallOutcome> {
    const granted = Object.keys(this.#setup.layers.task ?? this.#setup.layers.agent.grants);
    await this.#services.audit.appendDenial({ ...toolCallSubject(this.#subject(), { active, input, granted, approvalResult: null }), denial });
    this.#report.denied(denial);
    const outcome: ToolCallOutcome = {
      id: active.toolCallId,
      tool: active.qualifiedName,
      stepId: active.stepId,
      status: "error",
      error: { kind, message: denial.message, denial },
      durationMs: performance.now() - started,
    };
    this.#finish(outcome);
    return outcome;
  }

  /** The approval a Guarded call waits for, or the denial when none can be filed (too large). */
  async #requestToolApproval(active: ActiveToolCall, input: unknown, context: string | undefined, reason?: string): Promise<Approval | Denial> {
    const approval = await this.#services.approvals.request({
      kind: "tool_call",
      runId: this.id,
      traceId: this.traceId,
      agent: this.agent.name,
      parentRunId: this.#setup.parentRunId,
      stepId: active.stepId,
      toolCallId: active.toolCallId,
      tool: active.qualifiedName,
      input,
      risk: active.risk,
      reason: reason ?? `${active.qualifiedName} is ${active.risk === "unsafe" ? "Unsafe" : "Guarded"}: it needs a person's approval before it runs`,
      context: context ?? null,
      untrustedSources: await untrustedSources(this.#services.audit, this.traceId),
      expiryMinutes: this.agent.approvals.expiry_minutes,
    }).catch((error: unknown) => {
      if (error instanceof ApprovalError && error.code === "approval_too_large") return approvalTooLarge(active.tool.capabilities, error);
      throw error;
    });
    if ("message" in approval) return approval;
    const granted = Object.keys(this.#setup.layers.task ?? this.#setup.layers.agent.grants);
    await this.#services.audit.appendDenial({
      ...toolCallSubject(this.#subject(), { active, input, granted, approvalResult: "pending" }),
      denial: { capability: active.tool.capabilities.join(",") || "tool", reason: "approval-required", message: `approval ${approval.id} is needed` },
    });
    return approval;
  }

  /** Pauses the run on `approval`: the run holds no instance while it waits. */
  async #pause(active: ActiveToolCall, input: unknown, started: number, approval: Approval, toolApproved = false): Promise<ToolCallOutcome> {
    await Promise.all([this.#executor.releaseAll("paused for approval"), this.#mcp?.releaseAll(), this.#services.audit.flush()]);
    await this.#setPending({ tool: active.qualifiedName, input, stepId: active.stepId, approvalId: approval.id, ...(toolApproved ? { toolApproved } : {}) });
    const needed: ApprovalNeeded = { id: approval.id, kind: approval.kind, tool: approval.tool, reason: approval.reason, expiresAt: approval.expiresAt };
    this.#emit({ type: "approval-required", toolCallId: active.toolCallId, approval: needed, at: this.#services.now() });
    await this.flushEvents();
    const outcome: ToolCallOutcome = {
      id: active.toolCallId,
      tool: active.qualifiedName,
      stepId: active.stepId,
      status: "approval_required",
      approval: needed,
      durationMs: performance.now() - started,
    };
    this.#finish(outcome);
    return outcome;
  }

  /**
   * Throws `run_cancelled` or `run_ended` when the run may not go on, as the store says (a
   * cancel recorded on any node is honoured here); for work that starts outside a ToolCall,
   * such as spawning a sub-agent.
   */
  ensureMayGoOn(): Promise<void> {
    return this.#stopIfAsked();
  }

  /** Throws `run_cancelled` (after ending the run here) or `run_ended` when the store says the run may not go on. */
  async #stopIfAsked(): Promise<void> {
    if (this.#cancelled) throw new ConflictError("run_cancelled", `run ${this.id} was cancelled`);
    const stopped = await this.#services.records.stopped(this.id, this.#services.node);
    if (stopped === undefined) return;
    if (stopped === "taken") {
      this.#takenOver = true;
      throw this.#takenOverError();
    }
    this.#cancelled = true;
    if (stopped === "cancelled") {
      await this.cancel();
      throw new ConflictError("run_cancelled", `run ${this.id} was cancelled`);
    }
    // Ended by another node (a cancel another node carried out, too): its end is on record;
    // this node only lets go of its instances.
    this.#status = "ended";
    this.#endRecorded = true;
    await this.#executor.releaseAll("run ended elsewhere").catch(() => undefined);
    await this.#mcp?.releaseAll().catch(() => undefined);
    if (stopped === "ended-cancelled") {
      this.#endReason = "cancelled";
      throw new ConflictError("run_cancelled", `run ${this.id} was cancelled`);
    }
    throw new ConflictError("run_ended", `run ${this.id} has ended`);
  }

  /**
   * The host-call gate asks before every effect: a refusal reason when the run was cancelled
   * (on any node) or has ended, else undefined. A cancel seen here ends the run once the
   * refused call is back.
   */
  async #stoppedBeforeEffect(): Promise<RunStopped | undefined> {
    if (this.#takenOver) return { reason: "run-taken-over", message: `run ${this.id} is driven by another node now; no further effect is made here` };
    if (this.#cancelled || this.#status === "ended") return { reason: "run-cancelled", message: `run ${this.id} was cancelled or has ended` };
    const stopped = await this.#services.records.stopped(this.id, this.#services.node);
    if (stopped === undefined) return undefined;
    if (stopped === "taken") {
      this.#takenOver = true;
      return { reason: "run-taken-over", message: `run ${this.id} is driven by another node now (this node's lease ran out); no further effect is made here` };
    }
    if (stopped !== "cancelled") {
      // Ended by another node: its end is on record and stays as it is; this node lets go of
      // its instances once the call this gate serves is back.
      this.#status = "ended";
      this.#endRecorded = true;
      if (stopped === "ended-cancelled") this.#endReason = "cancelled";
      setImmediate(() => void Promise.all([this.#executor.releaseAll("run ended elsewhere"), this.#mcp?.releaseAll()]).catch(() => undefined));
      return { reason: "run-cancelled", message: `run ${this.id} has ended on another node; no further effect is made` };
    }
    this.#cancelled = true;
    // Not awaited here: ending aborts the very call this gate serves. A failed end write is
    // retried by whoever drives the run (it sees `endUnrecorded`).
    setImmediate(() => void this.cancel().catch(() => undefined));
    return { reason: "run-cancelled", message: `run ${this.id} was cancelled; no further effect is made` };
  }

  /** The guard of this run's effect intents: live, not cancelled, held by this node (see effectGuard). */
  #fence() {
    return effectGuard(this.id, this.#services.node, this.#services.now);
  }

  /** `run_taken_over`, once this node's instances of the run are let go of. */
  #takenOverError(): ConflictError {
    void this.#executor.releaseAll("run taken over by another node").catch(() => undefined);
    void this.#mcp?.releaseAll().catch(() => undefined);
    return new ConflictError("run_taken_over", `run ${this.id} is driven by another node now (this node's lease ran out); it goes on there`);
  }

  #stillWaiting(tool: ToolInfo, pending: PendingToolCall, approval: Approval | undefined): ToolCallOutcome {
    const needed: ApprovalNeeded = {
      id: pending.approvalId,
      kind: approval?.kind ?? "tool_call",
      tool: tool.qualifiedName,
      reason: approval?.reason ?? "approval not found",
      expiresAt: approval?.expiresAt ?? 0,
    };
    return { id: `call_${this.#nextCall++}`, tool: tool.qualifiedName, stepId: pending.stepId, status: "approval_required", approval: needed, durationMs: 0 };
  }

  async #setPending(pending: PendingToolCall | null): Promise<void> {
    this.#pending = pending;
    this.#status = pending ? "awaiting_approval" : "active";
    await this.#services.records.setPending(this.id, pending);
  }

  #finish(outcome: ToolCallOutcome): void {
    this.#effects.finished(outcome);
    this.#report.toolCall(outcome.status);
    this.#emit({
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
    const tools = this.#setup.tools;
    const exact = tools.find((t) => t.qualifiedName === name);
    if (exact) return exact;
    const bare = tools.filter((t) => t.name === name);
    if (bare.length === 1) return bare[0]!;
    if (bare.length > 1) {
      throw new ConflictError("ambiguous_tool", `tool ${name} is offered by ${bare.map((t) => t.plugin).join(", ")}; name it as plugin.tool`);
    }
    throw new NotFoundError(`agent ${this.agent.name} has no tool ${name}; its tools: ${tools.map((t) => t.qualifiedName).join(", ") || "none"}`);
  }

  #subject(): Omit<AuditSubject, "kind"> {
    return { traceId: this.traceId, runId: this.id, taskId: this.taskId, parentRunId: this.#setup.parentRunId, agent: this.agent.name };
  }

  #emit(event: RunEvent): void {
    if (event.type === "host-call") {
      if (event.ok) this.#report.used(event.capability);
      if (event.denial) this.#report.denied(event.denial);
    }
    this.#seq++;
    this.#services.events?.append(this.id, this.#seq, event);
    this.events.push(event);
    if (this.events.length > EVENTS_KEPT) this.events.splice(0, this.events.length - EVENTS_KEPT);
    for (const listener of this.#listeners) listener(event, this.#seq);
  }
}

