import { createFsProxy, fsHostFunctions, type FsProxy } from "../../host-proxies/fs/index.js";
import { createLogProxy, logHostFunctions } from "../../host-proxies/log/index.js";
import { createHttpProxy, httpHostFunctions } from "../../host-proxies/http/index.js";
import { auditRefusedHop, checkHop } from "./redirect-hops.js";
import { createShellProxy, resolveShellGrant, shellHostFunctions, type ShellProxy } from "../../host-proxies/shell/index.js";
import type { GmailResource } from "../policy/catalogue/index.js";
import { createKvProxy, kvHostFunctions } from "../../host-proxies/kv/index.js";
import { createScheduleProxy, scheduleHostFunctions, type ScheduleProxy, type ScheduleProxyOptions } from "../../host-proxies/schedule/index.js";
import { createMemoryProxy, memoryHostFunctions } from "../../host-proxies/memory/index.js";
import type { MailBackend } from "../../host-proxies/gmail/types.js";
import type { CalendarBackend } from "../../host-proxies/calendar/types.js";
import { decideHostCall, type PolicyLayers } from "../policy/engine.js";
import { grantCovers, tightestScheduleLimit, type CapabilityGrant } from "../policy/catalogue/index.js";
import { noteReadWarning } from "./read-warnings.js";
import { fsReadLifts } from "../policy/sensitive-lifts.js";
import type { HostContextOptions } from "./host-context-types.js";

export type HostFunctions = Record<string, (args: unknown[]) => Promise<unknown>>;

/** The proxies of one instance, bound when it is: the host functions of each interface it may call. */
export interface BoundProxies {
  tables: Record<string, HostFunctions>;
  fsProxy: FsProxy | undefined;
  shellProxy: ShellProxy | undefined;
  scheduleProxy: ScheduleProxy | undefined;
}

/**
 * Builds the proxies an instance's grants call for: mount handles opened now (fixed for the
 * instance's life), mail and calendar loaded only when granted.
 */
export async function bindProxies(options: HostContextOptions): Promise<BoundProxies> {
  const tables: Record<string, HostFunctions> = Object.create(null) as Record<string, HostFunctions>;
  let fsProxy: FsProxy | undefined;
  if (options.mounts.length > 0) {
    fsProxy = await createFsProxy(options.mounts, { allowSensitive: options.allowSensitive, hostGuard: options.mountGuard, bulkLifts: () => fsReadLifts(options.layers) });
    tables.fs = fsHostFunctions(fsProxy);
  }
  // The run's budget decides which lines pass; the proxy then only cuts long lines.
  tables.log = logHostFunctions(createLogProxy(options.onLog, { admittedByCaller: options.logBudget !== undefined }));
  // The mail and calendar proxies (and their parsers) load with the first instance granted them.
  if (options.mail) {
    const gmail = await import("../../host-proxies/gmail/index.js");
    tables.gmail = gmail.gmailHostFunctions(mailProxy(gmail.createGmailProxy, options, options.mail));
  }
  if (options.calendar) {
    const calendar = await import("../../host-proxies/calendar/index.js");
    tables.calendar = calendar.calendarHostFunctions(calendarProxy(calendar.createCalendarProxy, options, options.calendar));
  }
  if (options.kv) tables.kv = kvHostFunctions(createKvProxy(options.kv.store, { namespace: options.kv.namespace, quotaBytes: options.kv.quotaBytes }));
  let scheduleProxy: ScheduleProxy | undefined;
  if (options.schedule) {
    scheduleProxy = createScheduleProxy({ ...options.schedule, ...creatorLayers(options.layers) });
    tables.schedule = scheduleHostFunctions(scheduleProxy);
  }
  if (options.memory) tables.memory = memoryHostFunctions(createMemoryProxy(options.memory));
  let shellProxy: ShellProxy | undefined;
  if (options.shell) {
    const runners = options.shell.grant.commands.filter((c) => c.runs_programs).map((c) => c.name);
    const grant = await resolveShellGrant(options.shell.grant, { allowProgramRunners: runners });
    shellProxy = await createShellProxy(grant, { mounts: options.shell.grant.mounts, sandbox: options.shell.sandbox, hostGuard: options.mountGuard });
    tables.shell = shellHostFunctions(shellProxy);
  }
  if (options.mailSend) {
    const mail = await import("../../host-proxies/mail/index.js");
    tables.mail = mail.mailHostFunctions(mailSendProxy(mail.createMailProxy, options, options.mailSend));
  }
  if (options.message) {
    const message = await import("../../host-proxies/message/index.js");
    tables.message = message.messageHostFunctions(message.createMessageProxy(options.message.grant));
  }
  if (options.http) {
    const proxy = createHttpProxy(options.http.grant, { resolveSecret: options.http.resolveSecret });
    tables.http = httpHostFunctions(proxy, { checkHop: (hop) => checkHop(options, hop), onHopRefused: (refusal) => auditRefusedHop(options, refusal) });
  }
  return { tables, fsProxy, shellProxy, scheduleProxy };
}

