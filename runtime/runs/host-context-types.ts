/**
 * What a run hands its instances' host context: the ToolCall a host call belongs to, and the
 * options the context is built with. Types only, in their own module, so the context's parts
 * (host-tables.ts, plugin-config.ts) and the run's (executor, tool-execution) import them without
 * importing the context itself.
 */
import type { FsMount, MountHostGuard } from "../../host-proxies/fs/index.js";
import type { LineBudget, LogLine } from "../../host-proxies/log/index.js";
import type { SandboxInfo } from "../../host-proxies/shell/index.js";
import type { GmailResource, HttpResource, ShellResource, CapabilityGrant } from "../policy/catalogue/index.js";
import type { MemoryProxyOptions } from "../../host-proxies/memory/index.js";
import type { ScheduleProxyOptions } from "../../host-proxies/schedule/index.js";
import type { MailBackend } from "../../host-proxies/gmail/types.js";
import type { MailTransport } from "../../host-proxies/mail/types.js";
import type { MailSendResource, MessageSendResource } from "../policy/catalogue/index.js";
import type { CalendarBackend } from "../../host-proxies/calendar/types.js";
import type { Store } from "../store/index.js";
import type { Denial, HostCall, HostCallResult } from "../../host-proxies/types.js";
import type { AuditLog, AuditSubject, DeferredIntent, IntentGuard } from "../audit/index.js";
import type { CallingTool, PolicyLayers } from "../policy/engine.js";
import type { Risk } from "../plugins/manifest.js";
import type { PluginConfigValue } from "../plugins/config-grant.js";
import type { ReadWarnings } from "./read-warnings.js";
import type { ToolCallRecords } from "./tool-call-records.js";

/** A plugin's config as its instances read it (see plugin-config.ts). */
export interface PluginConfigOptions {
  values: ReadonlyMap<string, PluginConfigValue>;
  secretValue: (name: string) => Promise<string>;
}

/** The ToolCall a host call belongs to: set by the run around each guest call. */
export interface ActiveToolCall {
  tool: CallingTool;
  qualifiedName: string;
  toolCallId: string;
  stepId: string;
  /** The tool's effective risk: an Unsafe tool's effects each need their own approval. */
  risk: Risk;
  /** The ToolCall's own intent, deferred: every effect makes it durable first (fail closed). */
  recorded?: DeferredIntent;
  /** Its records appended without being awaited: the result is released once they are durable. */
  records?: ToolCallRecords;
  /** Log lines of this ToolCall dropped over the run's `log.per_minute` (recorded once, at its end). */
  droppedLogLines?: number;
  /** What this ToolCall's mail and calendar reads could not read: told to the model and the run's events. */
  readWarnings?: ReadWarnings;
}

/** What the run supplies to serve, decide and record its instances' host calls. */
export interface HostContextOptions {
  layers: PolicyLayers;
  mounts: readonly FsMount[];
  allowSensitive: readonly string[];
  /** The runtime's forbidden mount roots, re-checked on the directories the proxies open. */
  mountGuard?: MountHostGuard | undefined;
  audit: AuditLog;
  subject: () => Omit<AuditSubject, "kind">;
  active: () => ActiveToolCall | undefined;
  /**
   * Asked, from the store, right before every effect (a host call above Safe): why the run may
   * not make it (cancelled on any node, ended), or undefined. Absent: never stopped. `fenced`:
   * the effect's intent goes with the fence, which asks the store in the intent's own
   * transaction, so only what this node knows is asked.
   */
  stopped?: ((options?: { fenced?: boolean }) => Promise<RunStopped | undefined>) | undefined;
  /**
   * The guard every effect's intent is committed with (see effectGuard): the store refuses the
   * intent, in its own transaction, once the run is cancelled, ended or held by another node.
   */
  fence?: (() => IntentGuard) | undefined;
  /** Told of every effect that reached its proxy (its intent is on record). */
  onEffect?: ((active: ActiveToolCall, capability: string) => void) | undefined;
  /** Consumes a matching single-use approval for an Unsafe effect; false when none. */
  approveEffect: (call: { active: ActiveToolCall; capability: string; canonical: Record<string, unknown> }) => Promise<boolean | string | Denial>;
  /** The runtime's mail and calendar backends, with the agent's grants of them. */
  mail?: { backend: MailBackend; grant: GmailResource } | undefined;
  calendar?: { backend: CalendarBackend; calendars: readonly string[] } | undefined;
  /** The runtime's mail transport and the agent's `mail.send` grant (undefined when either is missing). */
  mailSend?: { transport: MailTransport; grant: MailSendResource; timeoutMs?: number | undefined } | undefined;
  /** The agent's `message.send` grant. */
  message?: { grant: MessageSendResource } | undefined;
  /** The kv namespace of this agent and plugin (fixed per instance), in the runtime's store. */
  kv?: { store: Store; namespace: string; quotaBytes: number } | undefined;
  /**
   * The runtime's scheduler and what the schedule proxy needs of the run (bound only when the
   * agent is granted `schedule`); the run's layers come from `layers`.
   */
  schedule?: Pick<ScheduleProxyOptions<CapabilityGrant>, "scheduler" | "run" | "ownerToken" | "agents"> | undefined;
  /** The memory of the run's agent chain and the runtime's store (present when the agent is granted memory). */
  memory?: MemoryProxyOptions | undefined;
  /** The agent's shell.exec grant; commands are resolved to fixed paths when the instance is bound. */
  shell?: { grant: ShellResource; sandbox: SandboxInfo } | undefined;
  /** The agent's http.fetch grant (the proxy's own limits), and how it reads attached secrets. */
  http?: { grant: HttpResource; resolveSecret: (name: string) => Promise<string> } | undefined;
  onLog: (line: LogLine) => void;
  /**
   * The run's log lines (`log.per_minute`), shared by its instances: a line over it is dropped
   * before it is decided or audited, and counted on the ToolCall.
   */
  logBudget?: LineBudget | undefined;
  /** The plugin's config (its defaults and the agent's grant to it), read by `wasi:config/store` and Extism `config_get`. */
  pluginConfig?: PluginConfigOptions | undefined;
  /** `durationMs`: from the call's arrival to its outcome (decision, audit and effect). */
  onHostCall?: (event: { call: HostCall; capability: string; result: HostCallResult; approvalRequired: boolean; durationMs: number }) => void;
}

/** Why a run may make no further effect here: the denial's reason and message. */
export interface RunStopped {
  reason: "run-cancelled" | "run-taken-over";
  message: string;
}
