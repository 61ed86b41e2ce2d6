import type { AuditSubject, DeferredIntent } from "../audit/index.js";
import { ApprovalError, argsHash, type Approval } from "../policy/approvals/index.js";
import type { Denial } from "../../host-proxies/types.js";
import type { CapabilityGrant } from "../policy/catalogue/index.js";
import type { Instance, SandboxPlugin } from "../sandbox/index.js";
import { approvalTooLarge, calendarsOf, kvOf, memoryOf, outputOf, scheduleOf, toToolCallError, type Execution } from "./tool-execution.js";
import { createHostContext, toolCallSubject, type ActiveToolCall, type HostContext, type HostContextOptions } from "./host-context.js";
import { withReadWarnings, type ReadWarnings } from "./read-warnings.js";
import type { ReportBuilder } from "./report.js";
import type { RunServices, RunSetup } from "./run-setup.js";
import { readsBefore } from "./untrusted-sources.js";
import { SecretsRead } from "./secrets-read.js";
import { loggedLine, outcomeInputOf, refusesTransformed, reviewOutput } from "./output-review.js";
import { ToolCallRecords } from "./tool-call-records.js";
import { recordDroppedLines, withheld } from "./tool-call-audit.js";
import { pluginConfigValues } from "../plugins/config-grant.js";
import type { RunEvent } from "./types.js";
import { createLineBudget, type LineBudget } from "../../host-proxies/log/index.js";
import { effectiveMounts, logPerMinute } from "./grant-limits.js";

export { approvalTooLarge, type Execution } from "./tool-execution.js";

/**
 * How long a stopped ToolCall waits for its host calls still in flight to be served (and their
 * outcomes queued) before it records its own end. An effect slower than this (a fetch up to its
 * own timeout) is still recorded, after the ToolCall's outcome.
 */
const IN_FLIGHT_WAIT_MS = 5_000;

interface Slot {
  instance: Instance;
  context: HostContext;
  /** The stored secrets this instance read: redacted from its results and log lines. */
  secrets: SecretsRead;
  active: ActiveToolCall | undefined;
  /** The first Unsafe effect of the current call that had no approval. */
  effectApproval: Approval | undefined;
  /**
   * Calls on one instance run one at a time (the worker would serialise them anyway), so a
   * host call is always attributed to the ToolCall that made it.
   */
  turn: Promise<unknown>;
}

interface Hooks {
  subject: () => Omit<AuditSubject, "kind">;
  emit: (event: RunEvent) => void;
  report: ReportBuilder;
  /** Asked before every effect: why the run may not make it (cancelled, ended), else undefined. */
  stopped: HostContextOptions["stopped"];
  /** The guard of every effect's intent (see HostContextOptions.fence). */
  fence: HostContextOptions["fence"];
  /** Told of every effect made. */
  effect: (effect: { toolCallId: string; tool: string; capability: string }) => void;
}

/**
 * Runs a run's ToolCalls on its instances: one per plugin, bound on first use and replaced
 * after a trap, a deadline or a pause; a step with an elevation gets its own fresh instance,
 * released when the step ends, so the elevation never reaches another step.
 */
export class ToolExecutor {
  #setup: RunSetup;
  #services: RunServices;
  #hooks: Hooks;
  #slots = new Map<string, Promise<Slot>>();
  /** The run's log lines, across its instances (a replaced instance does not refill it). */
  #logBudget: LineBudget;

  constructor(setup: RunSetup, services: RunServices, hooks: Hooks) {
    this.#setup = setup;
    this.#services = services;
    this.#hooks = hooks;
    this.#logBudget = createLineBudget({ perMinute: logPerMinute(setup.layers), now: services.now });
  }

