import { InvalidInputError } from "../errors.js";
import type { ApprovalDecision, ApprovalScope, ApprovalStatus } from "../policy/approvals/index.js";
import type { Approval } from "../policy/approvals/index.js";
import { systemClock } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { currentUser } from "./user.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withClient } from "./command-client.js";
import { decidedHint, serverFlagOf } from "./hints.js";
import { field, flagText, inert, jsonOut, jsonText, parseLimit } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { approvalFromView, type ApprovalView } from "./views.js";

export const approvalsHelp = `clawhive approvals — see and decide what runs wait for

  clawhive approvals list [--status S] [--run ID] [--limit N] [--json]
  clawhive approvals approve ID [--scope once|run] [--reason TEXT] [--by NAME] [--json]
  clawhive approvals deny ID [--reason TEXT] [--by NAME] [--json]

  list:
  --status S        pending (default), approved, denied, expired, used, withdrawn or all
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
  --by NAME         who decides (default your user name; through a server, the server
                    records the deciding token instead)
  --json            print the decided approval as JSON

  A decided run continues: through a server, the server continues it ('clawhive runs watch RUN
  --server URL' follows it); on the store, 'clawhive resume RUN' continues any run alike — a
  single call ('clawhive call'), a plan of calls or a model's run ('clawhive run').

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 the approval does not exist, was already decided, has expired or was withdrawn;
  2 bad usage, or a token the server refuses (deciding needs an approver or admin token).

  Example:
    clawhive approvals approve apr_0b9e… --scope once --reason "checked the path"`;

const usage = "usage: clawhive approvals list | approve ID | deny ID";
const STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired", "used", "withdrawn"];
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
    ...SERVER_FLAGS,
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
  const views = await withClient(values, (client) => client.listApprovals({ status: statusText as ApprovalStatus | "all", ...(runId === undefined ? {} : { runId }), limit }), { storeOnly: true });
  const found = views.map((view) => ({ approval: approvalFromView(view as ApprovalView), task: view.task }));
  if (values.json) {
    console.log(jsonOut(found.map((f) => f.approval)));
    return 0;
  }
  if (found.length === 0) {
    console.error(`no ${status ?? ""}${status ? " " : ""}approvals${runId === undefined ? "" : ` of run ${inert(runId)}`}`);
    return 0;
  }
  const now = systemClock.now();
  console.log(found.map(({ approval, task }) => approvalBlock(approval, { now, task }).join("\n")).join("\n\n"));
  return 0;
}

async function decide(decision: ApprovalDecision, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...SERVER_FLAGS,
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
  const onServer = (await resolveServer(values)) !== undefined;
  if (onServer && values.by !== undefined) {
    throw new InvalidInputError("--by does not combine with --server: the server records the token that decides; leave --by out", { field: "by" });
  }
  const by = onServer ? undefined : (flagText(values, "by") ?? currentUser());
  const input = { decision, ...(scope === undefined ? {} : { scope }), ...(reason === undefined ? {} : { reason }) };
  let decided: { approval: Approval; next: string };
  try {
    decided = await withClient(
      values,
      async (client) => {
        const view = (await client.decideApproval(id, input)) as ApprovalView;
        return { approval: approvalFromView(view), next: decidedHint(view.run_id, decision, serverFlagOf(client)) };
      },
      { storeOnly: true, ...(by === undefined ? {} : { actor: by }) },
    );
  } catch (error) {
    // Not found, already decided, expired: the command was well formed, the answer is no.
    if (error instanceof ServerError && (error.status === 404 || error.status === 409 || error.field === "path.id")) {
      console.error(`clawhive: ${inert(error.field === "path.id" ? `approval ${id}: not found` : error.message)}`);
      return 1;
    }
    throw error;
  }
  const { approval: a, next } = decided;
  if (values.json) {
    console.log(jsonOut(a));
    return 0;
  }
  const verb = decision === "approve" ? `approved (${a.scope ?? "once"})` : "denied";
  const why = a.decisionReason === null ? "" : `: ${a.decisionReason}`;
  console.log(inert(`${verb} ${a.id}: ${a.kind} ${a.tool} of run ${a.runId}, by ${a.decidedBy ?? by ?? "?"}${why}`, { newlines: false }));
  console.log(inert(next, { newlines: false }));
  return 0;
}

export function approvalBlock(a: Approval, options: { now: number; task?: string | null }): string[] {
  const lines = [inert(`${a.id}  ${a.kind}  ${a.status}`, { newlines: false })];
  lines.push(...field("agent", a.agent), ...field("run", a.runId), ...field("tool", `${a.tool} (${a.risk})`));
  lines.push(...field("arguments", jsonText(a.input)));
  if (a.kind === "effect") lines.push(...field("capability", a.capability ?? "?"), ...field("effect", jsonText(a.effect)));
  lines.push(...field("reason", a.reason));
  // Shown before the decision is made: the call may be what a page or a message asked for.
  lines.push(...field("untrusted", a.untrustedSources.length === 0 ? "nothing untrusted read before this" : `read before this: ${a.untrustedSources.join("; ")}`));
  // A plugin or MCP server that read a secret may have handed it out changed: these arguments may carry it.
  const secrets = a.secretsRead ?? [];
  if (secrets.length > 0) lines.push(...field("secrets", `read before this by ${secrets.map((r) => `${r.tool} (${r.toolCallId}): ${r.secrets.join(", ")}`).join("; ")}; check the arguments carry none of them, in any form`));
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
