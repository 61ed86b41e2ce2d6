/**
 * Which capability a host call needs, and the request the catalogue's matchers decide on.
 * A host function not listed here does not exist for the policy: it is denied.
 */
import { createHash } from "node:crypto";
import type { FsOp } from "../../host-proxies/fs/index.js";
import { canonicalizeHttpRequest, parseHttpRequestRecord } from "../../host-proxies/http/index.js";
import { canonicalScope } from "../../host-proxies/memory/scope.js";
import { HostProxyError, type Denial, type HostCall } from "../../host-proxies/types.js";
import type { CapabilityName } from "./catalogue/index.js";

export interface CapabilityRequest {
  capability: CapabilityName;
  /** The request in the shape the capability's matcher takes (`RequestOf<capability>`). */
  request: unknown;
  /** What is recorded and what an approval binds to: the call's arguments, canonical. */
  canonical: Record<string, unknown>;
}

const FS_OPS: Record<string, FsOp> = {
  read: "read",
  listDir: "list",
  stat: "stat",
  write: "write",
  remove: "remove",
  mkdir: "mkdir",
  // Bulk work is decided on its start like a listing or a read; the proxy then applies the
  // same canonicaliser, deny list (every layer's lifts) and caps to each entry inside.
  walk: "list",
  search: "read",
};

/** What a request depends on besides the call itself, read by the caller just before it. */
export interface HostCallFacts {
  /** Active schedules the calling agent's runs created (for `schedule.create`). */
  liveSchedules?: number;
  /** The capabilities the calling tool declared (decides which fs capability `mounts` asks for). */
  toolCapabilities?: readonly string[];
}

export function hostCallRequest(call: HostCall, facts: HostCallFacts = {}): CapabilityRequest | Denial {
  if (call.iface === "fs") {
    // Listing the instance's own mounts is what resolving a relative path needs, for a tool that
    // writes as much as for one that reads: it is asked under whichever the tool declared.
    if (call.fn === "mounts") {
      const writeOnly = facts.toolCapabilities !== undefined && !facts.toolCapabilities.includes("fs.read") && facts.toolCapabilities.includes("fs.write");
      return { capability: writeOnly ? "fs.write" : "fs.read", request: null, canonical: { fn: "mounts" } };
    }
    const op = Object.hasOwn(FS_OPS, call.fn) ? FS_OPS[call.fn] : undefined;
    const path = call.args[0];
    if (!op) return unknownFunction(call);
    if (typeof path !== "string") return { capability: `fs.${op === "read" || op === "list" || op === "stat" ? "read" : "write"}`, reason: "invalid-input", message: `fs.${call.fn}: expected a path string` };
    const capability: CapabilityName = op === "read" || op === "list" || op === "stat" ? "fs.read" : "fs.write";
    const canonical: Record<string, unknown> = { fn: call.fn, path };
    if (op === "write" && call.args[1] instanceof Uint8Array) canonical.bytes = call.args[1].byteLength;
    // What the record names of a walk or search: its subtree (the path), pattern, globs and caps.
    if ((call.fn === "walk" || call.fn === "search") && call.args[1] !== null && typeof call.args[1] === "object") canonical.options = call.args[1];
    return { capability, request: { op, path }, canonical };
  }
  if (call.iface === "log" && call.fn === "write") return { capability: "log", request: {}, canonical: { fn: "write", level: call.args[0] } };
  if (call.iface === "shell" && call.fn === "exec") return shellRequest(call.args[0]);
  if (call.iface === "http" && call.fn === "fetch") return httpRequest(call.args[0]);
  if (call.iface === "gmail") return gmailRequest(call);
  if (call.iface === "calendar") return calendarRequest(call);
  if (call.iface === "kv" && KV_FUNCTIONS.has(call.fn)) {
    // The namespace is the grant's, fixed per instance: the call names keys, never namespaces.
    return { capability: "kv", request: null, canonical: { fn: call.fn, key: call.args[0] ?? null } };
  }
  if (call.iface === "schedule") return scheduleRequest(call, facts);
  if (call.iface === "memory") return memoryRequest(call);
  if (call.iface === "sockets") return socketsRefusal(call);
  return unknownFunction(call);
}

