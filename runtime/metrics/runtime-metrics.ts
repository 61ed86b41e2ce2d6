import { collectDefaultMetrics, Registry } from "prom-client";
import type { Approval } from "../policy/approvals/index.js";
import type { Run } from "../runs/run.js";
import type { RunEvent } from "../runs/types.js";
import type { SandboxEvent } from "../sandbox/index.js";
import { defineMetrics, type Metrics, type SandboxStats } from "./definitions.js";
import { BoundedLabel, workerExitReason } from "./labels.js";

/** What `observeRun` needs of a run (a `Run`, or a test's fake). */
export type ObservableRun = Pick<Run, "onEvent" | "pending" | "ended"> & { readonly agent?: { readonly model?: { readonly provider?: string } } };

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export type TokenDirection = "input" | "output" | "cache_read" | "cache_write";

export interface RuntimeMetricsOptions {
  /** Also export Node's process metrics (CPU, heap, event-loop lag, GC) as `clawhive_process_…`/`clawhive_nodejs_…`. */
  processMetrics?: boolean;
}

/**
 * The runtime's Prometheus metrics. It is fed from outside, so the runtime does not depend on
 * it: runs through `observeRun`, the sandbox through `observeSandboxEvent` (its `onEvent`) and
 * `collectSandbox`, approvals and LLM usage by the code that decides or spends them, the API
 * through `httpMetrics`. One registry per runtime: no global state, tests build their own.
 */
export class RuntimeMetrics {
  readonly registry: Registry;
  readonly #metrics: Metrics;
  readonly #observed = new WeakSet<ObservableRun>();
  readonly #destroyReasons = new BoundedLabel();
  readonly #plugins = new BoundedLabel(256);
  #sandboxStats: (() => SandboxStats) | undefined;

  constructor(registry: Registry = new Registry(), options: RuntimeMetricsOptions = {}) {
    this.registry = registry;
    this.#metrics = defineMetrics(registry, () => this.#sandboxStats?.());
    if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: "clawhive_" });
  }

  /**
   * Counts a run and everything it reports until it ends. Idempotent per run: a live run handed
   * out again by `resumeRun` is not counted twice. Returns a function that stops observing.
   */
  observeRun(run: ObservableRun, options: { resumed?: boolean } = {}): () => void {
    if (this.#observed.has(run) || run.ended) return () => {};
    this.#observed.add(run);
    (options.resumed ? this.#metrics.runsResumed : this.#metrics.runsStarted).inc();
    this.#metrics.runsActive.inc();
    const provider = run.agent?.model?.provider ?? "unknown";
    const stop = run.onEvent((event) => {
      this.#onRunEvent(event);
      // A model-driven Step reports what its model call cost.
      if (event.type === "step" && event.usage) {
        const { input_tokens, output_tokens, cache_read, cache_write } = event.usage;
        this.recordLlmTokens({ provider, input: input_tokens, output: output_tokens, ...(cache_read ? { cache_read } : {}), ...(cache_write ? { cache_write } : {}) });
      }
      if (event.type === "run-ended") {
        this.#metrics.runsEnded.inc({ status: run.pending ? "abandoned" : (event.reason ?? "completed") });
        this.#metrics.runsActive.dec();
        stop();
      }
    });
    return stop;
  }

  /** The sandbox's `onEvent`: pass it as `SandboxOptions.onEvent` (it is bound). */
  readonly observeSandboxEvent = (event: SandboxEvent): void => {
    const m = this.#metrics;
    switch (event.type) {
      case "instance-created":
        m.instanceCreateSeconds.observe({ mode: event.warm ? "warm" : "cold" }, event.ms / 1000);
        break;
      case "instance-destroyed":
        m.instancesDestroyed.inc({ reason: this.#destroyReasons.value(event.reason) });
        break;
      case "unbound-host-call":
        m.unboundHostCalls.inc({ plugin: this.#plugins.value(event.plugin) });
        break;
      case "worker-exit":
        m.workerExits.inc({ reason: workerExitReason(event.reason) });
        break;
    }
  };

  /** Reads the sandbox's pool gauges at each scrape, e.g. `() => runtime.sandbox.stats()`. */
  collectSandbox(stats: () => SandboxStats): void {
    this.#sandboxStats = stats;
  }

  /** A person's decision, as `ApprovalStore.decide` returns it (still-pending ones are ignored). */
  recordApprovalDecision(approval: Pick<Approval, "kind" | "status">): void {
    if (approval.status === "pending") return;
    // `used` is an approval already spent by a replay: it was approved.
    const result = approval.status === "used" ? "approved" : approval.status;
    this.#metrics.approvalsDecided.inc({ kind: approval.kind, result });
  }

  /** Tokens one LLM call used, as its provider reported them. */
  recordLlmTokens(usage: { provider: string } & Partial<Record<TokenDirection, number>>): void {
    for (const direction of ["input", "output", "cache_read", "cache_write"] as const) {
      const count = usage[direction];
      if (count !== undefined && Number.isFinite(count) && count > 0) this.#metrics.llmTokens.inc({ provider: usage.provider, direction }, count);
    }
  }

  /** One answered HTTP request; `route` is the matched pattern (`/v1/runs/:id`), never the raw path. */
  recordHttpRequest(request: { method: string; route: string; status: number; seconds: number }): void {
    // A client picks the method: an unknown one must not mint a series per request.
    const upper = request.method.toUpperCase();
    const method = METHODS.has(upper) ? upper : "OTHER";
    this.#metrics.httpRequests.inc({ method, route: request.route, status: String(request.status) });
    this.#metrics.httpSeconds.observe({ method, route: request.route }, request.seconds);
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  #onRunEvent(event: RunEvent): void {
    const m = this.#metrics;
    switch (event.type) {
      case "tool-result": {
        const outcome = event.status === "error" && event.error?.kind === "denied" ? "denied" : event.status;
        m.toolCalls.inc({ tool: event.tool, outcome });
        // A pause for approval is not an execution: its duration would skew the latencies.
        if (event.status !== "approval_required") m.toolCallSeconds.observe({ tool: event.tool }, event.durationMs / 1000);
        break;
      }
      case "host-call":
        m.hostCalls.inc({ capability: event.capability, outcome: event.ok ? "ok" : event.denial ? "denied" : "error" });
        if (event.denial) m.hostCallDenials.inc({ capability: event.denial.capability, reason: event.denial.reason });
        break;
      case "approval-required":
        // A parent waiting for its sub-agent's approval: counted once, in the child's run.
        if (event.subAgentRunId === undefined) m.approvalsRequested.inc({ kind: event.approval.kind });
        break;
    }
  }
}

/** The runtime's metrics on `registry` (a fresh one by default). */
export function createRuntimeMetrics(registry?: Registry, options: RuntimeMetricsOptions = {}): RuntimeMetrics {
  return new RuntimeMetrics(registry, options);
}
