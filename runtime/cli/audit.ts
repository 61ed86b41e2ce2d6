import type { AuditKind, AuditPage, AuditQuery, AuditRecord, AuditStatus, ChainHead, ModelCallSummary, PatternEventSummary, PluginEventSummary, VerifyReport } from "../audit/index.js";
import type { ClawhiveClient } from "../client/client.js";
import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withClient } from "./command-client.js";
import { jsonOut } from "./render.js";
import { auditRecordFromView, camelKeys } from "./views.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const auditHelp = `clawhive audit — read and check the audit log

  clawhive audit tail [filters]     the newest records, one a line, oldest first (as tail)
  clawhive audit verify             walk the hash chain: altered, unlinked or missing records

  tail filters:
  --run ID  --trace ID  --agent NAME  --tool NAME
  --kind K          tool_call, host_call, model_call (a prompt sent to the model)
                    or plugin (an install, upgrade or removal, allowed or refused)
  --status S        intent, ok, error or denied (several: --status denied,error)
  --since T         T is an ISO date or time (2025-01-31, 2025-01-31T09:00:00Z) or an age
  --until T         (30s, 15m, 2h, 7d ago); --since is inclusive, --until exclusive
  --limit N         records per page, 1 to 1000 (default 20)
  --cursor C        the page of older records: the cursor tail printed to stderr
  --json            print the records (tail) or the report (verify) as JSON

  verify:
  --expect-head SEQ:HASH  a head recorded earlier: also detects records cut off the end

  Through a server: tail with a client token needs --run (one of its runs); verify needs an
  admin token. A --limit above 500 (the API's page) is read as several pages.

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok (verify: the chain is intact; intents in flight alone do not fail it);
  1 verify found tampering, or the server could not be reached; 2 bad usage, or a token the
  server refuses.

  Example:
    clawhive audit tail --status denied,error --since 1h`;

const usage = "usage: clawhive audit tail [filters] | clawhive audit verify";
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
const STATUSES: readonly AuditStatus[] = ["intent", "ok", "error", "denied"];
const KINDS: readonly AuditKind[] = ["tool_call", "host_call", "model_call", "plugin", "approval_pattern"];

export async function auditCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "tail") return tail(rest);
  if (sub === "verify") return verify(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown audit command '${sub}'; ${usage}`);
}

function noPositionals(sub: string, positionals: readonly string[]): void {
  if (positionals.length > 0) throw new InvalidInputError(`audit ${sub} takes no arguments, got ${positionals.join(" ")}; ${usage}`);
}

async function tail(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...SERVER_FLAGS,
    run: { type: "string" },
    trace: { type: "string" },
    agent: { type: "string" },
    tool: { type: "string" },
    kind: { type: "string" },
    status: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    limit: { type: "string" },
    cursor: { type: "string" },
    json: { type: "boolean" },
  });
  noPositionals("tail", positionals);
  // Every flag is checked before the store is opened: a typo is a usage error, not a query.
  const query = tailQuery(values, Date.now());
  const page = await withClient(values, (client) => tailPage(client, query), { storeOnly: true }).catch(asFlagError);
  return printPage(page, values.json === true);
}

function printPage(page: AuditPage, json: boolean): number {
  if (json) console.log(jsonOut(page.records));
  else if (page.records.length === 0) console.error("no audit records match");
  // The newest page, read down in time order as tail shows a file; --cursor pages to older ones.
  else for (const line of tailLines([...page.records].reverse())) console.log(line);
  if (page.nextCursor !== null) console.error(`older records: --cursor ${page.nextCursor}`);
  return 0;
}

/** The API's most records a page (`GET /v1/audit`); a longer --limit is read as several pages. */
const API_PAGE = 500;

/** The same query as `GET /v1/audit` parameters; the records come back as the store keeps them. */
async function tailPage(client: ClawhiveClient, query: AuditQuery): Promise<AuditPage> {
  const records: AuditRecord[] = [];
  const limit = query.limit ?? DEFAULT_LIMIT;
  let cursor = query.cursor;
  do {
    const page = await client.auditPage({
      order: query.order,
      limit: Math.min(API_PAGE, limit - records.length),
      run_id: query.runId,
      trace_id: query.traceId,
      agent: query.agent,
      tool: query.tool,
      kind: query.kind,
      status: query.status === undefined ? undefined : typeof query.status === "string" ? query.status : query.status.join(","),
      since: query.since,
      until: query.until,
      cursor,
    });
    records.push(...page.records.map(auditRecordFromView));
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && records.length < limit);
  return { records, nextCursor: cursor ?? null };
}

