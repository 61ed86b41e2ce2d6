/**
 * `clawhive:host/schedule`: schedules one agent's runs create. The creating run and its agent
 * are fixed when the runtime builds the proxy; a call never names them, so an agent sees, counts
 * and cancels only what its own runs created — never a person's schedule, never another agent's.
 *
 * A schedule outlives the run that made it and acts later with nobody watching, so what it
 * captures is never wider than the run: the grant every firing gets (the run's own effective
 * grant for its own agent, the target's manifest grant for another) must be covered by every
 * layer the creating run answers to — its agent, its task, each ancestor — or the call is
 * refused `wider-than-creator`.
 */
import type { AgentManifest } from "../../runtime/agents/index.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../../runtime/errors.js";
import { grantCovers, type CapabilityGrant } from "../../runtime/policy/catalogue/index.js";
import type { Scheduler } from "../../runtime/schedules/index.js";
import { HostProxyError } from "../types.js";
import { SCHEDULE_DENIAL_REASONS, scheduleDenied } from "./reasons.js";
import { parseScheduleSpec, scheduleInfo, type ScheduleInfo } from "./spec.js";

/** One grant the creating run answers to, named as the policy engine names it. */
export interface CreatorLayer {
  who: string;
  grants: CapabilityGrant;
}

export interface ScheduleProxyOptions {
  /** The runtime's scheduler (what it stores is fired by every node sharing the store). */
  scheduler: Pick<Scheduler, "create" | "list" | "cancel" | "liveCreatedBy">;
  /** The creating run and its agent. */
  run: { id: string; agent: string };
  /** Who owns the creating run (an API token, or none): the runs a schedule starts are theirs too. */
  ownerToken: () => Promise<string | null>;
  /** The run's effective grant: its task's if narrowed, else its agent's. */
  effectiveGrant: CapabilityGrant;
  /** Every layer the run answers to: its agent, its task (when narrowed), each ancestor. */
  layers: readonly CreatorLayer[];
  /** The agents as they are now. */
  agents: () => Promise<readonly AgentManifest[]>;
}

export interface ScheduleProxy {
  /** Active schedules runs of this agent created; the count `max_schedules` is decided on. */
  liveCount(): Promise<number>;
  list(): Promise<ScheduleInfo[]>;
  create(spec: unknown): Promise<ScheduleInfo>;
  cancel(id: string): Promise<boolean>;
}

/** The longest schedule id a call may name (ids are `sch_<uuid>`). */
const MAX_ID_CHARS = 100;

export function createScheduleProxy(options: ScheduleProxyOptions): ScheduleProxy {
  return new RunScheduleProxy(options);
}

class RunScheduleProxy implements ScheduleProxy {
  readonly #o: ScheduleProxyOptions;

  constructor(options: ScheduleProxyOptions) {
    this.#o = options;
  }

  liveCount(): Promise<number> {
    return guard("list", () => this.#o.scheduler.liveCreatedBy(this.#o.run.agent));
  }

  list(): Promise<ScheduleInfo[]> {
    return guard("list", async () => (await this.#o.scheduler.list({ createdByAgent: this.#o.run.agent })).map(scheduleInfo));
  }

  create(raw: unknown): Promise<ScheduleInfo> {
    return guard("create", async () => {
      const spec = parseScheduleSpec(raw);
      const target = (await this.#o.agents()).find((a) => a.name === spec.agent);
      if (target === undefined) throw HostProxyError.invalidInput(`schedule.create: agent ${spec.agent}: no such agent`);
      const captured = target.name === this.#o.run.agent ? this.#o.effectiveGrant : target.grants;
      for (const layer of this.#o.layers) {
        const coverage = grantCovers(layer.grants, captured);
        if (!coverage.covered) {
          throw scheduleDenied(
            SCHEDULE_DENIAL_REASONS.widerThanCreator,
            `a schedule of agent ${target.name} would run with grants.${coverage.path}, wider than what ${layer.who} allows: ${coverage.reason}`,
          );
        }
      }
      const record = await this.#o.scheduler.create(
        {
          agent: target.name,
          task: spec.task,
          grants: captured,
          ownerToken: await this.#o.ownerToken(),
          ...(spec.at === undefined ? {} : { at: spec.at }),
          ...(spec.cron === undefined ? {} : { cron: spec.cron }),
          ...(spec.timezone === undefined ? {} : { timezone: spec.timezone }),
          ...(spec.until === undefined ? {} : { until: spec.until }),
          ...(spec.maxRuns === undefined ? {} : { maxRuns: spec.maxRuns }),
          createdBy: { agent: this.#o.run.agent, run: this.#o.run.id },
        },
        { liveLimit: this.#liveLimit() },
      );
      return scheduleInfo(record);
    });
  }

  cancel(id: string): Promise<boolean> {
    return guard("cancel", async () => {
      if (typeof id !== "string" || id === "" || id.length > MAX_ID_CHARS) throw HostProxyError.invalidInput(`schedule.cancel: id must be a schedule id of at most ${MAX_ID_CHARS} characters`);
      try {
        await this.#o.scheduler.cancel(id, { createdByAgent: this.#o.run.agent });
        return true;
      } catch (error) {
        // Ended already: the agent's own schedule, so it may know that.
        if (error instanceof ConflictError) return false;
        throw error;
      }
    });
  }

  /**
   * The tightest `max_schedules` of every layer: the policy decided on the count before the
   * call, and the store decides again in the write, so racing runs of one agent cannot pass it.
   */
  #liveLimit(): number | undefined {
    const limits = this.#o.layers.map((l) => l.grants.schedule?.max_schedules).filter((n): n is number => n !== undefined);
    return limits.length === 0 ? undefined : Math.min(...limits);
  }
}

/** Runs one call; whatever fails leaves as a `HostProxyError` a guest may see. */
async function guard<T>(fn: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HostProxyError) throw error;
    // The Scheduler's messages name the field first (`cron: …`, `at: … has passed`).
    if (error instanceof InvalidInputError) throw HostProxyError.invalidInput(`schedule.${fn}: ${error.message}`);
    if (error instanceof NotFoundError) {
      throw fn === "cancel" ? HostProxyError.notFound(`schedule.cancel: ${error.message}`) : HostProxyError.invalidInput(`schedule.${fn}: ${error.message}`);
    }
    if (error instanceof ConflictError && error.code === "schedule_limit") throw scheduleDenied(SCHEDULE_DENIAL_REASONS.scheduleLimit, error.message);
    throw HostProxyError.io(`schedule.${fn}: the store failed; try again later`, error);
  }
}
