/**
 * Every metric clawhive exposes, in one place. Names follow Prometheus conventions (base units:
 * seconds and bytes; `_total` on counters); every label has a small, bounded set of values.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** From a pooled instantiation (~3–8 ms) to a deadline-bound tool call (30 s by default). */
const TOOL_CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Instantiation: ~6–8 ms without WASI imports, ~40 ms with the full shim, more under load. */
const INSTANCE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface SandboxStats {
  workers: number;
  instances: number;
  pooled: number;
}

export function defineMetrics(registry: Registry, sandboxStats: () => SandboxStats | undefined) {
  const registers = [registry];
  const gauge = (name: string, help: string, pick: (stats: SandboxStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const stats = sandboxStats();
        if (stats) this.set(pick(stats));
      },
    });
  return {
    runsStarted: new Counter({ name: "clawhive_runs_started_total", help: "Runs started by this process.", registers }),
    runsResumed: new Counter({ name: "clawhive_runs_resumed_total", help: "Runs rebuilt from the store by this process (after a restart, or another node's).", registers }),
    runsEnded: new Counter({
      name: "clawhive_runs_ended_total",
      help: "Runs ended, by the state they ended in: completed, or abandoned while awaiting an approval.",
      labelNames: ["status"] as const,
      registers,
    }),
    runsActive: new Gauge({ name: "clawhive_runs_active", help: "Runs of this process started or resumed and not yet ended.", registers }),
    toolCalls: new Counter({
      name: "clawhive_tool_calls_total",
      help: "ToolCalls finished, by tool and outcome (ok, error, denied, approval_required).",
      labelNames: ["tool", "outcome"] as const,
      registers,
    }),
    toolCallSeconds: new Histogram({
      name: "clawhive_tool_call_duration_seconds",
      help: "Time from a ToolCall to its result, approval waits excluded.",
      labelNames: ["tool"] as const,
      buckets: TOOL_CALL_BUCKETS,
      registers,
    }),
    hostCalls: new Counter({
      name: "clawhive_host_calls_total",
      help: "Host-proxy calls made by plugins, by capability and outcome (ok, error, denied).",
      labelNames: ["capability", "outcome"] as const,
      registers,
    }),
    hostCallDenials: new Counter({
      name: "clawhive_host_call_denials_total",
      help: "Host-proxy calls denied by the policy, by capability and reason code.",
      labelNames: ["capability", "reason"] as const,
      registers,
    }),
    approvalsRequested: new Counter({
      name: "clawhive_approvals_requested_total",
      help: "Approvals asked of a person, by kind (tool_call, effect).",
      labelNames: ["kind"] as const,
      registers,
    }),
    approvalsDecided: new Counter({
      name: "clawhive_approvals_decided_total",
      help: "Approvals decided through this process, by kind and result (approved, denied, expired).",
      labelNames: ["kind", "result"] as const,
      registers,
    }),
    instanceCreateSeconds: new Histogram({
      name: "clawhive_sandbox_instance_create_duration_seconds",
      help: "Plugin instantiation time: warm = created ahead of demand for the pool, cold = created while a caller waited.",
      labelNames: ["mode"] as const,
      buckets: INSTANCE_BUCKETS,
      registers,
    }),
    instancesDestroyed: new Counter({
      name: "clawhive_sandbox_instances_destroyed_total",
      help: "Plugin instances destroyed, by reason.",
      labelNames: ["reason"] as const,
      registers,
    }),
    unboundHostCalls: new Counter({
      name: "clawhive_sandbox_unbound_host_calls_total",
      help: "Host calls refused because the instance was not yet bound to a run.",
      labelNames: ["plugin"] as const,
      registers,
    }),
    workerExits: new Counter({
      name: "clawhive_sandbox_worker_exits_total",
      help: "Sandbox worker threads that exited, by reason (deadline, crashed, exited, channel_failed, sandbox_closed).",
      labelNames: ["reason"] as const,
      registers,
    }),
    workers: gauge("clawhive_sandbox_workers", "Live sandbox worker threads.", (s) => s.workers),
    instances: gauge("clawhive_sandbox_instances", "Live plugin instances, bound and pooled.", (s) => s.instances),
    pooled: gauge("clawhive_sandbox_pooled_instances", "Unbound plugin instances ready in the pool.", (s) => s.pooled),
    llmTokens: new Counter({
      name: "clawhive_llm_tokens_total",
      help: "LLM tokens, by provider and direction (input, output, cache_read, cache_write).",
      labelNames: ["provider", "direction"] as const,
      registers,
    }),
    httpRequests: new Counter({
      name: "clawhive_http_requests_total",
      help: "HTTP API requests, by method, route pattern and status.",
      labelNames: ["method", "route", "status"] as const,
      registers,
    }),
    httpSeconds: new Histogram({
      name: "clawhive_http_request_duration_seconds",
      help: "HTTP API request time until the response headers (streams excluded), by method and route pattern.",
      labelNames: ["method", "route"] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof defineMetrics>;