/** The API names its query fields (`query.cursor: …`); the user typed a flag (`--cursor: …`). */
function asFlagError(error: unknown): never {
  const flag = error instanceof ServerError && error.status === 400 ? FLAG_OF[error.field ?? ""] : undefined;
  if (flag === undefined) throw error;
  throw new InvalidInputError((error as ServerError).message.replace(/^query\.\w+/, `--${flag}`), { field: flag, cause: error });
}

const FLAG_OF: Readonly<Record<string, string>> = {
  "query.run_id": "run",
  "query.trace_id": "trace",
  "query.agent": "agent",
  "query.tool": "tool",
  "query.cursor": "cursor",
  "query.expect_head": "expect-head",
};

function text(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new InvalidInputError(`--${name}: expected a value`, { field: name });
  return value;
}

/** The flags of `audit tail` as an `AuditQuery`, each checked and named in its error. */
export function tailQuery(values: Readonly<Record<string, unknown>>, now: number): AuditQuery {
  const limitText = text(values, "limit");
  const limit = limitText === undefined ? DEFAULT_LIMIT : /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new InvalidInputError(`--limit ${limitText}: expected a whole number from 1 to ${MAX_LIMIT}`, { field: "limit" });
  const kind = text(values, "kind");
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) throw new InvalidInputError(`--kind ${kind}: expected one of ${KINDS.join(", ")}`, { field: "kind" });
  const statusText = text(values, "status");
  const statuses = statusText?.split(",").map((s) => s.trim());
  const badStatus = statuses?.find((s) => !(STATUSES as readonly string[]).includes(s));
  if (badStatus !== undefined) throw new InvalidInputError(`--status ${statusText}: ${JSON.stringify(badStatus)} is not one of ${STATUSES.join(", ")}`, { field: "status" });
  const sinceText = text(values, "since");
  const untilText = text(values, "until");
  const since = sinceText === undefined ? undefined : parseTime(sinceText, "since", now);
  const until = untilText === undefined ? undefined : parseTime(untilText, "until", now);
  if (since !== undefined && until !== undefined && since >= until) throw new InvalidInputError(`--since ${sinceText} is not before --until ${untilText}`, { field: "since" });
  return {
    order: "desc",
    limit,
    runId: text(values, "run"),
    traceId: text(values, "trace"),
    agent: text(values, "agent"),
    tool: text(values, "tool"),
    kind: kind as AuditKind | undefined,
    status: statuses as AuditStatus[] | undefined,
    since,
    until,
    cursor: text(values, "cursor"),
  };
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const AGE = /^(\d{1,9})(s|m|h|d)$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * An ISO 8601 date or date-time (no offset means local time, as `Date` reads it), or an age
 * such as `15m`. `Date.parse` alone accepts `2025-02-30` (as March 2) and many non-ISO forms,
 * so the shape and the calendar day are checked first.
 */
export function parseTime(value: string, flag: string, now: number): number {
  const age = AGE.exec(value);
  if (age) return now - Number(age[1]) * UNIT_MS[age[2]!]!;
  const match = ISO.exec(value);
  const ms = match ? Date.parse(value.replace(" ", "T")) : NaN;
  if (match && Number.isFinite(ms)) {
    const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const day = new Date(Date.UTC(y, m - 1, d));
    if (day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d) return ms;
  }
  throw new InvalidInputError(`--${flag} ${value}: expected an ISO date or time (2025-01-31, 2025-01-31T09:00:00Z) or an age (30s, 15m, 2h, 7d)`, { field: flag });
}

/** One line a record, columns aligned over the page. */
export function tailLines(records: readonly AuditRecord[]): string[] {
  const rows = records.map((r) => [
    `#${r.seq}`,
    new Date(r.startAt).toISOString(),
    r.status,
    r.kind,
    r.agent || "-",
    r.tool ?? "-",
    r.hostCall ? `${r.hostCall.proxy}.${r.hostCall.function}` : "-",
    r.decision,
    detail(r),
  ]);
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join("  ").trimEnd());
}

