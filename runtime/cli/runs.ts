import { InvalidInputError } from "../errors.js";
import type { Approval } from "../policy/approvals/index.js";
import type { RunStatus } from "../runs/records.js";
import type { LeastPrivilegeReport } from "../runs/report.js";
import type { ClawhiveClient, TodoView } from "../client/client.js";
import { field, flagText, inert, jsonOut, jsonText, parseLimit } from "./render.js";
import { parseCommandArgs } from "./args.js";
import { ClientRunSession } from "./client-run-session.js";
import { continueCommand, serverFlagOf } from "./hints.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withClient } from "./command-client.js";
import { follow, RUN_EXIT_CODES } from "./run.js";
import { todoLines } from "./run-render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { approvalFromView, runFromView } from "./views.js";
import type { ApprovalView, RunSummary, RunView } from "./views.js";

export const runsHelp = `clawhive runs — the runs, what each was allowed and did; follow or cancel one

  clawhive runs list [--status S] [--limit N] [--json]
  clawhive runs show ID [--json]
  clawhive runs watch ID [--after SEQ] [--wait-approval] [--json]
  clawhive runs cancel ID
  clawhive runs todo ID [--json]

  list:
  --status S        active, awaiting_approval or ended (default: all)
  --limit N         at most N, newest first, 1 to 1000 (default 20)
  --json            print the run records as JSON

  show: the run (agent, task, status, trace id, times); if it waits, the ToolCall it waits
  with and the approval to decide; its approvals; once ended, its least-privilege report:
  capabilities granted, used and unused, denials with counts.

  watch: the run's events from the start (or after event SEQ) to its end, as 'clawhive run'
  shows them, asking for its approvals in a terminal. On the store, a run of tool calls that
  waited for an approval decided since continues here.
  cancel: no further tool call of the run starts; it ends as cancelled.
  todo: the task list the run's model keeps (an agent with todo: run or conversation).

${SERVER_FLAGS_HELP}
  --agents DIR      (watch, cancel on the store) where agent manifests live (default the
                    project's capabilities/; env CLAWHIVE_AGENTS_DIR)
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such run (cancel: or it has already ended), or the store or server
  could not be read; 2 bad usage, or a token the server refuses. watch exits as 'clawhive run':
${RUN_EXIT_CODES.replace(/^ {2}Exit codes: /, "  ")}

  Example:
    clawhive runs list --status awaiting_approval --server http://127.0.0.1:7878`;

const usage = "usage: clawhive runs list | show ID | watch ID | cancel ID | todo ID";
const STATUSES: readonly RunStatus[] = ["active", "awaiting_approval", "ended"];