/** Longest name of a sockets function, or of a looked-up host, kept in a refusal's message. */
const MAX_SOCKETS_TEXT = 253;

/**
 * `wasi:sockets`: served to a guest that imports it, never granted. Every call is refused here
 * (one denial on record) and the guest gets the WIT error a host without network gives: raw
 * sockets would bypass the http proxy's allow-list and SSRF defences.
 */
function socketsRefusal(call: HostCall): Denial {
  const fn = call.fn.slice(0, MAX_SOCKETS_TEXT);
  const name = typeof call.args[0] === "string" ? ` of ${JSON.stringify(call.args[0].slice(0, MAX_SOCKETS_TEXT))}` : "";
  return {
    capability: "wasi:sockets",
    reason: "sockets-not-served",
    message: `wasi:sockets/${fn}${name}: this runtime opens no sockets for plugins (they would bypass the http proxy); make requests with wasi:http/outgoing-handler under http.fetch`,
  };
}

const KV_FUNCTIONS = new Set(["get", "set", "delete", "listKeys"]);

/**
 * `schedule`: a create is decided on its target agent and on how many live schedules the
 * agent's runs already made, counted at call time, so every layer's `agents` and
 * `max_schedules` hold. A list or cancel needs any `schedule` grant: the proxy shows and cancels
 * only the agent's own. An approval binds the whole spec (the task by its hash: it may be long).
 */
function scheduleRequest(call: HostCall, facts: HostCallFacts): CapabilityRequest | Denial {
  if (call.fn === "list") return { capability: "schedule", request: null, canonical: { fn: "list" } };
  if (call.fn === "cancel") return { capability: "schedule", request: null, canonical: { fn: "cancel", id: typeof call.args[0] === "string" ? call.args[0].slice(0, 200) : null } };
  if (call.fn !== "create") return unknownFunction(call);
  const spec = call.args[0] && typeof call.args[0] === "object" ? (call.args[0] as Record<string, unknown>) : {};
  if (typeof spec.agent !== "string" || spec.agent.length > 63) return { capability: "schedule", reason: "invalid-input", message: "schedule.create: agent must be an agent name" };
  // Without the count the limit cannot be decided: refused, never allowed as if it were 0.
  if (facts.liveSchedules === undefined) return { capability: "schedule", reason: "not-granted", message: "no schedule proxy is bound to this instance" };
  const agent = spec.agent;
  const existing = facts.liveSchedules;
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 200) : null);
  const canonical = {
    fn: "create",
    agent,
    existing,
    task_sha256: typeof spec.task === "string" ? createHash("sha256").update(spec.task).digest("hex") : null,
    at: text(spec.at),
    cron: text(spec.cron),
    timezone: text(spec.timezone),
    until: text(spec.until),
    max_runs: typeof spec.maxRuns === "number" ? spec.maxRuns : null,
  };
  return { capability: "schedule", request: { agent, existing }, canonical };
}

/**
 * `memory`: decided on the canonical scope and the access (search reads, write writes). A scope
 * spelled any other way is refused here, before the policy, so every layer decides the value the
 * proxy will use.
 */
function memoryRequest(call: HostCall): CapabilityRequest | Denial {
  const access = call.fn === "search" ? "read" : call.fn === "write" ? "write" : undefined;
  if (!access) return unknownFunction(call);
  const options = call.args[1];
  const raw = options !== null && typeof options === "object" ? (options as { scope?: unknown }).scope : undefined;
  try {
    const scope = canonicalScope(call.fn, raw ?? undefined);
    return { capability: "memory", request: { scope, access }, canonical: { fn: call.fn, scope, access } };
  } catch (error) {
    if (error instanceof HostProxyError && error.hostError.tag === "invalid-input") return { capability: "memory", reason: "invalid-input", message: error.hostError.val };
    throw error;
  }
}