/**
 * The gmail proxy of an instance: the agent's labels bound the backend; every layer's query is
 * ANDed onto each search; a label found on a fetched message is allowed only if every layer
 * allows it (asked of the policy, like any first request).
 */
function mailProxy(create: typeof import("../../host-proxies/gmail/index.js").createGmailProxy, options: HostContextOptions, mail: { backend: MailBackend; grant: GmailResource }) {
  const layers = [options.layers.agent.grants, options.layers.elevation ?? options.layers.task, ...(options.layers.parents ?? []).map((p) => p.grants)];
  const queries = layers.map((g) => g?.["gmail.read"]?.query).filter((q): q is string => typeof q === "string");
  return create(mail.backend, {
    labels: mail.grant.labels,
    queries,
    onWarning: (w) => noteReadWarning(options.active(), `mail message ${w.messageId}: ${w.reason}`),
    allowLabel: (label) => {
      const active = options.active();
      return active !== undefined && decideHostCall(options.layers, active.tool, { capability: "gmail.read", request: { label }, canonical: { label } }).kind === "allow";
    },
  });
}

/**
 * The mail proxy of an instance: the agent's recipient patterns bound it; every recipient is
 * asked of every layer too (the gate decided them already; this holds if a caller forgets).
 */
function mailSendProxy(create: typeof import("../../host-proxies/mail/index.js").createMailProxy, options: HostContextOptions, send: NonNullable<HostContextOptions["mailSend"]>) {
  return create(send.transport, {
    recipients: send.grant.recipients,
    maxRecipients: send.grant.max_recipients,
    timeoutMs: send.timeoutMs,
    allowRecipient: (address) => {
      const active = options.active();
      return active !== undefined && decideHostCall(options.layers, active.tool, { capability: "mail.send", request: { recipients: [address] }, canonical: { address } }).kind !== "deny";
    },
  });
}

function calendarProxy(create: typeof import("../../host-proxies/calendar/index.js").createCalendarProxy, options: HostContextOptions, calendar: { backend: CalendarBackend; calendars: readonly string[] }) {
  return create(calendar.backend, {
    calendars: calendar.calendars,
    onWarning: (w) => noteReadWarning(options.active(), `calendar ${w.calendarId}: ${w.uid === undefined ? "" : `event ${JSON.stringify(w.uid)}: `}${w.reason}`),
    allowCalendar: (id, capability) => {
      const active = options.active();
      return active !== undefined && decideHostCall(options.layers, active.tool, { capability, request: { calendar: id }, canonical: { calendar: id } }).kind !== "deny";
    },
  });
}

/**
 * What a schedule made by this run may capture: every layer the run answers to, in the policy
 * engine's words (its agent, its task, each ancestor), and its effective grant. A step's
 * elevation is left out: it lasts one step, a schedule outlives the run.
 */
function creatorLayers(layers: PolicyLayers): Pick<ScheduleProxyOptions<CapabilityGrant>, "layers" | "effectiveGrant" | "liveLimit" | "covers"> {
  const all = [
    { who: `agent ${layers.agent.name}`, grants: layers.agent.grants },
    ...(layers.task ? [{ who: "the task", grants: layers.task }] : []),
    ...(layers.parents ?? []).map((p) => ({ who: `parent agent ${p.name}`, grants: p.grants })),
  ];
  return {
    effectiveGrant: layers.task ?? layers.agent.grants,
    layers: all,
    liveLimit: tightestScheduleLimit(all.map((l) => l.grants)),
    covers: grantCovers,
  };
}
