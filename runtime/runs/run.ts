import { randomBytes, randomUUID } from "node:crypto";
import { ClawhiveError, ConflictError, NotFoundError, SandboxError } from "../errors.js";
import { GuestToolError, type Instance, type Sandbox, type SandboxPlugin } from "../sandbox/index.js";
import type { RunGrant } from "./grant.js";
import { createHostContext, type HostContext } from "./host-context.js";
import type { RunEvent, ToolCallError, ToolCallOutcome, ToolInfo } from "./types.js";

/** What a run needs from the runtime that starts it. */
export interface RunHost {
  sandbox: Sandbox;
  plugins: ReadonlyMap<string, SandboxPlugin>;
  tools: readonly ToolInfo[];
  memoryCapBytes: number;
}

interface Slot {
  instance: Instance;
  context: HostContext;
}

/**
 * One execution of a task. Owns its plugin instances (one per plugin, created on first use,
 * bound to the run's grant) and ends them when it ends. After a trap or a deadline the next call
 * gets a fresh instance with the same grant.
 */
export class Run {
  readonly id: string;
  readonly traceId: string;
  readonly grant: RunGrant;
  readonly events: RunEvent[] = [];
  #host: RunHost;
  #slots = new Map<string, Promise<Slot>>();
  #listeners = new Set<(event: RunEvent) => void>();
  #ended = false;
  #nextCall = 1;
  #currentCall: string | undefined;

  constructor(grant: RunGrant, host: RunHost, options: { traceId?: string } = {}) {
    this.id = `run_${randomUUID()}`;
    this.traceId = options.traceId ?? randomBytes(16).toString("hex");
    this.grant = grant;
    this.#host = host;
  }

  get ended(): boolean {
    return this.#ended;
  }

  onEvent(listener: (event: RunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls a tool by `plugin.tool` (or by bare name when only one plugin has it). Tool-level
   * failures come back as an `error` outcome; caller mistakes (ended run, unknown tool) throw.
   */
  async callTool(name: string, input: unknown, options: { timeoutMs?: number } = {}): Promise<ToolCallOutcome> {
    if (this.#ended) throw new ConflictError("run_ended", `run ${this.id} has ended; start a new run`);
    const tool = this.#resolve(name);
    const id = `call_${this.#nextCall++}`;
    const started = performance.now();
    this.#emit({ type: "tool-call", id, tool: tool.qualifiedName, input, at: Date.now() });
    let outcome: ToolCallOutcome;
    try {
      const slot = await this.#slot(tool.plugin);
      this.#currentCall = id;
      const text = await slot.instance.call(tool.name, JSON.stringify(input ?? {}), options);
      outcome = { id, tool: tool.qualifiedName, status: "ok", output: parseOutput(text), durationMs: performance.now() - started };
    } catch (error) {
      outcome = { id, tool: tool.qualifiedName, status: "error", error: this.#toError(error), durationMs: performance.now() - started };
    } finally {
      this.#currentCall = undefined;
    }
    this.#emit({
      type: "tool-result",
      id,
      tool: tool.qualifiedName,
      status: outcome.status,
      ...(outcome.status === "error" ? { error: outcome.error } : {}),
      durationMs: outcome.durationMs,
      at: Date.now(),
    });
    return outcome;
  }

  /** Ends the run: destroys its instances and closes their grants. Idempotent. */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    const slots = await Promise.allSettled(this.#slots.values());
    this.#slots.clear();
    for (const slot of slots) {
      if (slot.status !== "fulfilled") continue;
      slot.value.instance.destroy("run ended");
      await slot.value.context.close();
    }
    this.#emit({ type: "run-ended", at: Date.now() });
  }

  #resolve(name: string): ToolInfo {
    const tools = this.#host.tools;
    const exact = tools.find((t) => t.qualifiedName === name);
    if (exact) return exact;
    const bare = tools.filter((t) => t.name === name);
    if (bare.length === 1) return bare[0]!;
    if (bare.length > 1) {
      throw new ConflictError("ambiguous_tool", `tool ${name} is offered by ${bare.map((t) => t.plugin).join(", ")}; name it as plugin.tool`);
    }
    throw new NotFoundError(`unknown tool ${name}; known tools: ${tools.map((t) => t.qualifiedName).join(", ")}`);
  }

  /** The run's instance of `plugin`, bound on first use and replaced once dead. */
  async #slot(pluginName: string): Promise<Slot> {
    const existing = this.#slots.get(pluginName);
    if (existing) {
      const slot = await existing;
      if (slot.instance.state !== "dead") return slot;
      this.#emit({ type: "instance", plugin: pluginName, action: "replaced", at: Date.now() });
    }
    const plugin = this.#host.plugins.get(pluginName);
    if (!plugin) throw new NotFoundError(`plugin ${pluginName} is not loaded`);
    const creating = this.#bind(plugin, existing ? (await existing).context : undefined);
    this.#slots.set(pluginName, creating);
    creating.catch(() => this.#slots.delete(pluginName));
    return creating;
  }

  async #bind(plugin: SandboxPlugin, previous: HostContext | undefined): Promise<Slot> {
    // A replaced instance gets the same grant but fresh handles: nothing outlives its instance.
    await previous?.close();
    const context = await createHostContext(this.grant, {
      plugin: plugin.manifest,
      onLog: (line) => this.#emit({ type: "log", plugin: plugin.manifest.name, ...line, at: Date.now() }),
      onHostCall: (call, result) =>
        this.#emit({
          type: "host-call",
          toolCallId: this.#currentCall,
          call: `${call.iface}.${call.fn}`,
          ok: result.ok,
          ...(!result.ok && result.error.tag === "denied" ? { denial: result.error.val } : {}),
          at: Date.now(),
        }),
    });
    try {
      const instance = await this.#host.sandbox.acquire(plugin, { label: this.id, handler: context.handler });
      this.#emit({ type: "instance", plugin: plugin.manifest.name, action: "bound", at: Date.now() });
      return { instance, context };
    } catch (error) {
      await context.close();
      throw error;
    }
  }

  #toError(error: unknown): ToolCallError {
    if (error instanceof GuestToolError) {
      const payload = error.payload as { tag?: string; val?: unknown };
      const tag = typeof payload?.tag === "string" ? payload.tag : "failed";
      if (tag === "denied" && payload.val && typeof payload.val === "object") {
        const denial = payload.val as { capability: string; reason: string; message: string };
        return { kind: "denied", message: denial.message, denial };
      }
      return { kind: tag, message: typeof payload?.val === "string" ? payload.val : error.message };
    }
    if (error instanceof SandboxError) {
      const kinds: Record<string, string> = {
        plugin_trapped: "trapped",
        deadline_exceeded: "deadline",
        memory_cap: "memory-cap",
        result_too_large: "result-too-large",
        instance_lost: "instance-lost",
      };
      return { kind: kinds[error.code] ?? error.code, message: error.message };
    }
    if (error instanceof ClawhiveError) return { kind: error.code, message: error.message };
    return { kind: "failed", message: (error as Error).message ?? String(error) };
  }

  #emit(event: RunEvent): void {
    this.events.push(event);
    for (const listener of this.#listeners) listener(event);
  }
}

function parseOutput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
