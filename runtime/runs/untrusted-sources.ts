/**
 * The untrusted content a run's trace has read — web pages, mail, calendars — as the approver
 * is shown it: `http GET https://…`, `gmail message <id>`, `gmail label INBOX`, `calendar
 * <id>`. Read from the audit log (every host call that succeeded is there, under the trace:
 * the run, its parent, its sub-agents, whose answers it read), so a run resumed on another node
 * shows the same. Files read from mounts are not listed: mounts are the operator's own folders.
 */
import type { AuditLog, AuditRecord } from "../audit/index.js";
import type { SecretRead } from "./report.js";

/** Audit pages scanned at most (1000 records each): a long trace shows its first sources. */
const MAX_PAGES = 5;
/** Distinct sources collected at most. */
const MAX_SOURCES = 50;

export async function untrustedSources(audit: AuditLog, traceId: string): Promise<string[]> {
  return (await readsBefore(audit, traceId)).untrustedSources;
}

/**
 * What an approver is shown of what the trace read before it asked: its untrusted sources, and
 * the ToolCalls whose config reads gave their plugin a stored secret (by name: the audit log
 * keeps the names a config read served, never the values). `also` adds the run's own reads the
 * audit log does not name (an MCP server's environment), merged by ToolCall.
 */
export async function readsBefore(audit: AuditLog, traceId: string, also: readonly SecretRead[] = []): Promise<{ untrustedSources: string[]; secretsRead: SecretRead[] }> {
  // Host-call outcomes are queued, not awaited: the ones of the call asking now count too.
  await audit.flush();
  const found = new Set<string>();
  const secrets = new Map<string, SecretRead>();
  const read = (entry: SecretRead) => {
    const seen = secrets.get(entry.toolCallId) ?? { toolCallId: entry.toolCallId, tool: entry.tool, secrets: [] };
    for (const name of entry.secrets) if (!seen.secrets.includes(name)) seen.secrets.push(name);
    secrets.set(entry.toolCallId, seen);
  };
  // An outcome does not repeat its intent's arguments: a source is its intent's, once the
  // outcome says the call succeeded (a refused or failed call read nothing).
  const intents = new Map<number, string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await audit.query({ traceId, kind: "host_call", status: ["intent", "ok"], limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const record of result.records) {
      if (record.status === "intent" && record.hostCall?.proxy === "config" && record.toolCall !== null) {
        const names = parseArgs(record.args).secrets;
        if (Array.isArray(names)) read({ toolCallId: record.toolCall.id, tool: record.tool ?? record.toolCall.name, secrets: names.filter((n): n is string => typeof n === "string") });
      }
      if (record.status === "intent") {
        const source = sourceOf(record);
        if (source !== undefined) intents.set(record.seq, source);
      } else if (record.intentSeq !== null && intents.has(record.intentSeq) && found.size < MAX_SOURCES) {
        found.add(intents.get(record.intentSeq)!);
      }
    }
    cursor = result.nextCursor ?? undefined;
    if (!cursor) break;
  }
  for (const entry of also) read(entry);
  return { untrustedSources: [...found], secretsRead: [...secrets.values()] };
}

/** What one successful host call read from outside, or `undefined` when it read nothing untrusted. */
export function sourceOf(record: Pick<AuditRecord, "hostCall" | "args">): string | undefined {
  const call = record.hostCall;
  if (!call) return undefined;
  const args = parseArgs(record.args);
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : "?");
  if (call.proxy === "http" && call.function === "fetch") return `http ${text("method")} ${text("url")}`;
  if (call.proxy === "gmail") {
    if (call.function === "getMessage") return `gmail message ${text("id")}`;
    if (call.function === "getThread") return `gmail thread ${text("id")}`;
    if (call.function === "listMessages") return `gmail label ${text("label")}`;
  }
  if (call.proxy === "calendar" && call.function === "listEvents") return `calendar ${text("calendar")}`;
  return undefined;
}

function parseArgs(args: string | null): Record<string, unknown> {
  if (args === null) return {};
  try {
    const value = JSON.parse(args) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // Truncated in the audit (over its size cap): what it read is still named, partly.
    return {};
  }
}
