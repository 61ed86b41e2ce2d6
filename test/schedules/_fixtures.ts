/** A Scheduler on a `:memory:` (or given) store with a clock the test moves and a `submit` that records. */
import type { AgentManifest } from "../../runtime/agents/index.js";
import { ConflictError } from "../../runtime/errors.js";
import { Scheduler, type ScheduledRunInput } from "../../runtime/schedules/index.js";
import { openStore, type Store } from "../../runtime/store/index.js";
import * as v from "valibot";
import { CapabilityGrantSchema } from "../../runtime/policy/catalogue/grant.js";
import type { LlmProvider } from "../../runtime/llm/provider.js";

export const T0 = Date.parse("2026-01-01T00:00:00Z");
export const MINUTE = 60_000;

export class TestClock {
  t: number;
  constructor(t = T0) {
    this.t = t;
  }
  now(): number {
    return this.t;
  }
}

/** A grant as a parsed manifest holds it (defaults filled in). */
export function grant(input: Record<string, unknown>): Record<string, unknown> {
  return v.parse(CapabilityGrantSchema, input) as Record<string, unknown>;
}

/** Only what the Scheduler reads of a manifest: its name and parsed grant. */
export function agent(name: string, grants: Record<string, unknown>): AgentManifest {
  return { name, description: `test agent ${name}`, grants: grant(grants) } as unknown as AgentManifest;
}

export const WIDE = grant({ "fs.read": { mounts: [{ guest: "/data", host: "/tmp" }, { guest: "/logs", host: "/var/log" }] }, log: {} });
export const NARROW = grant({ "fs.read": { mounts: [{ guest: "/data", host: "/tmp" }] } });

export interface Harness {
  store: Store;
  clock: TestClock;
  agents: AgentManifest[];
  submitted: ScheduledRunInput[];
  scheduler: Scheduler;
  /** Another Scheduler (another "node") on the same store handle, clock and submit log. */
  peer(node?: string): Promise<Scheduler>;
}

export async function harness(options: { store?: Store; clock?: TestClock; agents?: AgentManifest[]; missedAfterMs?: number; claimTimeoutMs?: number } = {}): Promise<Harness> {
  const store = options.store ?? (await openStore({ url: ":memory:" }));
  const clock = options.clock ?? new TestClock();
  const agents = options.agents ?? [agent("reporter", WIDE)];
  const submitted: ScheduledRunInput[] = [];
  const make = (node: string) =>
    Scheduler.open({
      store,
      clock,
      node,
      agents: () => agents,
      submit: async (input) => {
        // As the runtime does: a run id is started once.
        if (submitted.some((s) => s.runId === input.runId)) throw new ConflictError("run_exists", `run ${input.runId}: already started`);
        submitted.push(input);
        return { runId: input.runId };
      },
      ...(options.missedAfterMs === undefined ? {} : { missedAfterMs: options.missedAfterMs }),
      ...(options.claimTimeoutMs === undefined ? {} : { claimTimeoutMs: options.claimTimeoutMs }),
    });
  return { store, clock, agents, submitted, scheduler: await make("node-a"), peer: (node = "node-b") => make(node) };
}

/** A model that answers at once, for the model-driven runs schedules fire. */
export const quietModel: LlmProvider = {
  provider: "test",
  model: "test",
  complete: async () => ({ content: [{ type: "text", text: "done" }], usage: { input_tokens: 1, output_tokens: 1 }, stop_reason: "end_turn", provider_stop_reason: "stop", model: "test", attempts: 1 }),
};