  async execute(
    active: ActiveToolCall,
    input: unknown,
    options: { elevation?: CapabilityGrant | undefined; timeoutMs?: number | undefined; approvalResult: string | null; context?: string | undefined },
  ): Promise<Execution> {
    // The ToolCall's intent is deferred: the guest's own computation is no effect, and every
    // effect it asks for is a host call whose handler first makes this intent durable (and
    // refuses when it cannot). A call that made no host call writes intent and outcome in one
    // commit, before its result is returned.
    let recorded: DeferredIntent;
    try {
      recorded = this.#services.audit.deferIntent(this.#toolSubject(active, input, options.approvalResult));
    } catch (error) {
      return { ok: false, error: { kind: "audit-failed", message: `the call was not made because it could not be recorded: ${(error as Error).message}` } };
    }
    const records = new ToolCallRecords();
    let slot: Slot | undefined;
    let execution: Execution;
    let release_: () => void = () => {};
    let droppedLogLines = 0;
    let readWarnings: ReadWarnings | undefined;
    try {
      slot = options.elevation ? await this.#bind(await this.#pluginOf(active), options.elevation) : await this.#slot(active.tool.plugin.name);
      const previous = slot.turn;
      slot.turn = new Promise<void>((resolve) => (release_ = resolve));
      await previous;
      if (slot.instance.state === "dead") slot = await this.#slot(active.tool.plugin.name);
      slot.active = { ...active, recorded, records };
      slot.effectApproval = undefined;
      const timeoutMs = options.timeoutMs ?? this.#setup.agent.limits.call_timeout_ms;
      const text = await slot.instance.call(active.tool.name, JSON.stringify(input), { timeoutMs });
      execution = slot.effectApproval ? { ok: false, effectApproval: slot.effectApproval } : outputOf(text, slot.instance);
    } catch (error) {
      execution = slot?.effectApproval ? { ok: false, effectApproval: slot.effectApproval } : { ok: false, error: toToolCallError(error) };
      // Stopped (a cancel, the call's deadline) while a host call may still act: its records
      // are written before this ToolCall's outcome, so whoever sees the ToolCall end sees them.
      if (slot) await slot.context.served(IN_FLIGHT_WAIT_MS);
    } finally {
      droppedLogLines = slot?.active?.droppedLogLines ?? 0;
      readWarnings = slot?.active?.readWarnings;
      if (slot) slot.active = undefined;
      if (slot && options.elevation) await release(slot, "elevated step ended");
      release_();
    }
    if (slot !== undefined) execution = reviewOutput(execution, { secrets: slot.secrets, refuse: this.#refuseTransformed, tool: active.qualifiedName, report: this.#hooks.report });
    if (readWarnings !== undefined && execution.ok) {
      execution = { ...execution, output: withReadWarnings(execution.output, readWarnings) };
      this.#hooks.emit({ type: "read-warnings", toolCallId: active.toolCallId, tool: active.qualifiedName, count: readWarnings.count, warnings: [...readWarnings.lines], at: this.#services.now() });
    }
    const outcome = outcomeInputOf(execution);
    if (droppedLogLines > 0) records.track(recordDroppedLines(this.#services.audit, { subject: this.#hooks.subject(), active, dropped: droppedLogLines, perMinute: this.#logBudget.perMinute, granted: Object.keys(this.#setup.layers.agent.grants) }));
    // The ToolCall's outcome starts the commit that takes every record queued before it along
    // (FIFO); the result is released only once each of the ToolCall's records is durable.
    records.track(this.#services.audit.appendOutcome(recorded, outcome));
    const failure = await records.settled();
    if (failure) return withheld(failure, await recorded.ensure().then(() => true, () => false));
    return execution;
  }

  /**
   * Loads `plugins` and fills their pools of unbound instances while the workers idle, so the
   * run's first call of each only binds one. Failures are left to the call that needs the plugin.
   */
  async prepare(plugins: readonly string[]): Promise<void> {
    await Promise.all(plugins.map((name) => this.#load(name).then((plugin) => this.#services.sandbox.prewarm(plugin, { warm: true })).catch(() => undefined)));
  }

  /** Stops the guest calls of the run in flight (their instances are destroyed; see Instance.abort). */
  async abortAll(reason: string): Promise<void> {
    for (const slot of await Promise.allSettled(this.#slots.values())) {
      if (slot.status === "fulfilled" && slot.value.active) slot.value.instance.abort(reason);
    }
  }

  /** Destroys every instance of the run and closes its grants. */
  async releaseAll(reason: string): Promise<void> {
    const slots = await Promise.allSettled(this.#slots.values());
    this.#slots.clear();
    for (const slot of slots) if (slot.status === "fulfilled") await release(slot.value, reason);
  }

  #pluginOf(active: ActiveToolCall): Promise<SandboxPlugin> {
    return this.#load(active.tool.plugin.name);
  }

  /** The plugin compiled under the agent's `limits.memory_mb` (when lower than the operator's cap). */
  async #load(pluginName: string): Promise<SandboxPlugin> {
    const plugin = await this.#services.plugins.get(pluginName)!.load();
    return this.#services.sandbox.capped(plugin, this.#setup.agent.limits.memory_mb);
  }

  async #slot(pluginName: string): Promise<Slot> {
    const existing = this.#slots.get(pluginName);
    if (existing) {
      const slot = await existing.catch(() => undefined);
      if (slot && slot.instance.state !== "dead") return slot;
      if (slot) {
        await slot.context.close();
        this.#hooks.emit({ type: "instance", plugin: pluginName, action: "replaced", at: this.#services.now() });
      }
    }
    const creating = this.#load(pluginName).then((plugin) => this.#bind(plugin, undefined));
    this.#slots.set(pluginName, creating);
    creating.catch(() => this.#slots.delete(pluginName));
    return creating;
  }

  async #bind(plugin: SandboxPlugin, elevation: CapabilityGrant | undefined): Promise<Slot> {
    const slot = { active: undefined, effectApproval: undefined, turn: Promise.resolve(), secrets: new SecretsRead() } as Partial<Slot> as Slot;
    const grants = this.#setup.agent.grants;
    slot.context = await createHostContext({
      layers: elevation ? { ...this.#setup.layers, elevation } : this.#setup.layers,
      mounts: effectiveMounts(elevation ? { ...this.#setup.layers, elevation } : this.#setup.layers),
      allowSensitive: this.#setup.allowSensitive,
      mountGuard: this.#services.mountGuard,
      kv: kvOf(this.#setup, this.#services, plugin),
      schedule: scheduleOf(this.#setup, this.#services),
      memory: memoryOf(this.#setup, this.#services),
      mail: grants["gmail.read"] ? { backend: this.#services.backends.mail, grant: grants["gmail.read"] } : undefined,
      mailSend: grants["mail.send"] && this.#services.backends.send ? { ...this.#services.backends.send, grant: grants["mail.send"] } : undefined,
      message: grants["message.send"] ? { grant: grants["message.send"] } : undefined,
      calendar: calendarsOf(grants) ? { backend: this.#services.backends.calendar, calendars: calendarsOf(grants)! } : undefined,
      shell: this.#setup.agent.grants["shell.exec"] ? { grant: this.#setup.agent.grants["shell.exec"], sandbox: this.#services.shellSandbox } : undefined,
      // A credential the host attaches reaches a server that may answer with it changed: held like a config secret.
      http: this.#setup.agent.grants["http.fetch"] ? { grant: this.#setup.agent.grants["http.fetch"], resolveSecret: (name) => this.#hold(slot, name) } : undefined,
      pluginConfig: {
        values: pluginConfigValues(plugin.manifest.wasi?.config, this.#setup.agent.plugins.find((p) => p.name === plugin.manifest.name)?.config),
        secretValue: (name) => this.#hold(slot, name),
      },
      audit: this.#services.audit,
      subject: this.#hooks.subject,
      active: () => slot.active,
      approveEffect: (effect) => this.#approveEffect(slot, effect),
      stopped: this.#hooks.stopped,
      fence: this.#hooks.fence,
      onEffect: (active, capability) => this.#hooks.effect({ toolCallId: active.toolCallId, tool: active.qualifiedName, capability }),
      logBudget: this.#logBudget,
      onLog: (line) => this.#hooks.emit({ type: "log", plugin: plugin.manifest.name, ...line, message: loggedLine(slot.secrets, line.message, this.#refuseTransformed), at: this.#services.now() }),
      onHostCall: ({ call, capability, result, durationMs }) =>
        this.#hooks.emit({
          type: "host-call",
          toolCallId: slot.active?.toolCallId,
          call: `${call.iface}.${call.fn}`,
          capability,
          ok: result.ok,
          ...(!result.ok && result.error.tag === "denied" ? { denial: result.error.val } : {}),
          durationMs,
          at: this.#services.now(),
        }),
    });
    try {
      slot.instance = await this.#services.sandbox.acquire(plugin, { label: this.#setup.id, agent: this.#setup.agent.name, handler: slot.context.handler });
    } catch (error) {
      await slot.context.close();
      throw error;
    }
    this.#hooks.emit({ type: "instance", plugin: plugin.manifest.name, action: "bound", at: this.#services.now() });
    return slot;
  }

  /** An Unsafe effect runs only on its own single-use approval; else one is requested. */
  async #approveEffect(slot: Slot, effect: { active: ActiveToolCall; capability: string; canonical: Record<string, unknown> }): Promise<boolean | string | Denial> {
    const effectHash = argsHash(effect.canonical);
    const granted = await this.#services.approvals.consumeEffect({ runId: this.#setup.id, tool: effect.active.qualifiedName, capability: effect.capability, effectHash });
    if (granted) {
      this.#hooks.report.approval({ id: granted.id, kind: granted.kind, tool: granted.tool, outcome: "approved" });
      return true;
    }
    // A standing pattern, only where the manifest opens this Unsafe tool to patterns; the audit
    // record of the host call names it (`pattern:<id>`).
    if (this.#setup.agent.approvals.unsafe_patterns.includes(effect.active.qualifiedName)) {
      const pattern = await this.#services.approvals.matchPattern({ agent: this.#setup.agent.name, runId: this.#setup.id, kind: "effect", tool: effect.active.qualifiedName, capability: effect.capability, arguments: effect.canonical });
      if (pattern) {
        this.#hooks.report.approval({ id: pattern.id, kind: "effect", tool: pattern.tool, outcome: "approved" });
        return `pattern:${pattern.id}`;
      }
    }
    if (slot.effectApproval) return false;
    const requested = await this.#services.approvals.request({
      kind: "effect", runId: this.#setup.id, traceId: this.#setup.traceId, agent: this.#setup.agent.name, parentRunId: this.#setup.parentRunId,
      stepId: effect.active.stepId, toolCallId: effect.active.toolCallId, tool: effect.active.qualifiedName,
      input: effect.canonical, capability: effect.capability, effect: effect.canonical, risk: "unsafe",
      reason: `${effect.active.qualifiedName} is Unsafe: this exact ${effect.capability} effect needs its own approval`,
      context: null,
      ...(await readsBefore(this.#services.audit, this.#setup.traceId, this.#hooks.report.secretsRead())),
      expiryMinutes: this.#setup.agent.approvals.expiry_minutes,
    }).catch((error: unknown) => {
      if (error instanceof ApprovalError && error.code === "approval_too_large") return approvalTooLarge([effect.capability], error);
      throw error;
    });
    if ("message" in requested) return requested;
    slot.effectApproval = requested;
    return false;
  }

  /** A stored secret the instance's calls are given (or send): its outputs are reviewed for it, the ToolCall reported as reading it. */
  async #hold(slot: Slot, name: string): Promise<string> {
    const value = await this.#services.secretValue(name);
    slot.secrets.add(name, value);
    if (slot.active) this.#hooks.report.secretRead({ toolCallId: slot.active.toolCallId, tool: slot.active.qualifiedName, secret: name });
    return value;
  }

  get #refuseTransformed(): boolean {
    return refusesTransformed(this.#setup, this.#services);
  }

  #toolSubject(active: ActiveToolCall, input: unknown, approvalResult: string | null): AuditSubject {
    const granted = Object.keys(this.#setup.layers.task ?? this.#setup.layers.agent.grants);
    return toolCallSubject(this.#hooks.subject(), { active, input, granted, approvalResult });
  }
}

async function release(slot: Slot, reason: string): Promise<void> {
  slot.instance.destroy(reason);
  // A host call still acting (its guest was just stopped) is recorded before the run's end.
  await slot.context.served(IN_FLIGHT_WAIT_MS);
  await slot.context.close();
}
