import { createHash } from "node:crypto";
import { runtimeLogger } from "../log/index.js";
import type { AgentManifest } from "../agents/index.js";
import { createMountHostGuard } from "../../host-proxies/fs/index.js";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { localGrants } from "./local-grants.js";
import { parseTaskGrants } from "../runs/agent-setup.js";
import { applyMigrations, type Clock, type Store } from "../store/index.js";
import { buildSchedule, type CreateScheduleInput } from "./build.js";
import { nextCronTime } from "./cron.js";
import { scheduleMigrations } from "./migrations.js";
import { ScheduleRecords, type FiringRecord, type ScheduledToolCall, type ScheduleListOptions, type ScheduleRecord } from "./records.js";

/** What a firing asks the runtime to run: always the schedule's captured grant. */
export interface ScheduledRunInput {
  /** A function of the firing (schedule and due time): a firing never starts two runs. */
  runId: string;
  agent: string;
  task: string;
  toolCalls?: ScheduledToolCall[];
  grants: unknown;
  ownerToken?: string;
}

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  /**
   * Starts a run (e.g. `Runtime.submitRun`); resolves once the run is recorded, not when it ends.
   * A run id already started must be refused with `ConflictError` `run_exists`.
   */
  submit: (input: ScheduledRunInput) => Promise<{ runId: string }>;
  /** The agents as they are now (re-read at each firing: a narrowed agent refuses a wider captured grant). */
  agents: () => readonly AgentManifest[] | Promise<readonly AgentManifest[]>;
  /** This node's id, recorded on the firings it claims. */
  node: string;
  /** The runtime's forbidden mount roots, checked on a schedule's grant when created and fired; default the system roots. */
  mountGuard?: MountHostGuard;
  /** A due time found later than this is a miss, not run (default 60 s): nobody was up to fire it. */
  missedAfterMs?: number;
  /**
   * A firing claimed this long ago without a recorded run is taken over by another node (default
   * 30 s): its claimer died between the claim and the run. The run id is the firing's, so a
   * claimer that was only slow cannot start a second run.
   */
  claimTimeoutMs?: number;
  /** The longest the timer sleeps, so schedules other nodes create are seen (default 10 s). */
  pollMs?: number;
  /** Where a failed tick is reported (default stderr). */
  onError?: (error: unknown) => void;
}

export interface TickReport {
  /** Firings this node claimed and started (or tried to: see the firing's status). */
  fired: number;
  /** Due times recorded as missed. */
  missed: number;
}

/**
 * Starts the runs of the schedules stored in the `schedules` table. Every node sharing the store
 * may run one: each due time is claimed by one conditional write (`ScheduleRecords.claim`), so
 * it fires once however many nodes see it.
 */
export class Scheduler {
  readonly records: ScheduleRecords;
  readonly #options: SchedulerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #ticking: Promise<TickReport> | undefined;

  readonly #mountGuard: MountHostGuard;

