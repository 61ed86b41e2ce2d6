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
import { ConflictError, InvalidInputError, NotFoundError } from "../../runtime/errors.js";
import type { ScheduleRecord } from "../../runtime/schedules/records.js";
import { HostProxyError } from "../types.js";
import { SCHEDULE_DENIAL_REASONS, scheduleDenied } from "./reasons.js";
import { parseScheduleSpec, scheduleInfo, type ScheduleInfo } from "./spec.js";

/**
 * A grant as the policy engine holds it: opaque to the proxy, which only asks `covers` whether
 * one lies within another and stores the captured one with the schedule.
 */
export type Grant = unknown;

/** One grant the creating run answers to, named as the policy engine names it. */
export interface CreatorLayer<G = Grant> {
  who: string;
  grants: G;
}

/** What the proxy asks the policy engine: whether `inner` lies within `outer`, and if not where. */
export type GrantCovers<G = Grant> = (outer: G, inner: G) => { covered: true } | { covered: false; path: string; reason: string };

/** What a schedule a run creates is stored as (the runtime's scheduler takes it as it is). */
export interface ScheduleCreateRequest<G = Grant> {
  agent: string;
  task: string;
  grants: G;
  ownerToken: string | null;
  at?: number;
  cron?: string;
  timezone?: string;
  until?: number;
  maxRuns?: number;
  createdBy: { agent: string; run: string };
}

/** The runtime's scheduler as the proxy uses it (what it stores is fired by every node sharing the store). */
export interface SchedulePort<G = Grant> {
  create(input: ScheduleCreateRequest<G>, options: { liveLimit?: number }): Promise<ScheduleRecord>;
  list(options: { createdByAgent: string }): Promise<ScheduleRecord[]>;
  cancel(id: string, options: { createdByAgent: string }): Promise<unknown>;
  liveCreatedBy(agent: string): Promise<number>;
}

export interface ScheduleProxyOptions<G = Grant> {
  scheduler: SchedulePort<G>;
  /** The creating run and its agent. */
  run: { id: string; agent: string };
  /** Who owns the creating run (an API token, or none): the runs a schedule starts are theirs too. */
  ownerToken: () => Promise<string | null>;
  /** The run's effective grant: its task's if narrowed, else its agent's. */
  effectiveGrant: G;
  /** Every layer the run answers to: its agent, its task (when narrowed), each ancestor. */
  layers: readonly CreatorLayer<G>[];
  /** The tightest `max_schedules` of those layers, if any sets one. */
  liveLimit: number | undefined;
  /** The agents as they are now: each one's name and manifest grant. */
  agents: () => Promise<readonly { name: string; grants: G }[]>;
  covers: GrantCovers<G>;
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

export function createScheduleProxy<G>(options: ScheduleProxyOptions<G>): ScheduleProxy {
  return new RunScheduleProxy(options);
}

class RunScheduleProxy<G> implements ScheduleProxy {
  readonly #o: ScheduleProxyOptions<G>;

  constructor(options: ScheduleProxyOptions<G>) {
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
        const coverage = this.#o.covers(layer.grants, captured);
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
        this.#o.liveLimit === undefined ? {} : { liveLimit: this.#o.liveLimit },
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