export async function runsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return list(rest);
  if (sub === "show") return show(rest);
  if (sub === "watch") return watch(rest);
  if (sub === "cancel") return cancel(rest);
  if (sub === "todo") return todo(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown runs command '${sub}'; ${usage}`);
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, status: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError(`runs list takes no arguments, got ${positionals.join(" ")}; ${usage}`);
  const status = flagText(values, "status");
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw new InvalidInputError(`--status ${status}: expected one of ${STATUSES.join(", ")}`, { field: "status" });
  }
  const limit = parseLimit(flagText(values, "limit"), 20);
  const query = { ...(status === undefined ? {} : { status: status as RunStatus }), limit };
  const runs = (await withClient(values, (client) => client.listRuns(query), { storeOnly: true })).map((view) => runFromView(view as RunView));
  if (values.json) console.log(jsonOut(runs));
  else if (runs.length === 0) console.error(`no ${status === undefined ? "" : `${status} `}runs`);
  else for (const line of runLines(runs)) console.log(line);
  return 0;
}

/** One line a run, columns aligned; the task last, since its length varies. */
export function runLines(runs: readonly RunSummary[]): string[] {
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
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const id = oneId("show", positionals);
  const { found, inProcess } = await withClient(values, async (client) => ({ found: await shown(client, id), inProcess: serverFlagOf(client) === "" }), { storeOnly: true });
  if (found === undefined) {
    console.error(`clawhive: ${inert(`no run ${id}; 'clawhive runs list' shows the runs${inProcess ? " in this store" : ""}`, { newlines: false })}`);
    return 1;
  }
  const { record, approvals, next } = found;
  if (values.json) console.log(jsonOut({ ...record, approvals }));
  else console.log(showLines(record, approvals, { next }).join("\n"));
  return 0;
}

async function todo(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const id = oneId("todo", positionals);
  let list: TodoView;
  try {
    list = await withClient(values, (client) => client.getRunTodo(id), { existing: true });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    console.error(`clawhive: ${inert(`no run ${id}; 'clawhive runs list' shows the runs`, { newlines: false })}`);
    return 1;
  }
  if (values.json) console.log(jsonOut(list));
  else console.log(todoLines(list.items).join("\n"));
  return 0;
}

function oneId(sub: string, positionals: readonly string[]): string {
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError(`usage: clawhive runs ${sub} ID`);
  return id;
}

interface Shown {
  record: RunSummary;
  approvals: Approval[];
  /** How the run goes on once its approval is decided. */
  next: string;
}

async function shown(client: ClawhiveClient, id: string): Promise<Shown | undefined> {
  let view: RunView;
  try {
    view = (await client.getRun(id)) as RunView;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  let approvals: Approval[] = [];
  try {
    approvals = (await client.listApprovals({ status: "all", runId: id, limit: 1000 })).map((a) => approvalFromView(a as ApprovalView));
  } catch (error) {
    // A client token reads its runs, not approvals: the run is shown without them.
    if (!(error instanceof ServerError && error.status === 403)) throw error;
  }
  const waitsOn = approvals.find((a) => a.id === view.pending_approval?.id);
  const serverFlag = serverFlagOf(client);
  return {
    record: runFromView(view, waitsOn === undefined ? undefined : { input: waitsOn.input }),
    approvals,
    next: serverFlag === "" ? continueCommand(view.id, "") : `the server continues it; follow it with '${continueCommand(view.id, serverFlag)}'`,
  };
}

async function watch(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...SERVER_FLAGS,
    agents: { type: "string" },
    after: { type: "string" },
    "wait-approval": { type: "boolean" },
    verbose: { type: "boolean" },
    json: { type: "boolean" },
  });
  const id = oneId("watch", positionals);
  const afterText = flagText(values, "after");
  if (afterText !== undefined && !/^\d{1,12}$/.test(afterText)) throw new InvalidInputError(`--after ${afterText}: expected an event number`, { field: "after" });
  try {
    // On the store, the runtime opened here drives the run once its approval is decided (as `resume`).
    return await withClient(
      values,
      async (client) => {
        const session = new ClientRunSession(client);
        await session.run(id); // an unknown run is said before any stream opens
        return follow(session, id, {
          json: values.json === true,
          waitApproval: values["wait-approval"] === true,
          verbose: values.verbose === true,
          ...(afterText === undefined ? {} : { after: Number(afterText) }),
        });
      },
      // It follows the run to its end: decided meanwhile, the run is continued here.
      { existing: true, continueDecidedRuns: true },
    );
  } catch (error) {
    if (isNotFound(error)) return noRun(id);
    throw error;
  }
}

async function cancel(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, agents: { type: "string" } });
  const id = oneId("cancel", positionals);
  try {
    const after = await withClient(values, (client) => client.cancelRun(id), { existing: true });
    if (after.status === "ended") console.log(inert(`cancelled run ${id}`, { newlines: false }));
    else console.log(inert(`asked run ${id} to stop: the runtime driving it ends it before its next tool call`, { newlines: false }));
    return 0;
  } catch (error) {
    if (isNotFound(error)) return noRun(id);
    if (error instanceof ServerError && error.code === "run_ended") {
      console.error(`clawhive: ${inert(error.message, { newlines: false })}`);
      return 1;
    }
    throw error;
  }
}

/** No such run; an id the runtime could never have made (`path.id`) is no run either. */
function isNotFound(error: unknown): boolean {
  return error instanceof ServerError && (error.status === 404 || error.field === "path.id");
}

function noRun(id: string): number {
  console.error(`clawhive: ${inert(`no run ${id}; 'clawhive runs list' shows the runs`, { newlines: false })}`);
  return 1;
}

export function showLines(record: RunSummary, approvals: readonly Approval[], options: { next?: string } = {}): string[] {
  const lines = [inert(`run ${record.id}`, { newlines: false })];
  lines.push(...field("agent", record.agent), ...field("task", record.task ?? "(none)"), ...field("status", record.status));
  lines.push(...field("trace", record.traceId));
  if (record.parentRunId !== null) lines.push(...field("parent run", record.parentRunId));
  lines.push(...field("created", new Date(record.createdAt).toISOString()));
  if (record.endedAt !== null) lines.push(...field("ended", new Date(record.endedAt).toISOString()));
  if (record.pending?.childRunId !== undefined) {
    // The approval is the sub-agent's (or its own child's): shown and decided there.
    lines.push("", inert(`waiting: sub-agent run ${record.pending.childRunId}, which waits for approval ${record.pending.approvalId}`, { newlines: false }));
    lines.push(...field("tool", record.pending.tool), ...field("step", record.pending.stepId), ...field("sub-agent", `clawhive runs show ${record.pending.childRunId}`));
  } else if (record.pending) {
    const waitsOn = approvals.find((a) => a.id === record.pending?.approvalId);
    lines.push("", inert(`waiting: approval ${record.pending.approvalId} (${waitsOn?.status ?? "not found"})`, { newlines: false }));
    lines.push(...field("tool", record.pending.tool), ...field("step", record.pending.stepId), ...field("arguments", "input" in record.pending ? jsonText(record.pending.input) : "(not shown: this token may not read approvals)"));
    if (waitsOn?.status === "pending") lines.push(...field("decide", `clawhive approvals approve ${waitsOn.id} (or deny)`));
    else lines.push(...field("continue", options.next ?? `clawhive resume ${record.id}`));
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
    ...(calls ? field("tool calls", toolCallsLine(calls, report.approvals ?? [])) : []),
    ...field("granted", list(report.granted)),
    ...field("used", list(report.used)),
    ...field("unused", report.unused?.length ? `${list(report.unused)} (candidates to narrow the agent or task)` : "none"),
  ];
  const denials = report.denials ?? [];
  if (denials.length === 0) lines.push(...field("denials", "none"));
  else lines.push(...field("denials", denials.map((d) => inert(`${d.capability} ${d.reason} ×${d.count}: ${d.example}`, { newlines: false })).join("\n")));
  const approvals = report.approvals ?? [];
  lines.push(...field("approvals", approvals.length === 0 ? "none" : approvals.map((a) => `${a.id} ${a.kind} ${a.tool} ${a.outcome}`).join("\n")));
  // Names only: their outputs may hold a secret changed beyond what redaction catches.
  const secrets = report.secretsRead ?? [];
  if (secrets.length > 0) lines.push(...field("secrets read", secrets.map((r) => inert(`${r.tool} (${r.toolCallId}): ${r.secrets.join(", ")}`, { newlines: false })).join("\n")));
  return lines;
}

/**
 * What the run's ToolCalls came to: `2 (1 ok, 1 denied, 0 failed); waited for approval 1`, the
 * denials and the waits only when there were some. A pause is not a ToolCall of its own (it is counted once it ends), and a wait
 * is counted from the run's approvals too: a run continued on another node kept them, not the count.
 */
export function toolCallsLine(calls: LeastPrivilegeReport["toolCalls"], approvals: readonly unknown[]): string {
  const denied = calls.denied ?? 0;
  const failed = calls.error - denied;
  const parts = [`${calls.ok} ok`, ...(denied > 0 ? [`${denied} denied`] : []), `${failed} failed`];
  const waited = Math.max(calls.approvalRequired, approvals.length);
  return `${calls.ok + calls.error} (${parts.join(", ")})${waited > 0 ? `; waited for approval ${waited}` : ""}`;
}