  private constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#mountGuard = options.mountGuard ?? createMountHostGuard({});
    this.records = new ScheduleRecords(options.store);
  }

  /** Applies the room's migrations; the timer starts with `start()`. */
  static async open(options: SchedulerOptions): Promise<Scheduler> {
    await applyMigrations(options.store, scheduleMigrations, { clock: options.clock });
    return new Scheduler(options);
  }

  /**
   * Validates and stores a schedule. With `liveLimit` (a schedule a run creates), it is stored
   * only while its creating agent has fewer active schedules than that, decided in the write;
   * else `ConflictError` `schedule_limit`.
   */
  async create(input: CreateScheduleInput, options: { liveLimit?: number } = {}): Promise<ScheduleRecord> {
    const record = buildSchedule(input, { agents: await this.#options.agents(), now: this.#options.clock.now(), hostGuard: this.#mountGuard });
    if (options.liveLimit !== undefined && record.createdByAgent === null) {
      throw new ConflictError("schedule_limit", "a limit on live schedules applies to schedules a run creates");
    }
    if (!(await this.records.insertWithin(record, options.liveLimit))) {
      throw new ConflictError("schedule_limit", `agent ${record.createdByAgent}: already ${options.liveLimit} active schedules; cancel one first`);
    }
    if (this.#running) this.#arm(0);
    return record;
  }

  get(id: string): Promise<ScheduleRecord | undefined> {
    return this.records.get(id);
  }

  list(options: ScheduleListOptions = {}): Promise<ScheduleRecord[]> {
    return this.records.list(options);
  }

  /** How many active schedules runs of `agent` created. */
  liveCreatedBy(agent: string): Promise<number> {
    return this.records.liveCreatedBy(agent);
  }

  firings(id: string, options: { limit?: number } = {}): Promise<FiringRecord[]> {
    return this.records.firings(id, options);
  }

  /**
   * Cancels an active schedule: no firing after this (a run already started goes on). With
   * `createdByAgent`, a schedule that agent's runs did not create is not found.
   */
  async cancel(id: string, options: { createdByAgent?: string } = {}): Promise<ScheduleRecord> {
    if (!(await this.records.cancel(id, this.#options.clock.now(), options))) {
      const record = await this.records.get(id);
      if (record === undefined || (options.createdByAgent !== undefined && record.createdByAgent !== options.createdByAgent)) {
        throw new NotFoundError(`schedule ${id}: not found`);
      }
      throw new ConflictError("schedule_ended", `schedule ${id}: already ${record.status}; only an active schedule can be cancelled`);
    }
    return (await this.records.get(id))!;
  }

  /** Starts the timer: a tick now, then at each next due time (at most `pollMs` apart). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#arm(0);
  }

  /** Stops the timer and waits for a tick under way. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking?.catch(() => undefined);
  }

  /** Fires (or marks missed) every schedule due now; ticks never overlap on one node. */
  tick(): Promise<TickReport> {
    const previous = this.#ticking ?? Promise.resolve({ fired: 0, missed: 0 });
    const next = previous.catch(() => undefined).then(() => this.#tick());
    this.#ticking = next;
    return next;
  }

  async #tick(): Promise<TickReport> {
    const report = { fired: 0, missed: 0 };
    const now = this.#options.clock.now();
    for (const claim of await this.records.staleClaims(now - (this.#options.claimTimeoutMs ?? 30_000))) {
      if (!(await this.records.retake(claim, this.#options.node, now))) continue;
      const schedule = await this.records.get(claim.scheduleId);
      if (schedule === undefined) continue;
      await this.#startRun(schedule, claim.dueAt);
      report.fired++;
    }
    for (const schedule of await this.records.due(now)) {
      const outcome = await this.#fire(schedule, now);
      if (outcome !== undefined) report[outcome]++;
    }
    return report;
  }

  async #fire(s: ScheduleRecord, now: number): Promise<"fired" | "missed" | undefined> {
    const dueAt = s.nextAt!;
    const missed = now - dueAt > (this.#options.missedAfterMs ?? 60_000);
    const runs = s.runsSoFar + (missed ? 0 : 1);
    // Cron: the next tick after now, so ticks missed while no node was up are skipped, not replayed.
    const next = s.kind === "cron" ? nextCronTime(s.cron!, { after: Math.max(now, dueAt), timezone: s.timezone }) : null;
    const ended = next === null || (s.until !== null && next > s.until) || (s.maxRuns !== null && runs >= s.maxRuns);
    const status = !ended ? "active" : s.kind === "once" && missed ? "missed" : "done";
    const won = await this.records.claim({
      id: s.id,
      dueAt,
      next: ended ? null : next,
      status,
      firing: missed ? "missed" : "claimed",
      node: this.#options.node,
      at: now,
    });
    if (!won) return undefined;
    if (missed) return "missed";
    await this.#startRun(s, dueAt);
    return "fired";
  }

  async #startRun(s: ScheduleRecord, dueAt: number): Promise<void> {
    try {
      const agent = (await this.#options.agents()).find((a) => a.name === s.agent);
      if (agent === undefined) throw new NotFoundError(`agent ${s.agent}: no longer defined`);
      // Its mounts' hosts are this node's (the schedule may have been made on another), and it is
      // checked here too, not only by the runtime: a schedule never runs wider than its agent allows now.
      const grants = localGrants(s.capturedGrants, agent);
      parseTaskGrants(grants, agent, { field: "captured_grants", hostGuard: this.#mountGuard });
      const { runId } = await this.#options.submit({
        runId: firingRunId(s.id, dueAt),
        agent: s.agent,
        task: s.task,
        ...(s.toolCalls === null ? {} : { toolCalls: s.toolCalls }),
        grants,
        ...(s.ownerToken === null ? {} : { ownerToken: s.ownerToken }),
      });
      await this.records.settleFiring(s.id, dueAt, { runId });
    } catch (error) {
      if (error instanceof ConflictError && error.code === "run_exists") {
        // The run started before its claimer could record it: the firing is done.
        await this.records.settleFiring(s.id, dueAt, { runId: firingRunId(s.id, dueAt) });
        return;
      }
      await this.records.settleFiring(s.id, dueAt, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  #arm(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#wake(), delay);
    this.#timer.unref();
  }

  async #wake(): Promise<void> {
    if (!this.#running) return;
    try {
      await this.tick();
    } catch (error) {
      (this.#options.onError ?? ((e) => runtimeLogger().error({ err: e }, "scheduler tick failed")))(error);
    }
    if (!this.#running) return;
    const poll = this.#options.pollMs ?? 10_000;
    let delay = poll;
    try {
      const next = await this.records.nextDue();
      if (next !== undefined) delay = Math.min(poll, Math.max(0, next - this.#options.clock.now()));
    } catch {
      // The store is unreachable: try again after the poll interval.
    }
    if (this.#running) this.#arm(delay);
  }
}

/** The run id of a firing: `run_` and a UUID-shaped digest of the schedule id and due time. */
export function firingRunId(scheduleId: string, dueAt: number): string {
  const hex = createHash("sha256").update(`${scheduleId}\n${dueAt}`).digest("hex");
  return `run_${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
