/**
 * The resource a Guarded tool's arguments name — a URL, a path, a schedule's agent, a calendar,
 * a label — turned into the host-call request its effect will make, so the policy decides it
 * before a person is asked to approve the call (see `unreachableTool`). Built by the proxies'
 * own canonicalisers (through `hostCallRequest`) and decided by the same matchers as the host
 * call: there is no second matcher. It only ever refuses: an argument that is absent, not a
 * string, or (for fs) a relative path is left to the host call, decided when it is made.
 *
 * Which argument names which resource comes from the plugin manifest (`tools.<tool>.
 * resource_args`), else from the conventions of the first-party plugins below. A plugin that
 * claims a first-party name gains nothing by it: the check can only refuse.
 */
import type { HostCall } from "../../host-proxies/types.js";
import type { PluginManifest, ResourceCapability } from "../plugins/manifest.js";
import { hostCallRequest, type CapabilityRequest } from "./host-call-request.js";
import type { Denial } from "../../host-proxies/types.js";

/** First-party tools' resource arguments (their input schemas name them so). */
const FIRST_PARTY: Readonly<Record<string, Readonly<Record<string, ResourceCapability>>>> = {
  "web.fetch_page": { url: "http.fetch" },
  "files.read_file": { path: "fs.read" },
  "files.list_dir": { path: "fs.read" },
  "files.grep": { path: "fs.read" },
  "files.glob": { path: "fs.read" },
  "files.write_file": { path: "fs.write" },
  "files.edit_file": { path: "fs.write" },
  "schedule.create_schedule": { agent: "schedule" },
  "calendar.list_events": { calendar_id: "calendar.read" },
  "calendar.add_event": { calendar_id: "calendar.add" },
  "mail.send": { to: "mail.send" },
  "message.send": { url: "message.send" },
};

/** The resource arguments of `plugin.tool`: the manifest's, else the first-party convention. */
export function resourceArgs(plugin: PluginManifest, tool: string): Readonly<Record<string, ResourceCapability>> {
  return plugin.tools[tool]?.resource_args ?? FIRST_PARTY[`${plugin.name}.${tool}`] ?? {};
}

/**
 * The host-call requests the tool's arguments name, each as the gate will see it, or the
 * denial the canonicaliser gives (an invalid URL, a scheme no proxy speaks).
 */
export function resourceRequests(plugin: PluginManifest, tool: string, input: unknown): Array<CapabilityRequest | Denial> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return [];
  const args = input as Record<string, unknown>;
  const requests: Array<CapabilityRequest | Denial> = [];
  for (const [arg, capability] of Object.entries(resourceArgs(plugin, tool))) {
    const value = Object.hasOwn(args, arg) ? args[arg] : undefined;
    // A message names its recipients in three lists: the whole message is checked as it will be sent.
    if (capability === "mail.send") {
      if (value !== undefined) requests.push(hostCallRequest(mailCallOf(args)));
      continue;
    }
    if (typeof value !== "string") continue;
    const call = hostCallOf(capability, value, args);
    if (call !== undefined) requests.push(hostCallRequest(call, { liveSchedules: 0 }));
  }
  return requests;
}

/** The host call an effect on `value` would be, or `undefined` when it cannot be known yet. */
function hostCallOf(capability: ResourceCapability, value: string, args: Record<string, unknown>): HostCall | undefined {
  switch (capability) {
    case "http.fetch": {
      const method = typeof args.method === "string" ? args.method.toUpperCase() : "GET";
      return { iface: "http", fn: "fetch", args: [{ method, url: value, headers: [] }] };
    }
    case "fs.read":
    case "fs.write":
      // A relative path resolves against a mount inside the plugin: decided at the host call.
      if (!value.startsWith("/")) return undefined;
      return { iface: "fs", fn: capability === "fs.read" ? "read" : "write", args: [value] };
    case "schedule":
      // The live-schedule count is taken as 0: the check can only refuse what no count allows.
      return { iface: "schedule", fn: "create", args: [{ agent: value }] };
    case "calendar.read":
    case "calendar.add":
      return { iface: "calendar", fn: capability === "calendar.read" ? "listEvents" : "addEvent", args: [{ calendarId: value }] };
    case "gmail.read":
      return { iface: "gmail", fn: "listMessages", args: [{ label: value }] };
    case "message.send":
      return { iface: "message", fn: "send", args: [{ url: value, text: typeof args.text === "string" ? args.text : "", format: typeof args.format === "string" ? args.format : undefined, title: typeof args.title === "string" ? args.title : undefined }] };
    case "mail.send":
      return mailCallOf(args);
  }
}

/**
 * The `mail.send` host call a first-party style ToolCall (`to`, `cc`, `bcc`, `subject`, `body`)
 * makes: recipients outside the grant, a lookalike domain or a line break in a header are
 * refused before a person sees the message.
 */
function mailCallOf(args: Record<string, unknown>): HostCall {
  const list = (v: unknown) => (v === undefined ? [] : typeof v === "string" ? [v] : v);
  return { iface: "mail", fn: "send", args: [{ to: list(args.to), cc: list(args.cc), bcc: list(args.bcc), subject: args.subject ?? "", body: args.body ?? "" }] };
}
