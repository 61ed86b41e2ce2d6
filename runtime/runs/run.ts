import { ConflictError } from "../errors.js";
import type { AgentManifest } from "../agents/index.js";
import type { AuditSubject } from "../audit/index.js";
import type { PolicyLayers } from "../policy/engine.js";
import type { PendingToolCall, RunEndReason, RunStatus } from "./records.js";
import { ReportBuilder, type LeastPrivilegeReport } from "./report.js";
import type { CommittedEffect } from "./errors.js";
import { EffectLedger, type EffectMade } from "./effects.js";
import type { ApprovalNeeded, RunEvent, StepEvent, ToolCallOutcome, ToolInfo } from "./types.js";
import { mcpCapability } from "../mcp-client/index.js";
import { RunToolCalls } from "./run-tool-calls.js";
import { reachableTools } from "./reachable-tools.js";
import type { CallToolOptions, RunServices, RunSetup } from "./run-setup.js";
import { RunStops, type RunState } from "./run-stops.js";
import { withRunLogFields } from "../telemetry/run-log-fields.js";
import { boundedEvent, keepLatestEvents } from "./event-bounds.js";
import type { Denial } from "../../host-proxies/types.js";
export type { CallToolOptions, RunServices, RunSetup } from "./run-setup.js";
export type { EffectMade } from "./effects.js";

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
  #calls: RunToolCalls;
  #listeners = new Set<(event: RunEvent, seq: number) => void>();
  #report: ReportBuilder;
  #seq: number;
  /** What the run is, shared with its store checks (see RunStops). */
  #state: RunState;
  #endWrite: Promise<void> | undefined;
  #stops: RunStops;
  #effects = new EffectLedger();

  constructor(setup: RunSetup, services: RunServices) {
    this.id = setup.id;
    this.traceId = setup.traceId;
    this.taskId = setup.taskId;
    this.agent = setup.agent;
    this.#setup = setup;
    this.#services = services;
    this.#state = { status: setup.status ?? "active", pending: setup.pending ?? null, cancelled: false, takenOver: false, endRecorded: false, endReason: "completed", endResult: undefined };
    this.#stops = new RunStops(this.id, services, this.#state, { release: (reason) => this.#calls.releaseAll(reason), cancel: () => this.cancel() });
    this.#seq = setup.lastEventSeq ?? 0;
    this.#report = new ReportBuilder([...Object.keys(setup.layers.task ?? setup.layers.agent.grants), ...Object.keys(setup.agent.mcp_servers).map(mcpCapability)]);
    this.#calls = new RunToolCalls(setup, services, {
      subject: () => this.#subject(),
      emit: (event) => this.#emit(event),
      report: this.#report,
      effects: this.#effects,
      status: () => this.#state.status,
      pending: () => this.#state.pending,
      setPending: (pending) => this.#stops.setPending(pending),
      stopIfAsked: () => this.#stops.stopIfAsked(),
      stoppedBeforeEffect: (options) => this.#stops.stoppedBeforeEffect(options),
      fence: () => this.#stops.fence(),
      takenOver: () => this.#state.takenOver,
      takenOverError: () => this.#stops.takenOverError(),
      flushEvents: () => this.flushEvents(),
    });
  }

  get status(): RunStatus {
    return this.#state.status;
  }
  get ended(): boolean {
    return this.#state.status === "ended";
  }
  /** The run that spawned this one (a sub-agent's parent), or null. */
  get parentRunId(): string | null {
    return this.#setup.parentRunId;
  }
  /** The ToolCall waiting for a person, if any. */
  get pending(): PendingToolCall | null {
    return this.#state.pending;
  }
  /** Cancellation was asked for: no further ToolCall starts. */
  get cancelled(): boolean {
    return this.#state.cancelled;
  }
  /** This node ended the run but could not yet write its end to the store (it retries). */
  get endUnrecorded(): boolean {
    return this.#state.status === "ended" && !this.#state.endRecorded;
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
  /** Its tools a ToolCall could ever be allowed to use (reachable-tools.ts): what a client lists. */
  reachableTools(): ToolInfo[] {
    return reachableTools(this.#setup.tools, { layers: this.#setup.layers, manifestOf: (tool) => this.#services.plugins.get(tool.plugin)?.manifest });
  }
  /** Every layer the run's host calls must satisfy (agent, task, ancestors). */
  get layers(): PolicyLayers {
    return this.#setup.layers;
  }
  /** Readies the run's plugins off its first call's path, while the workers idle (RunToolCalls.prepare). */
  prepare(): Promise<void> {
    return this.#calls.prepare();
  }
  /** `seq` numbers the run's events (as stored), so a stream can resume after one. */
  onEvent(listener: (event: RunEvent, seq: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `plugin.tool` (or a bare name one plugin has): failures and pauses are outcomes, caller mistakes throw. */
  async callTool(name: string, input: unknown, options: CallToolOptions = {}): Promise<ToolCallOutcome> {
    // Cancelled first: a cancel this node's tick noticed ends the run at once, and the caller is
    // told it was cancelled, as when this call's own check notices it.
    if (this.#state.cancelled || this.#state.endReason === "cancelled") throw new ConflictError("run_cancelled", `run ${this.id} was cancelled`);
    if (this.#state.status === "ended") throw new ConflictError("run_ended", `run ${this.id} has ended; start a new run`);
    if (this.#state.takenOver) throw this.#stops.takenOverError();
    if (this.#state.status === "awaiting_approval") {
      throw new ConflictError("run_awaiting_approval", `run ${this.id} waits for approval ${this.#state.pending?.approvalId}; decide it, then resume the run`);
    }
    return withRunLogFields(this, () => this.#calls.call(name, input, options));
  }

  /**
   * Pauses for a person instead of replaying a ToolCall that this run's previous node was inside
   * when it stopped, and that had begun effects (`reason` shows them): replaying it silently
   * could make them twice. Approved, the ToolCall runs again; denied, it fails.
   */
  pauseInterrupted(name: string, input: unknown, options: { stepId: string; reason: string }): Promise<ToolCallOutcome> {
    return this.#calls.pauseInterrupted(name, input, options);
  }

  /**
   * Records a ToolCall the loop refuses before it starts (arguments that never became a value, a
   * call repeated unchanged): its events, one audit denial, the report's count. A tool the run
   * does not have is not recorded here (false).
   */
  refuseCall(name: string, input: unknown, options: { stepId: string; kind: string; denial: Denial }): Promise<boolean> {
    return this.#calls.refuseCall(name, input, options);
  }

  /** Replays the paused ToolCall once its approval is decided: its new outcome (it may pause again), or undefined. */
  resume(): Promise<ToolCallOutcome | undefined> {
    return withRunLogFields(this, () => this.#calls.resume());
  }

  /**
   * Pauses the run until sub-agent run `wait.childRunId` ends: the child waits for approval
   * `wait.approvalId`, so this run does too (status `awaiting_approval`, holding no instance).
   * Approvers see the approval once, as the child's; this run's stream shows it too.
   */
  async waitForSubAgent(wait: { tool: string; input: unknown; stepId: string; approvalId: string; childRunId: string; toolCallId: string }): Promise<void> {
    if (this.#state.status === "ended") throw new ConflictError("run_ended", `run ${this.id} has ended`);
    await this.#calls.waitForSubAgent(wait);
  }

  /**
   * The sub-agent this run waits for (or its own child) asks a person again: the store already
   * names the new approval (`RunRecords.setPending`); this run's stream shows it too, once.
   */
  relaySubAgentApproval(approval: ApprovalNeeded, childRunId: string): void {
    const pending = this.#state.pending;
    if (this.#state.status !== "awaiting_approval" || pending?.childRunId !== childRunId || pending.approvalId === approval.id) return;
    this.#state.pending = { ...pending, approvalId: approval.id };
    this.#emit({ type: "approval-required", toolCallId: pending.stepId, approval, subAgentRunId: childRunId, at: this.#services.now() });
  }

  /** The sub-agent this run waited for has ended: the run is active again. */
  async subAgentEnded(): Promise<void> {
    if (this.#state.pending?.childRunId !== undefined) await this.#stops.setPending(null);
  }

  /**
   * Ends the run: destroys its instances, closes their grants, withdraws the approvals it still
   * asked for, stores its report. If the store write fails the run is ended here all the same
   * (no further ToolCall starts) and a later call (the driver retries) writes it again; `result`
   * says why a run failed when nothing else did.
   */
  async end(reason: RunEndReason = "completed", options: { result?: string } = {}): Promise<LeastPrivilegeReport> {
    if (this.#state.status !== "ended") {
      this.#state.status = "ended";
      this.#state.endReason = reason;
      this.#state.endResult = options.result;
      await this.#calls.releaseAll("run ended").catch(() => undefined);
      // Another node took the run over (this node's lease ran out): the run goes on there; its
      // approvals, its `run-ended` event and its end are that node's to write. Else every event
      // is stored before the record says ended: a stream that sees the run ended has already
      // been able to read its last event.
      if (await this.#stops.takenOver()) this.#state.endRecorded = true;
      else this.#emit({ type: "run-ended", reason, at: this.#services.now() });
    }
    while (!this.#state.endRecorded) {
      this.#endWrite ??= this.#recordEnd().finally(() => (this.#endWrite = undefined));
      await this.#endWrite;
    }
    return this.#report.build();
  }

  /**
   * Ends the run `failed` because the runtime itself failed during a Step (a store or audit write,
   * an agent this node does not know): a `finish` Step names the code, the result what failed.
   */
  async fail(failure: { code: string; message: string }): Promise<LeastPrivilegeReport> {
    if (this.#state.status !== "ended") {
      this.recordStep({ stepId: "finish", action: "finish", usage: null, reason: failure.code });
      return this.end("failed", { result: `the run failed: ${failure.code}: ${failure.message}${this.#effects.summary()}` });
    }
    return this.end();
  }

  async #recordEnd(): Promise<void> {
    // Its audit records too (a model call's record is queued, not awaited); one that cannot be
    // written does not keep the run from ending.
    await Promise.all([this.flushEvents(), this.#services.audit.flush().catch(() => undefined)]);
    await this.#services.approvals.withdrawForRun(this.id, `run ${this.id} ended (${this.#state.endReason}) before the approval was used`);
    // Fenced too, for a takeover between the check and the write; not written, the end on
    // record (another node's, or this write's own earlier try) stands.
    if (!(await this.#services.records.end(this.id, this.#report.build(), this.#services.now(), this.#state.endReason, this.#state.endResult, this.#services.node))) await this.#stops.takenOver();
    this.#state.endRecorded = true;
    this.#services.onEnded?.(this.id);
  }

  /**
   * Cancels the run: no further ToolCall starts, a ToolCall in flight is stopped (its worker
   * ended; other runs' instances there are rebuilt), and the run ends as cancelled.
   */
  async cancel(): Promise<LeastPrivilegeReport> {
    this.#state.cancelled = true;
    // A tool still running is stopped, not waited for.
    await this.#calls.abortAll("the run was cancelled");
    return this.end("cancelled");
  }

  /** Stops the ToolCalls in flight, not the run (instances replaced): e.g. an MCP client's cancel. */
  async abortToolCalls(reason: string): Promise<void> {
    await this.#calls.abortAll(reason);
  }

  /** Records a Step of the model-driven loop (runs/loop) among the run's events. */
  recordStep(step: Omit<StepEvent, "type" | "at">): void {
    this.#emit({ type: "step", ...step, at: this.#services.now() });
  }
  /** Records text the model streamed during a Step (runs/loop/text-events.ts coalesces the deltas). */
  recordText(stepId: string, text: string): void {
    if (text !== "") this.#emit({ type: "text", stepId, text, at: this.#services.now() });
  }

  /** Records the todo list the model just wrote (runtime/todo) among the run's events. */
  recordTodo(todo: Omit<Extract<RunEvent, { type: "todo" }>, "type" | "at">): void { this.#emit({ type: "todo", ...todo, at: this.#services.now() }); }
  /** Waits until every event so far is in the store. */
  async flushEvents(): Promise<void> {
    await this.#services.events?.flush().catch(() => undefined);
  }

  /** The least-privilege report so far. */
  report(): LeastPrivilegeReport {
    return this.#report.build();
  }

  /**
   * For work outside a ToolCall (a sub-agent's spawn): `stopIfAsked` throws `run_cancelled` or
   * `run_ended` when the store says so (on any node); `fence` guards its intent as a host call's.
   */
  get stops(): Pick<RunStops, "stopIfAsked" | "fence"> {
    return this.#stops;
  }

  #subject(): Omit<AuditSubject, "kind"> {
    return { traceId: this.traceId, runId: this.id, taskId: this.taskId, parentRunId: this.#setup.parentRunId, agent: this.agent.name };
  }

  #emit(emitted: RunEvent): void {
    const event = boundedEvent(emitted);
    if (event.type === "host-call") {
      if (event.ok) this.#report.used(event.capability);
      if (event.denial) this.#report.denied(event.denial);
    }
    this.#seq++;
    this.#services.events?.append(this.id, this.#seq, event);
    this.events.push(event);
    keepLatestEvents(this.events);
    for (const listener of this.#listeners) listener(event, this.#seq);
  }
}

