import { ClawhiveError, SandboxError } from "../errors.js";
import type { WorkerReply, WorkerTask } from "./protocol.js";
import type { Binding, SandboxPlugin, ToolDescriptor } from "./types.js";
import type { WorkerHandle } from "./worker-handle.js";

/** What an Instance needs from its sandbox; kept narrow so the two stay decoupled. */
export interface InstanceHost {
  callTimeoutMs: number;
  /** The longest deadline a call may ask for: the operator's cap over every agent's. */
  maxCallTimeoutMs: number;
  /** A share of the workers for a bound call (see FairShare); the function gives it back. */
  admit(instance: Instance): (() => void) | Promise<() => void>;
  /**
   * Watches a bound call queued behind another call in its worker: if it is still waiting there
   * when a worker is idle, the instance is moved (the call is withdrawn and rejects with
   * `call_moved`). Returns how to stop watching.
   */
  watch(instance: Instance, task: WorkerTask): () => void;
  /** The wasm memory cap of each instance, to tell a memory-cap trap from others. */
  memoryCapBytes: number;
  /** Creates the guest anew in a live worker (after its worker was lost); returns its new id. */
  rebuild(instance: Instance): Promise<{ guestId: number; worker: WorkerHandle }>;
  release(instance: Instance, reason: string): void;
}

export type InstanceState = "ready" | "bound" | "dead";

/**
 * One plugin instance in a sandbox worker. It serves one binding for its whole life: bound
 * once before its first guest call, never rebound; dead after a trap or a deadline.
 */
export class Instance {
  readonly plugin: SandboxPlugin;
  #guestId: number;
  #worker: WorkerHandle;
  #binding: Binding | undefined;
  #state: InstanceState = "ready";
  #lost = false;
  #host: InstanceHost;
  #lastGuestUs = 0;

  constructor(plugin: SandboxPlugin, placement: { guestId: number; worker: WorkerHandle }, host: InstanceHost) {
    this.plugin = plugin;
    this.#guestId = placement.guestId;
    this.#worker = placement.worker;
    this.#host = host;
  }

  /** The id the guest's host calls carry; changes only when rebuilt after its worker died. */
  get id(): number {
    return this.#guestId;
  }
  get state(): InstanceState {
    return this.#state;
  }
  get binding(): Binding | undefined {
    return this.#binding;
  }
  get worker(): WorkerHandle {
    return this.#worker;
  }
  /** How long the last task took inside the worker (guest code plus its host calls), in µs. */
  get lastGuestUs(): number {
    return this.#lastGuestUs;
  }