function detail(r: AuditRecord): string {
  const parts: string[] = [];
  if (r.denial) parts.push(`denied ${r.denial.capability}: ${r.denial.reason}: ${r.denial.message}`);
  if (r.error) parts.push(`error ${r.error.code}: ${r.error.message}`);
  if (r.modelCall) parts.push(modelCallDetail(r.modelCall));
  else if (r.pluginEvent) parts.push(pluginEventDetail(r.pluginEvent));
  else if (r.patternEvent) parts.push(patternEventDetail(r.patternEvent));
  else if (r.status === "ok" || r.status === "error") parts.push(`(intent #${r.intentSeq ?? "?"})`);
  // Newlines in a message would break the one-record-a-line contract of tail.
  return parts.join(" ").replace(/\s*[\r\n]+\s*/g, " ");
}

/** `files@1.2.0 sha256 0123456789ab publisher acme by token:tok_…` */
function pluginEventDetail(event: PluginEventSummary): string {
  const version = event.version === null ? "" : `@${event.version}`;
  const hash = event.sha256 === null ? "" : ` sha256 ${event.sha256.slice(0, 12)}`;
  const publisher = event.publisher === null ? "" : ` publisher ${event.publisher}`;
  return `${event.name}${version}${hash}${publisher} by ${event.by}`;
}

/** `apt_… argv "git status" every run until 2026-12-07T19:00:00.000Z by cli:alice` */
function patternEventDetail(event: PatternEventSummary): string {
  const globs = Object.entries(event.arguments).map(([field, glob]) => `${field} ${JSON.stringify(glob)}`).join(", ");
  const scope = event.appliesTo === "agent" ? "every run" : `run ${event.runId ?? "?"}`;
  return `${event.id} ${globs} ${scope} until ${event.expiresAt} by ${event.by}`;
}

/** What a model call was, never what it said: `claude-x in 1200 out 85 tool_use attempts 2 (3 msgs, 4 tools)`. */
function modelCallDetail(call: ModelCallSummary): string {
  const usage = call.inputTokens === null ? "" : ` in ${call.inputTokens} out ${call.outputTokens ?? "?"}`;
  const stop = call.stopReason === null ? "" : ` ${call.stopReason}`;
  return `${call.model}${usage}${stop} attempts ${call.attempts} (${call.messages} msgs, ${call.tools.length} tools${call.baseUrl === null ? "" : `, ${call.baseUrl}`})`;
}

async function verify(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" }, "expect-head": { type: "string" } });
  noPositionals("verify", positionals);
  const headText = text(values, "expect-head");
  const expectedHead = headText === undefined ? undefined : parseHead(headText);
  const head = expectedHead === undefined ? undefined : `${expectedHead.seq}:${expectedHead.hash}`;
  const report = await withClient(values, (client) => client.verifyAudit(head === undefined ? {} : { expectHead: head }), { storeOnly: true }).catch(asFlagError);
  return printReport(camelKeys<VerifyReport>(report), values.json === true);
}

function printReport(report: VerifyReport, json: boolean): number {
  if (json) console.log(jsonOut(report));
  else for (const line of verifyLines(report)) console.log(line);
  return report.ok ? 0 : 1;
}

function parseHead(value: string): ChainHead {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(value);
  if (!match) throw new InvalidInputError(`--expect-head ${value}: expected SEQ:HASH, as verify printed it (e.g. 42:3f…, 64 hex digits)`, { field: "expect-head" });
  return { seq: Number(match[1]), hash: match[2]! };
}

export function verifyLines(report: VerifyReport): string[] {
  const lines = report.issues.map((i) => `seq ${i.seq}: ${i.kind}: ${i.detail}`);
  for (const f of report.inFlight) {
    const what = [f.tool, f.hostCall ? `${f.hostCall.proxy}.${f.hostCall.function}` : null].filter((x) => x !== null).join(" ") || "-";
    lines.push(`in flight: seq ${f.seq}: run ${f.runId}, ${what}, since ${new Date(f.startAt).toISOString()} (an intent with no outcome: the effect may or may not have happened)`);
  }
  const head = report.head === null ? "no head" : `head ${report.head.seq}:${report.head.hash}`;
  if (report.ok) lines.push(`ok: ${report.records} records, ${head}`);
  else lines.push(`FAILED: ${report.issues.length} issue${report.issues.length === 1 ? "" : "s"} in ${report.records} records; the log was altered outside the runtime`);
  return lines;
}
