import { field, flagText, inert, jsonText, parseLimit } from "./render.js";
import { userInfo } from "node:os";
import { InvalidInputError } from "../errors.js";
import { ApprovalError, ApprovalStore } from "../policy/approvals/index.js";
import type { Approval, ApprovalDecision, ApprovalScope, ApprovalStatus } from "../policy/approvals/index.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import { applyMigrations, systemClock } from "../store/index.js";
import type { Store } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { openExistingStore, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const approvalsHelp = `clawhive approvals — see and decide what runs wait for

  clawhive approvals list [--status S] [--run ID] [--limit N] [--json]
  clawhive approvals approve ID [--scope once|run] [--reason TEXT] [--by NAME] [--json]
  clawhive approvals deny ID [--reason TEXT] [--by NAME] [--json]

  list:
  --status S        pending (default), approved, denied, expired, used or all
  --run ID          only this run's approvals
  --limit N         at most N, newest first, 1 to 1000 (default 50)
  --json            print the approvals as JSON

  Each approval shows what it would allow, exactly: the tool and its arguments (for an effect,
  also the capability and the host call), why it is asked, and the text that led to it.
  Control characters in them are shown escaped (\\u{1b}): a model wrote them, not you.

  approve / deny:
  --scope S         once (default): this call only; run: every later call of the tool in the
                    run (ToolCall approvals only; an effect is always once)
  --reason TEXT     why, kept with the decision
  --by NAME         who decides (default your user name)
  --json            print the decided approval as JSON

  A decided run continues with 'clawhive resume RUN'.

${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 the approval does not exist, was already decided or has expired;
  2 bad usage.`;

const usage = "usage: clawhive approvals list | approve ID | deny ID";
const STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired", "used"];
const DEFAULT_LIMIT = 50;

export async function approvalsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return list(rest);
  if (sub === "approve") return decide("approve", rest);
  if (sub === "deny") return decide("deny", rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown approvals command '${sub}'; ${usage}`);
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    status: { type: "string" },
    run: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 0) throw new InvalidInputError(`approvals list takes no arguments, got ${positionals.join(" ")}; ${usage}`);
  const statusText = flagText(values, "status") ?? "pending";
  if (statusText !== "all" && !(STATUSES as readonly string[]).includes(statusText)) {
    throw new InvalidInputError(`--status ${statusText}: expected one of ${STATUSES.join(", ")}, all`, { field: "status" });
  }
  const status = statusText === "all" ? undefined : (statusText as ApprovalStatus);
  const limit = parseLimit(flagText(values, "limit"), DEFAULT_LIMIT);
  const runId = flagText(values, "run");
  return withApprovals(values, async (approvals, store) => {
    const found = await approvals.list({ status, runId, limit });
    if (values.json) {
      console.log(jsonText(found));
      return 0;
    }
    if (found.length === 0) {
      console.error(`no ${status ?? ""}${status ? " " : ""}approvals${runId === undefined ? "" : ` of run ${inert(runId)}`}`);
      return 0;
    }
    const tasks = await runTasks(store, found);
    const now = systemClock.now();
    console.log(found.map((a) => approvalBlock(a, { now, task: tasks.get(a.runId) ?? null }).join("\n")).join("\n\n"));
    return 0;
  });
}

async function decide(decision: ApprovalDecision, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...(decision === "approve" ? { scope: { type: "string" } } : {}),
    reason: { type: "string" },
    by: { type: "string" },
    json: { type: "boolean" },
  });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError(`usage: clawhive approvals ${decision} ID [options]`);
  const scopeText = flagText(values, "scope");
  if (scopeText !== undefined && scopeText !== "once" && scopeText !== "run") {
    throw new InvalidInputError(`--scope ${scopeText}: expected once or run`, { field: "scope" });
  }
  const scope = scopeText as ApprovalScope | undefined;
  const reason = flagText(values, "reason");
  const by = flagText(values, "by") ?? currentUser();
  return withApprovals(values, async (approvals) => {
    let decided: Approval;
    try {
      decided = await approvals.decide(id, { decision, by, ...(scope === undefined ? {} : { scope }), ...(reason === undefined ? {} : { reason }) });
    } catch (error) {
      // Not found, already decided, expired: the command was well formed, the answer is no.
      if (error instanceof ApprovalError) {
        console.error(`clawhive: ${inert(error.message)}`);
        return 1;
      }
      throw error;
    }
    if (values.json) {
      console.log(jsonText(decided));
      return 0;
    }
    const verb = decision === "approve" ? `approved (${decided.scope ?? "once"})` : "denied";
    const why = decided.decisionReason === null ? "" : `: ${decided.decisionReason}`;
    console.log(inert(`${verb} ${decided.id}: ${decided.kind} ${decided.tool} of run ${decided.runId}, by ${decided.decidedBy ?? by}${why}`, { newlines: false }));
    console.log(inert(`resume with: clawhive resume ${decided.runId}`, { newlines: false }));
    return 0;
  });
}

async function withApprovals(values: Readonly<Record<string, unknown>>, body: (approvals: ApprovalStore, store: Store) => Promise<number>): Promise<number> {
  const store = await openExistingStore(values);
  try {
    return await body(await ApprovalStore.open(store, { clock: systemClock }), store);
  } finally {
    await store.close();
  }
}

/** The task of each run the approvals belong to: what the run was started to do. */
async function runTasks(store: Store, approvals: readonly Approval[]): Promise<Map<string, string | null>> {
  await applyMigrations(store, runMigrations, { clock: systemClock });
  const records = new RunRecords(store);
  const tasks = new Map<string, string | null>();
  for (const runId of new Set(approvals.map((a) => a.runId))) tasks.set(runId, (await records.get(runId))?.task ?? null);
  return tasks;
}

/** The decider's name when `--by` is not given; `userInfo` throws where the uid has no passwd entry. */
function currentUser(): string {
  try {
    const name = userInfo().username;
    if (name !== "") return name;
  } catch {
    // fall through: say what to do instead
  }
  throw new InvalidInputError("--by: could not tell who you are from the system; pass --by NAME", { field: "by" });
}

export function approvalBlock(a: Approval, options: { now: number; task?: string | null }): string[] {
  const lines = [inert(`${a.id}  ${a.kind}  ${a.status}`, { newlines: false })];
  lines.push(...field("agent", a.agent), ...field("run", a.runId), ...field("tool", `${a.tool} (${a.risk})`));
  lines.push(...field("arguments", jsonText(a.input)));
  if (a.kind === "effect") lines.push(...field("capability", a.capability ?? "?"), ...field("effect", jsonText(a.effect)));
  lines.push(...field("reason", a.reason));
  lines.push(...field("created", new Date(a.createdAt).toISOString()));
  lines.push(...field("expires", `${new Date(a.expiresAt).toISOString()} (${relative(a.expiresAt, options.now)})`));
  if (a.decision !== null) {
    const at = a.decidedAt === null ? "" : ` at ${new Date(a.decidedAt).toISOString()}`;
    const scope = a.decision === "approve" ? ` (${a.scope ?? "once"})` : "";
    lines.push(...field("decided", `${a.decision === "approve" ? "approved" : "denied"}${scope} by ${a.decidedBy ?? "?"}${at}${a.decisionReason === null ? "" : `: ${a.decisionReason}`}`));
  }
  if (a.useCount > 0) lines.push(...field("used", `${a.useCount} time${a.useCount === 1 ? "" : "s"}${a.usedAt === null ? "" : `, last ${new Date(a.usedAt).toISOString()}`}`));
  if (options.task !== undefined) lines.push(...field("task", options.task ?? "(none)"));
  lines.push(...field("context", a.context ?? "(none given)"));
  return lines;
}

function relative(at: number, now: number): string {
  const ms = Math.abs(at - now);
  const text = ms < 60_000 ? `${Math.round(ms / 1000)}s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m` : ms < 172_800_000 ? `${Math.round(ms / 3_600_000)}h` : `${Math.round(ms / 86_400_000)}d`;
  return at >= now ? `in ${text}` : `${text} ago`;
}
