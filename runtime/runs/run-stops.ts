import { ConflictError } from "../errors.js";
import type { IntentGuard } from "../audit/index.js";
import { effectGuard } from "./fence.js";
import type { RunStopped } from "./host-context.js";
import type { PendingToolCall, RunEndReason, RunStatus } from "./records.js";
import type { RunServices } from "./run-setup.js";

/** What a run is at this moment on this node: shared by the Run and its store checks. */
export interface RunState {
  status: RunStatus;
  pending: PendingToolCall | null;
  /** Cancellation was asked for: no further ToolCall starts. */
  cancelled: boolean;
  /** Another node holds the run now (the store said so): nothing further is done here. */
  takenOver: boolean;
  /** The run's end is in the store (`ended` alone says only that this node ended it). */
  endRecorded: boolean;
  endReason: RunEndReason;
  endResult: string | undefined;
}

/**
 * Whether a run may go on, as the store says (not this node's memory): a cancel recorded on any
 * node, an end recorded by another, another node holding the run's lease. Asked before every
 * ToolCall and, in the effect intent's own transaction (`fence`), before every effect.
 */
export class RunStops {
  readonly #id: string;
  readonly #services: RunServices;
  readonly #state: RunState;
  readonly #run: { release(reason: string): Promise<void>; cancel(): Promise<unknown> };

  constructor(id: string, services: RunServices, state: RunState, run: { release(reason: string): Promise<void>; cancel(): Promise<unknown> }) {
    this.#id = id;
    this.#services = services;
    this.#state = state;
    this.#run = run;
  }

  /** Throws `run_cancelled` (after ending the run here) or `run_ended` when the store says the run may not go on. */
  async stopIfAsked(): Promise<void> {
    if (this.#state.cancelled) throw new ConflictError("run_cancelled", `run ${this.#id} was cancelled`);
    const stopped = await this.#services.records.stopped(this.#id, this.#services.node);
    if (stopped === undefined) return;
    if (stopped === "taken") {
      this.#state.takenOver = true;
      throw this.takenOverError();
    }
    this.#state.cancelled = true;
    if (stopped === "cancelled") {
      await this.#run.cancel();
      throw new ConflictError("run_cancelled", `run ${this.#id} was cancelled`);
    }
    // Ended by another node (a cancel another node carried out, too): its end is on record;
    // this node only lets go of its instances.
    this.#state.status = "ended";
    this.#state.endRecorded = true;
    await this.#run.release("run ended elsewhere").catch(() => undefined);
    if (stopped === "ended-cancelled") {
      this.#state.endReason = "cancelled";
      throw new ConflictError("run_cancelled", `run ${this.#id} was cancelled`);
    }
    throw new ConflictError("run_ended", `run ${this.#id} has ended`);
  }

  /**
   * The host-call gate asks before every effect: a refusal reason when the run was cancelled
   * (on any node) or has ended, else undefined. A cancel seen here ends the run once the
   * refused call is back.
   */
  async stoppedBeforeEffect(options: { fenced?: boolean } = {}): Promise<RunStopped | undefined> {
    if (this.#state.takenOver) return { reason: "run-taken-over", message: `run ${this.#id} is driven by another node now; no further effect is made here` };
    if (this.#state.cancelled || this.#state.status === "ended") return { reason: "run-cancelled", message: `run ${this.#id} was cancelled or has ended` };
    // The effect's intent is committed with the fence, which asks the store the same in the
    // intent's own transaction: a read here would only ask it twice.
    if (options.fenced === true) return undefined;
    const stopped = await this.#services.records.stopped(this.#id, this.#services.node);
    if (stopped === undefined) return undefined;
    if (stopped === "taken") {
      this.#state.takenOver = true;
      return { reason: "run-taken-over", message: `run ${this.#id} is driven by another node now (this node's lease ran out); no further effect is made here` };
    }
    if (stopped !== "cancelled") {
      // Ended by another node: its end is on record and stays as it is; this node lets go of
      // its instances once the call this gate serves is back.
      this.#state.status = "ended";
      this.#state.endRecorded = true;
      if (stopped === "ended-cancelled") this.#state.endReason = "cancelled";
      setImmediate(() => void this.#run.release("run ended elsewhere").catch(() => undefined));
      return { reason: "run-cancelled", message: `run ${this.#id} has ended on another node; no further effect is made` };
    }
    this.#state.cancelled = true;
    // Not awaited here: ending aborts the very call this gate serves. A failed end write is
    // retried by whoever drives the run (it sees `endUnrecorded`).
    setImmediate(() => void this.#run.cancel().catch(() => undefined));
    return { reason: "run-cancelled", message: `run ${this.#id} was cancelled; no further effect is made` };
  }

  /** The guard of this run's effect intents: live, not cancelled, held by this node (see effectGuard). */
  fence(): IntentGuard {
    return effectGuard(this.#id, this.#services.node, this.#services.now);
  }

  /**
   * Whether another node holds the run now, as the store says (remembered). A read that fails
   * says no: the writes that matter (intents, the end, the pending call) are fenced themselves.
   */
  async takenOver(): Promise<boolean> {
    if (this.#state.takenOver) return true;
    if (this.#services.node === undefined) return false;
    this.#state.takenOver = (await this.#services.records.stopped(this.#id, this.#services.node).catch(() => undefined)) === "taken";
    return this.#state.takenOver;
  }

  /**
   * Records the ToolCall the run waits on (or none), fenced: refused because another node holds
   * the run now, it throws `run_taken_over`; refused because the run ended, nothing happens.
   */
  async setPending(pending: PendingToolCall | null): Promise<void> {
    this.#state.pending = pending;
    this.#state.status = pending ? "awaiting_approval" : "active";
    const written = await this.#services.records.setPending(this.#id, pending, this.#services.node);
    if (!written && (await this.takenOver())) throw this.takenOverError();
  }

  /** `run_taken_over`, once this node's instances of the run are let go of. */
  takenOverError(): ConflictError {
    void this.#run.release("run taken over by another node").catch(() => undefined);
    return new ConflictError("run_taken_over", `run ${this.#id} is driven by another node now (this node's lease ran out); it goes on there`);
  }
}
