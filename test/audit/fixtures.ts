/** Shared test inputs for the audit room: a clock tests move by hand, intents, a temp log. */
import { openAuditLog } from "../../runtime/audit/index.js";
import type { AuditLogOptions, DenialInput, IntentInput, LibsqlAuditLog } from "../../runtime/audit/index.js";
import type { Clock, Store } from "../../runtime/store/index.js";
import { openTempStore } from "../store/temp-store.js";
import type { TempDir } from "../store/temp-store.js";

export class ManualClock implements Clock {
  #now: number;
  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  set(ms: number): void {
    this.#now = ms;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

export function hostIntent(overrides: Partial<IntentInput> = {}): IntentInput {
  return {
    kind: "host_call",
    traceId: "trace-1",
    taskId: "task-1",
    runId: "run-1",
    stepId: "step-1",
    agent: "mail",
    plugin: "files",
    tool: "read-notes",
    hostCall: { proxy: "fs", function: "read-file" },
    args: { path: "/work/notes/a.md" },
    requestedCapabilities: [{ capability: "fs.read", resource: "/work/notes/**" }],
    grantedCapabilities: [{ capability: "fs.read", resource: "/work/notes/**" }],
    ...overrides,
  };
}

export function toolIntent(overrides: Partial<IntentInput> = {}): IntentInput {
  return {
    kind: "tool_call",
    traceId: "trace-1",
    runId: "run-1",
    agent: "mail",
    plugin: "files",
    tool: "read-notes",
    toolCall: { id: "call-1", name: "files.read-notes" },
    args: { note: "a" },
    ...overrides,
  };
}

export function hostDenial(overrides: Partial<DenialInput> = {}): DenialInput {
  return {
    ...hostIntent({ hostCall: { proxy: "fs", function: "write-file" }, args: { path: "/etc/passwd" } }),
    denial: { capability: "fs.write", reason: "not_granted", message: "fs.write /etc/passwd: not granted to agent mail" },
    ...overrides,
  };
}

export interface TempAuditLog {
  readonly log: LibsqlAuditLog;
  readonly store: Store;
  readonly dir: TempDir;
  readonly clock: ManualClock;
  cleanup(): Promise<void>;
}

export async function openTempAuditLog(options: Omit<AuditLogOptions, "clock"> = {}): Promise<TempAuditLog> {
  const { store, dir, cleanup } = await openTempStore();
  const clock = new ManualClock();
  const log = await openAuditLog(store, { ...options, clock });
  return {
    log,
    store,
    dir,
    clock,
    cleanup: async () => {
      await log.close();
      await cleanup();
    },
  };
}

/** Every value in every column of every audit row, as text: for "never stored" assertions. */
export async function allStoredText(store: Store): Promise<string> {
  const result = await store.execute("SELECT * FROM audit_records");
  return result.rows.map((row) => Object.values(row).map(String).join("\u0000")).join("\n");
}

/** Lets the runtime's own code rewrite history the way an attacker with the file would. */
export async function dropAppendOnlyGuards(store: Store): Promise<void> {
  await store.execute("DROP TRIGGER audit_records_no_update");
  await store.execute("DROP TRIGGER audit_records_no_delete");
}
