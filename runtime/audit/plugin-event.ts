import { randomBytes } from "node:crypto";
import { EMPTY, invalid, requireText } from "./body.js";
import type { BodyContext } from "./body.js";
import { storedObject, type JsonValue } from "./json.js";
import type { RecordBody } from "./schema.js";
import type { PluginEventInput, PluginEventSummary } from "./types.js";

// A change to what code the node may run is one `plugin` record: an install, upgrade or
// removal, allowed or refused, and a compiled build refused at load. Plugin changes belong to no
// run: run_id is empty and trace_id is the record's own; who asked is in the arguments.

/** The proxy name plugin records carry; host_function is the action. */
export const PLUGIN_EVENT_PROXY = "plugin";

const ACTIONS: ReadonlySet<string> = new Set(["install", "upgrade", "remove", "load", "trust", "revoke"]);
const SHA256 = /^[0-9a-f]{64}$/;

export function pluginEventBody(input: PluginEventInput, context: BodyContext): RecordBody {
  if (!ACTIONS.has(input.action)) throw invalid("action", "must be install, upgrade, remove, load, trust or revoke");
  if (input.decision !== "allow" && input.decision !== "deny") throw invalid("decision", "must be allow or deny");
  requireText("name", input.name);
  requireText("by", input.by);
  requireText("reason", input.reason);
  if (input.sha256 != null && !SHA256.test(input.sha256)) throw invalid("sha256", "must be 64 lowercase hex digits");
  const { redactor } = context;
  const secrets = redactor.secrets();
  const optional = (value: string | null | undefined): string | null => (value == null ? null : value);
  const args: JsonValue = {
    action: input.action,
    name: input.name,
    version: optional(input.version),
    sha256: optional(input.sha256),
    publisher: optional(input.publisher),
    origin: optional(input.origin),
    by: input.by,
    decision: input.decision,
    reason: input.reason,
  };
  const stored = redactor.args(args, { kind: "plugin", proxy: PLUGIN_EVENT_PROXY, function: input.action, tool: null }, secrets);
  const denied = input.decision === "deny";
  return {
    ...EMPTY,
    kind: "plugin",
    status: denied ? "denied" : "ok",
    decision: input.decision,
    trace_id: `plugin-${randomBytes(8).toString("hex")}`,
    run_id: "",
    agent: "",
    plugin: redactor.name(input.name, secrets),
    proxy: PLUGIN_EVENT_PROXY,
    host_function: input.action,
    args: stored.text,
    args_bytes: stored.bytes,
    args_truncated: stored.truncated ? 1 : 0,
    denial_capability: denied ? `plugin.${input.action}` : null,
    denial_reason: denied ? redactor.name(input.reason, secrets) : null,
    denial_message: denied ? redactor.text(input.message ?? input.reason, secrets) : null,
    start_at: context.at,
    end_at: context.at,
  };
}

/** A stored plugin record's arguments, read back; null when they are not what this module writes. */
export function parsePluginEvent(args: string | null): PluginEventSummary | null {
  const o = storedObject(args);
  if (o === null) return null;
  const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
  return {
    action: str(o.action) ?? "",
    name: str(o.name) ?? "",
    version: str(o.version),
    sha256: str(o.sha256),
    publisher: str(o.publisher),
    origin: str(o.origin),
    by: str(o.by) ?? "",
    reason: str(o.reason) ?? "",
  };
}
