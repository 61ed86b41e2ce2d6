/** Builders for approval tests: a clock the test moves, an in-memory store, request inputs. */
import { ApprovalStore } from "../../../runtime/policy/approvals/index.js";
import type {
  ApprovalStoreOptions,
  EffectApprovalRequest,
  ToolCallApprovalRequest,
} from "../../../runtime/policy/approvals/index.js";
import { openStore } from "../../../runtime/store/index.js";
import type { Store } from "../../../runtime/store/index.js";

export const MINUTE = 60_000;
export const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export function testClock(start = T0): TestClock {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

export interface Harness {
  readonly approvals: ApprovalStore;
  readonly store: Store;
  readonly clock: TestClock;
  close(): Promise<void>;
}

/** A fresh `:memory:` store with the approvals room migrated; 60-minute expiry unless told. */
export async function harness(options: Partial<Omit<ApprovalStoreOptions, "clock">> = {}): Promise<Harness> {
  const clock = testClock();
  const store = await openStore({ url: ":memory:", clock });
  const approvals = await ApprovalStore.open(store, { expiryMinutes: 60, ...options, clock });
  return { approvals, store, clock, close: () => store.close() };
}

export const WRITE_ARGS = { path: "notes/a.txt", text: "hello" };

export function toolCallRequest(overrides: Partial<ToolCallApprovalRequest> = {}): ToolCallApprovalRequest {
  return {
    kind: "tool_call",
    runId: "run_1",
    traceId: "trace_1",
    agent: "writer",
    parentRunId: null,
    stepId: "step_1",
    toolCallId: "call_1",
    tool: "files.write_file",
    input: WRITE_ARGS,
    risk: "guarded",
    reason: "files.write_file writes to the notes mount (fs.write is Guarded)",
    context: "Please save my notes.",
    ...overrides,
  };
}

export const RM_EFFECT = { argv: ["rm", "-rf", "build"], cwd: "/work" };

export function effectRequest(overrides: Partial<EffectApprovalRequest> = {}): EffectApprovalRequest {
  return {
    kind: "effect",
    runId: "run_1",
    traceId: "trace_1",
    agent: "builder",
    parentRunId: "run_0",
    stepId: "step_2",
    toolCallId: "call_2",
    tool: "shell.exec",
    input: { command: "rm -rf build" },
    capability: "shell.exec",
    effect: RM_EFFECT,
    risk: "unsafe",
    reason: "shell.exec is Unsafe: each command needs its own approval",
    context: null,
    ...overrides,
  };
}

/** Runs `work` against a fresh harness and always closes it. */
export async function withHarness<T>(
  work: (h: Harness) => Promise<T>,
  options: Partial<Omit<ApprovalStoreOptions, "clock">> = {},
): Promise<T> {
  const h = await harness(options);
  try {
    return await work(h);
  } finally {
    await h.close();
  }
}