/**
 * `gmail.read`: a list names its label, decided per layer now; a message or thread fetched by id
 * has labels nobody knows yet, so the gmail proxy checks them, through the policy, after fetching.
 */
function gmailRequest(call: HostCall): CapabilityRequest | Denial {
  const arg = call.args[0];
  if (call.fn === "listMessages") {
    const label = arg && typeof arg === "object" ? (arg as { label?: unknown }).label : undefined;
    if (typeof label !== "string") return { capability: "gmail.read", reason: "invalid-input", message: "gmail.listMessages: label must be a string" };
    const query = (arg as { query?: unknown }).query;
    return { capability: "gmail.read", request: { label }, canonical: { fn: call.fn, label, query: typeof query === "string" ? query : null } };
  }
  if (call.fn === "getMessage" || call.fn === "getThread") {
    if (typeof arg !== "string") return { capability: "gmail.read", reason: "invalid-input", message: `gmail.${call.fn}: expected an id string` };
    return { capability: "gmail.read", request: null, canonical: { fn: call.fn, id: arg } };
  }
  return unknownFunction(call);
}

/** `calendar.read` / `calendar.add`: decided on the calendar id the call names. */
function calendarRequest(call: HostCall): CapabilityRequest | Denial {
  if (call.fn === "listCalendars") return { capability: "calendar.read", request: null, canonical: { fn: call.fn } };
  const capability = call.fn === "listEvents" ? "calendar.read" : call.fn === "addEvent" ? "calendar.add" : undefined;
  if (!capability) return unknownFunction(call);
  const arg = call.args[0];
  const calendar = arg && typeof arg === "object" ? (arg as { calendarId?: unknown }).calendarId : undefined;
  if (typeof calendar !== "string") return { capability, reason: "invalid-input", message: `calendar.${call.fn}: calendarId must be a string` };
  // An added event is bound whole: an approval of one event never covers another.
  return { capability, request: { calendar }, canonical: { fn: call.fn, calendar, ...(capability === "calendar.add" ? { event: arg as Record<string, unknown> } : {}) } };
}

/**
 * `http.fetch`: canonicalised by the http proxy's own canonicaliser (WHATWG URL, default port,
 * IDNA, header rules); the policy decides on scheme, host, port and method, and the approval of
 * an effect binds the canonical URL and method.
 */
function httpRequest(raw: unknown): CapabilityRequest | Denial {
  try {
    const { canonical, request } = canonicalizeHttpRequest(parseHttpRequestRecord(raw));
    return { capability: "http.fetch", request, canonical: { fn: "fetch", method: canonical.method, url: canonical.url } };
  } catch (error) {
    if (error instanceof HostProxyError) {
      const e = error.hostError;
      return e.tag === "denied" ? e.val : { capability: "http.fetch", reason: "invalid-input", message: e.val };
    }
    throw error;
  }
}

/**
 * `shell.exec`: the argv and cwd as the guest sent them. The approval of an Unsafe effect binds
 * exactly these; the shell proxy resolves and confines what actually runs.
 */
function shellRequest(raw: unknown): CapabilityRequest | Denial {
  const request = raw && typeof raw === "object" ? (raw as { argv?: unknown; cwd?: unknown }) : {};
  const argv = request.argv;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
    return { capability: "shell.exec", reason: "invalid-input", message: "shell.exec: argv must be a non-empty list of strings" };
  }
  if (request.cwd !== undefined && typeof request.cwd !== "string") {
    return { capability: "shell.exec", reason: "invalid-input", message: "shell.exec: cwd must be a string" };
  }
  const cwd = request.cwd as string | undefined;
  return { capability: "shell.exec", request: { argv, cwd }, canonical: { fn: "exec", argv, cwd: cwd ?? null } };
}

function unknownFunction(call: HostCall): Denial {
  return { capability: `${call.iface}.${call.fn}`, reason: "unknown-function", message: `there is no host function ${call.iface}.${call.fn}` };
}

export function isDenial(value: CapabilityRequest | Denial): value is Denial {
  return "reason" in value;
}