  bind(binding: Binding): void {
    if (this.#state !== "ready") throw new SandboxError("instance_bound", `instance ${this.id} is ${this.#state} and cannot be bound`);
    this.#binding = Object.freeze({ ...binding });
    this.#state = "bound";
  }

  /** Marks the guest as gone with its worker; the next call rebuilds it with the same binding. */
  markLost(): void {
    this.#lost = true;
  }

  /** Whether this instance's next guest call will be made in a new guest (after a loss or a move). */
  get lost(): boolean {
    return this.#lost;
  }

  /** `describe` may run unbound (install-time reads): its host calls are refused. */
  async describe(): Promise<ToolDescriptor[]> {
    const value = await this.#invoke("describe", []);
    return value as ToolDescriptor[];
  }

  /** Calls tool `name` with JSON `input`. Requires a binding. */
  async call(name: string, input: string, options: { timeoutMs?: number } = {}): Promise<string> {
    if (this.#state === "dead") throw new SandboxError("instance_dead", `instance ${this.id} is gone; take a fresh instance`);
    if (this.#state !== "bound") {
      throw new SandboxError("instance_unbound", `instance ${this.id} has no binding; bind it before calling a tool`);
    }
    return (await this.#invoke(this.plugin.typed ? "typed" : "call", [name, input], options.timeoutMs)) as string;
  }

  /** Stops this instance's guest call in flight, if any (see WorkerHandle.abortCall), then destroys it. */
  abort(reason: string): void {
    if (this.#state === "dead") return;
    this.#worker.abortCall(this.#guestId, reason);
    this.destroy(reason);
  }

  destroy(reason = "destroyed"): void {
    if (this.#state === "dead") return;
    this.#state = "dead";
    this.#host.release(this, reason);
  }

  async #invoke(method: "describe" | "call" | "typed", args: unknown[], timeoutMs = this.#host.callTimeoutMs): Promise<unknown> {
    if (this.#state === "dead") throw new SandboxError("instance_dead", `instance ${this.id} is gone; take a fresh instance`);
    const deadline = Math.min(timeoutMs, this.#host.maxCallTimeoutMs);
    // A bound call takes its run's (and agent's) share of the workers; an unbound describe has no run.
    let release: () => void = () => {};
    if (this.#binding) {
      const share = this.#host.admit(this);
      release = typeof share === "function" ? share : await share;
    }
    try {
      for (let attempt = 0; ; ) {
        // Destroyed meanwhile (aborted while it waited for its share, or its run ended): never rebuilt.
        if (this.state === "dead") throw new SandboxError("instance_dead", `instance ${this.id} is gone; take a fresh instance`);
        if (this.#lost) {
          const placement = await this.#host.rebuild(this);
          this.#guestId = placement.guestId;
          this.#worker = placement.worker;
          this.#lost = false;
        }
        let reply: WorkerReply;
        try {
          reply = await this.#run({ type: "call", instanceId: this.#guestId, method, args }, deadline);
        } catch (error) {
          // Moved to an idle worker before it started: run it there (this costs no attempt).
          if (error instanceof SandboxError && error.code === "call_moved") continue;
          // Another call's deadline (or a crash) took the worker: rebuild and retry, once.
          if (error instanceof SandboxError && error.code === "instance_lost" && attempt++ === 0) {
            this.#lost = true;
            continue;
          }
          this.destroy(error instanceof SandboxError ? error.code : "failed");
          throw error;
        }
        this.#lastGuestUs = reply.elapsedUs;
        return this.#unwrap(reply);
      }
    } finally {
      release();
    }
  }

  /**
   * Runs `task` in this instance's worker. A bound call that finds the worker busy is watched
   * by the sandbox: a call of another run that spins until its deadline must not hold it up
   * while another worker is idle.
   */
  #run(task: Extract<WorkerTask, { type: "call" }>, timeoutMs: number): Promise<WorkerReply> {
    const worker = this.#worker;
    const reply = worker.run(task, { lane: "call", timeoutMs });
    if (!this.#binding || worker.load <= 1) return reply;
    const unwatch = this.#host.watch(this, task);
    reply.then(unwatch, unwatch);
    return reply;
  }

  #unwrap(reply: WorkerReply): unknown {
    if (reply.ok) return reply.value;
    const failure = reply.failure;
    switch (failure.kind) {
      case "tool-error":
        throw new GuestToolError(failure.payload);
      case "result-too-large":
        throw new SandboxError(
          "result_too_large",
          `the tool returned ${failure.bytes} bytes, more than the ${failure.max}-byte result cap (sandbox.max_result_bytes); nothing of it was kept: ask for less, or for a reference (a file path) to the data`,
        );
      case "result-unbounded": {
        // A guest that answers with hostile JSON is not trusted with the next call.
        this.destroy("result refused");
        const code = failure.problem.code === "too-deep" ? "result_too_deep" : "result_too_many_values";
        throw new SandboxError(code, `plugin ${this.plugin.manifest.name} returned a result the runtime refuses: ${failure.problem.message} (the instance was replaced)`);
      }
      case "no-instance":
        this.destroy("missing");
        throw new SandboxError("instance_lost", `instance ${this.id} no longer exists in its worker`);
      case "trap": {
        // A guest out of memory at the cap traps like any other; its memory size tells them apart.
        const capBytes = this.plugin.memoryMaxMb === undefined ? this.#host.memoryCapBytes : this.plugin.memoryMaxMb * 1024 * 1024;
        const atCap = (failure.memoryBytes ?? 0) >= capBytes * 0.9;
        this.destroy(atCap ? "memory cap" : "trapped");
        if (atCap) {
          throw new SandboxError("memory_cap", `plugin ${this.plugin.manifest.name} reached its memory cap of ${capBytes >> 20} MiB and was stopped`);
        }
        throw new SandboxError("plugin_trapped", `plugin ${this.plugin.manifest.name} trapped: ${failure.message}`);
      }
    }
  }
}

/** The guest returned its WIT `tool-error` case; the instance is unharmed. */
export class GuestToolError extends ClawhiveError {
  readonly payload: unknown;
  constructor(payload: unknown) {
    super("tool_error", describePayload(payload), { status: 422 });
    this.payload = payload;
  }
}

function describePayload(payload: unknown): string {
  if (payload && typeof payload === "object" && "tag" in payload) {
    const { tag, val } = payload as { tag: string; val: unknown };
    const text = val && typeof val === "object" && "message" in val ? String((val as { message: unknown }).message) : String(val);
    return `${tag}: ${text}`;
  }
  return String(payload);
}
