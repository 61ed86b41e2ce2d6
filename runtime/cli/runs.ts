import { InvalidInputError } from "../errors.js";
import { ApprovalStore } from "../policy/approvals/index.js";
import type { Approval } from "../policy/approvals/index.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import type { RunRecord, RunStatus } from "../runs/records.js";
import type { LeastPrivilegeReport } from "../runs/report.js";
import { applyMigrations, systemClock } from "../store/index.js";
import { field, flagText, inert, jsonText, parseLimit } from "./render.js";
import { parseCommandArgs } from "./args.js";
import { openExistingStore, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const runsHelp = `clawhive runs — the runs in the store and what each was allowed and did

  clawhive runs list [--status S] [--limit N] [--json]
  clawhive runs show ID [--json]

  list:
  --status S        active, awaiting_approval or ended (default: all)
  --limit N         at most N, newest first, 1 to 1000 (default 20)
  --json            print the run records as JSON

  show: the run (agent, task, status, trace id, times); if it waits, the ToolCall it waits
  with and the approval to decide; its approvals; once ended, its least-privilege report:
  capabilities granted, used and unused, denials with counts.

${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such run; 2 bad usage.`;

const usage = "usage: clawhive runs list | show ID";
const STATUSES: readonly RunStatus[] = ["active", "awaiting_approval", "ended"];

export async function runsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return list(rest);
  if (sub === "show") return show(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown runs command '${sub}'; ${usage}`);
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, status: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError(`runs list takes no arguments, got ${positionals.join(" ")}; ${usage}`);
  const status = flagText(values, "status");
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw new InvalidInputError(`--status ${status}: expected one of ${STATUSES.join(", ")}`, { field: "status" });
  }
  const limit = parseLimit(flagText(values, "limit"), 20);
  const store = await openExistingStore(values);
  try {
    await applyMigrations(store, runMigrations, { clock: systemClock });
    const runs = await new RunRecords(store).list({ ...(status === undefined ? {} : { status: status as RunStatus }), limit });
    if (values.json) console.log(jsonText(runs));
    else if (runs.length === 0) console.error(`no ${status === undefined ? "" : `${status} `}runs`);
    else for (const line of runLines(runs)) console.log(line);
    return 0;
  } finally {
    await store.close();
  }
}

/** One line a run, columns aligned; the task last, since its length varies. */
export function runLines(runs: readonly RunRecord[]): string[] {
  const rows = runs.map((r) => [
    r.id,
    r.status,
    r.agent,
    new Date(r.createdAt).toISOString(),
    r.status === "ended" && r.endedAt !== null ? `ended ${new Date(r.endedAt).toISOString()}` : r.pending ? `waits ${r.pending.approvalId}` : "-",
    r.task ?? "-",
  ].map((cell) => inert(cell, { newlines: false })));
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join("  ").trimEnd());
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, json: { type: "boolean" } });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive runs show ID");
  const store = await openExistingStore(values);
  try {
    await applyMigrations(store, runMigrations, { clock: systemClock });
    const record = await new RunRecords(store).get(id);
    if (!record) {
      console.error(`clawhive: ${inert(`no run ${id}; 'clawhive runs list' shows the runs in this store`, { newlines: false })}`);
      return 1;
    }
    const approvals = await (await ApprovalStore.open(store, { clock: systemClock })).list({ runId: id, limit: 1000 });
    if (values.json) console.log(jsonText({ ...record, approvals }));
    else console.log(showLines(record, approvals).join("\n"));
    return 0;
  } finally {
    await store.close();
  }
}

export function showLines(record: RunRecord, approvals: readonly Approval[]): string[] {
  const lines = [inert(`run ${record.id}`, { newlines: false })];
  lines.push(...field("agent", record.agent), ...field("task", record.task ?? "(none)"), ...field("status", record.status));
  lines.push(...field("trace", record.traceId));
  if (record.parentRunId !== null) lines.push(...field("parent run", record.parentRunId));
  lines.push(...field("created", new Date(record.createdAt).toISOString()));
  if (record.endedAt !== null) lines.push(...field("ended", new Date(record.endedAt).toISOString()));
  if (record.pending) {
    const waitsOn = approvals.find((a) => a.id === record.pending?.approvalId);
    lines.push("", inert(`waiting: approval ${record.pending.approvalId} (${waitsOn?.status ?? "not found"})`, { newlines: false }));
    lines.push(...field("tool", record.pending.tool), ...field("step", record.pending.stepId), ...field("arguments", jsonText(record.pending.input)));
    if (waitsOn?.status === "pending") lines.push(...field("decide", `clawhive approvals approve ${waitsOn.id} (or deny)`));
    else lines.push(...field("continue", `clawhive resume ${record.id}`));
  }
  if (approvals.length > 0) {
    lines.push("", "approvals:");
    for (const a of approvals) {
      const decided = a.decidedBy === null ? "" : ` by ${a.decidedBy}${a.scope === null ? "" : ` (${a.scope})`}`;
      lines.push(inert(`  ${a.id}  ${a.kind}  ${a.tool}  ${a.status}${decided}`, { newlines: false }));
    }
  }
  lines.push("");
  if (record.report === null) lines.push("least-privilege report: none yet (a run's report is stored when it ends)");
  else lines.push("least-privilege report:", ...reportLines(record.report as LeastPrivilegeReport));
  return lines;
}

/** The least-privilege report, one fact a line: what was granted against what was used. */
export function reportLines(report: LeastPrivilegeReport): string[] {
  const list = (items: readonly string[] | undefined) => (items && items.length > 0 ? items.join(", ") : "none");
  const calls = report.toolCalls;
  const lines = [
    ...(calls ? field("tool calls", `${calls.total} (${calls.ok} ok, ${calls.error} error, ${calls.approvalRequired} waited for approval)`) : []),
    ...field("granted", list(report.granted)),
    ...field("used", list(report.used)),
    ...field("unused", report.unused?.length ? `${list(report.unused)} (candidates to narrow the agent or task)` : "none"),
  ];
  const denials = report.denials ?? [];
  if (denials.length === 0) lines.push(...field("denials", "none"));
  else lines.push(...field("denials", denials.map((d) => inert(`${d.capability} ${d.reason} ×${d.count}: ${d.example}`, { newlines: false })).join("\n")));
  const approvals = report.approvals ?? [];
  lines.push(...field("approvals", approvals.length === 0 ? "none" : approvals.map((a) => `${a.id} ${a.kind} ${a.tool} ${a.outcome}`).join("\n")));
  return lines;
}
