import { ConflictError, InvalidInputError } from "../errors.js";
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
import type { ApprovalPatternView, ApprovalView as ApprovalWireView } from "../client/client.js";

export const approvalsHelp = `clawhive approvals — see and decide what runs wait for

  clawhive approvals list [--status S] [--run ID] [--limit N] [--json]
  clawhive approvals approve ID [--scope once|run] [--reason TEXT] [--by NAME] [--json]
  clawhive approvals approve ID --pattern N --for 2h [--applies-to run|agent] [--agents DIR] [--reason TEXT] [--json]
  clawhive approvals deny ID [--reason TEXT] [--by NAME] [--json]
  clawhive approvals patterns [--agent NAME] [--status active|expired|revoked|all] [--json]
  clawhive approvals revoke PATTERN_ID [--json]

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
  --pattern N       approve the approval's pattern choice N (listed under 'patterns', narrowest
                    first): this call runs, and later calls whose canonical arguments it covers
                    run without asking, until --for runs out (30m, 2h, 1d, at most 30d; or today: until midnight of the server's time zone)
  --applies-to S    run (default): this run only; agent: every run of the approval's agent
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

const usage = "usage: clawhive approvals list | approve ID | deny ID | patterns | revoke PATTERN_ID";
const STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired", "used", "withdrawn"];
const DEFAULT_LIMIT = 50;

export async function approvalsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return list(rest);
  if (sub === "approve") return decide("approve", rest);
  if (sub === "deny") return decide("deny", rest);
  if (sub === "patterns") return listPatterns(rest);
  if (sub === "revoke") return revoke(rest);
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
  const found = views.map((view) => ({ approval: approvalFromView(view as ApprovalView), task: view.task, choices: (view as ApprovalWireView).pattern_choices ?? [] }));
  if (values.json) {
    console.log(jsonOut(found.map((f) => f.approval)));
    return 0;
  }
  if (found.length === 0) {
    console.error(`no ${status ?? ""}${status ? " " : ""}approvals${runId === undefined ? "" : ` of run ${inert(runId)}`}`);
    return 0;
  }
  const now = systemClock.now();
  // Numbered as `approve ID --pattern N` takes them, narrowest first.
  const choiceLines = (choices: ReadonlyArray<{ summary: string }>) =>
    choices.length === 0 ? [] : field("patterns", choices.map((c, i) => `${i + 1}. ${c.summary}`).join("; "));
  console.log(found.map(({ approval, task, choices }) => [...approvalBlock(approval, { now, task }), ...choiceLines(choices)].join("\n")).join("\n\n"));
  return 0;
}

async function decide(decision: ApprovalDecision, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...SERVER_FLAGS,
    // --agents: a pattern is checked against its agent's grant, read from the agents folder.
    ...(decision === "approve" ? { scope: { type: "string" }, pattern: { type: "string" }, for: { type: "string" }, "applies-to": { type: "string" }, agents: { type: "string" } } : {}),
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
  if (flagText(values, "pattern") !== undefined) {
    if (scopeText !== undefined) throw new InvalidInputError("--scope does not combine with --pattern: a pattern is its own scope", { field: "scope" });
    return approvePattern(id, values, reason);
  }
  for (const flag of ["for", "applies-to"]) {
    if (flagText(values, flag) !== undefined) throw new InvalidInputError(`--${flag} needs --pattern N`, { field: flag });
  }
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

/** `approve ID --pattern N --for 2h`: the approval's choice N, through the API (a server, or this store's runtime, which knows the agent's grant). */
async function approvePattern(id: string, values: Readonly<Record<string, unknown>>, reason: string | undefined): Promise<number> {
  const n = Number(flagText(values, "pattern"));
  if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`--pattern ${flagText(values, "pattern") ?? ""}: expected the number of a pattern choice (1, 2, …)`, { field: "pattern" });
  const expires = flagText(values, "for");
  if (expires === undefined) throw new InvalidInputError("--pattern needs --for DURATION (30m, 2h, 1d or today): a pattern approval always expires", { field: "for" });
  const appliesTo = flagText(values, "applies-to") ?? "run";
  if (appliesTo !== "run" && appliesTo !== "agent") throw new InvalidInputError(`--applies-to ${appliesTo}: expected run or agent`, { field: "applies-to" });
  if (values.by !== undefined) throw new InvalidInputError("--by does not combine with --pattern: the decision is recorded under the runtime's user or the server's token", { field: "by" });
  let done: { approval: ApprovalWireView; pattern: ApprovalPatternView; expiry?: string; next: string };
  try {
    done = await withClient(values, async (client) => {
      const view = await client.getApproval(id);
      // A decided approval offers no choices: say why, as the 409 of deciding it again would.
      if (view.status !== "pending") throw new ConflictError("approval_not_pending", `approval ${id}: already ${view.status}; only a pending approval can be approved by pattern`);
      const choice = view.pattern_choices[n - 1];
      if (choice === undefined) {
        throw new InvalidInputError(`--pattern ${n}: approval ${id} offers ${view.pattern_choices.length === 0 ? "no pattern (an Unsafe effect is approved once unless its agent's approvals.unsafe_patterns lists the tool)" : `patterns 1 to ${view.pattern_choices.length}`}`, { field: "pattern" });
      }
      const decided = await client.approveByPattern(id, { decision: "approve", pattern: choice.pattern, expires_in: expires, applies_to: appliesTo, ...(reason === undefined ? {} : { reason }) });
      return { ...decided, next: decidedHint(decided.approval.run_id, "approve", serverFlagOf(client)) };
    }, { existing: true });
  } catch (error) {
    if (error instanceof ConflictError || (error instanceof ServerError && (error.status === 404 || error.status === 409 || error.field === "path.id"))) {
      console.error(`clawhive: ${inert(error instanceof ServerError && error.field === "path.id" ? `approval ${id}: not found` : error.message)}`);
      return 1;
    }
    throw error;
  }
  if (values.json) {
    console.log(jsonOut({ approval: done.approval, pattern: done.pattern, ...(done.expiry === undefined ? {} : { expiry: done.expiry }) }));
    return 0;
  }
  const p = done.pattern;
  console.log(inert(`approved ${done.approval.id} by pattern ${p.id}: ${p.summary}, ${p.run_id === null ? `every run of ${p.agent}` : `run ${p.run_id}`}, ${done.expiry ?? `until ${p.expires_at}`}`, { newlines: false }));
  console.log(inert(done.next, { newlines: false }));
  return 0;
}

const PATTERN_STATUSES = ["active", "expired", "revoked", "all"] as const;

async function listPatterns(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, agent: { type: "string" }, status: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError(`approvals patterns takes no arguments, got ${positionals.join(" ")}; ${usage}`);
  const status = flagText(values, "status") ?? "active";
  if (!(PATTERN_STATUSES as readonly string[]).includes(status)) throw new InvalidInputError(`--status ${status}: expected one of ${PATTERN_STATUSES.join(", ")}`, { field: "status" });
  const agent = flagText(values, "agent");
  const limit = parseLimit(flagText(values, "limit"), DEFAULT_LIMIT);
  const found = await withClient(values, (client) => client.listApprovalPatterns({ status: status as (typeof PATTERN_STATUSES)[number], limit, ...(agent === undefined ? {} : { agent }) }), { storeOnly: true });
  if (values.json) {
    console.log(jsonOut(found));
    return 0;
  }
  if (found.length === 0) {
    console.error(`no ${status === "all" ? "" : `${status} `}approval patterns${agent === undefined ? "" : ` of agent ${inert(agent)}`}`);
    return 0;
  }
  console.log(found.map(patternBlock).join("\n\n"));
  return 0;
}

function patternBlock(p: ApprovalPatternView): string {
  const lines = [inert(`${p.id}  ${p.status}  ${p.summary}`, { newlines: false })];
  lines.push(...field("agent", p.agent), ...field("applies to", p.run_id === null ? "every run of the agent" : `run ${p.run_id}`));
  lines.push(...field("expires", p.expires_at), ...field("created", `${p.created_at} by ${p.created_by}`), ...field("matched", String(p.matched)));
  if (p.revoked_at !== null) lines.push(...field("revoked", `${p.revoked_at} by ${p.revoked_by ?? "?"}`));
  return lines.join("\n");
}

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive approvals revoke PATTERN_ID");
  let revoked: ApprovalPatternView;
  try {
    revoked = await withClient(values, (client) => client.revokeApprovalPattern(id), { storeOnly: true });
  } catch (error) {
    if (error instanceof ServerError && (error.status === 404 || error.status === 409 || error.field === "path.id")) {
      console.error(`clawhive: ${inert(error.field === "path.id" ? `approval pattern ${id}: not found` : error.message)}`);
      return 1;
    }
    throw error;
  }
  if (values.json) console.log(jsonOut(revoked));
  else console.log(inert(`revoked ${revoked.id}: ${revoked.summary}; no later call matches it`, { newlines: false }));
  return 0;
}
