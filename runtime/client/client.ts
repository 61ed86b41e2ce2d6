/**
 * `ClawhiveClient`: what a front end (the command line, a program using the package) asks of
 * clawhive, answered in the API's own views (docs/api.md, `/v1/openapi.json`). Two
 * implementations, one set of methods: over HTTP to a running `clawhive serve` (http.ts), and
 * in this process over a Runtime (in-process.ts). Both go through the API's routes, so an
 * answer, a refusal and its error code are the same whichever is used.
 */
import type * as v from "valibot";
import type { ApprovalPatternSchema, ApprovalSchema } from "../api/schemas/approvals.js";
import type { AuditRecordSchema, VerifyBody } from "../api/schemas/audit.js";
import type { AgentDetailSchema, AgentPut, AgentSummarySchema, AgentValidation, PluginDetailSchema, PluginInstalled, PluginSummarySchema, SecretSchema, ToolSchema } from "../api/schemas/resources.js";
import type { FiringSchema, ScheduleSchema } from "../api/schemas/resources.js";
import type { OutcomeSchema, RunSchema, TodoBody } from "../api/schemas/runs.js";
import type { SubmitRunSchema } from "../api/routes/runs.js";
import type { PluginChangeOptions, PluginSourceOptions } from "./plugin-upload.js";
import { segment, type ApiClient, type Query, type RequestOptions, type StreamedEvent } from "./transport.js";

export type ApprovalView = v.InferInput<typeof ApprovalSchema>;
export type ApprovalPatternView = v.InferInput<typeof ApprovalPatternSchema>;
/** A decision: `once` / `run`, or a pattern with its expiry (`POST /v1/approvals/:id`). */
export interface ApprovalDecisionInput {
  decision: "approve" | "deny";
  scope?: "once" | "run" | "pattern";
  reason?: string;
  pattern?: { tool: string; arguments: Record<string, string> };
  expires_in?: string;
  applies_to?: "run" | "agent";
}
export type RunView = v.InferInput<typeof RunSchema>;
export type OutcomeView = v.InferInput<typeof OutcomeSchema>;
export type TodoView = v.InferInput<typeof TodoBody>;
export type SubmitRunBody = v.InferInput<typeof SubmitRunSchema>;
export type ToolView = v.InferInput<typeof ToolSchema>;
export type AgentView = v.InferInput<typeof AgentSummarySchema>;
export type AgentDetailView = v.InferInput<typeof AgentDetailSchema>;
export type PluginView = v.InferInput<typeof PluginSummarySchema>;
export type PluginDetailView = v.InferInput<typeof PluginDetailSchema>;
export type SecretView = v.InferInput<typeof SecretSchema>;
export type AuditRecordView = v.InferInput<typeof AuditRecordSchema>;
export type VerifyView = v.InferInput<typeof VerifyBody>;
export type PluginInstallView = v.InferInput<typeof PluginInstalled>;
export type AgentPutView = v.InferInput<typeof AgentPut>;
export type AgentValidationView = v.InferInput<typeof AgentValidation>;
/** An agent manifest as sent: its text, YAML (as in capabilities/<name>.yaml) or the same fields as JSON. */
export interface AgentManifestText {
  text: Uint8Array | string;
  format: "yaml" | "json";
}
export type { PluginChangeOptions, PluginSourceOptions, StreamedEvent };

/** How a plugin install or upgrade goes: what it reads and who is told what is sent. */
export type ScheduleView = v.InferInput<typeof ScheduleSchema>;
export type FiringView = v.InferInput<typeof FiringSchema>;

export type ApprovalStatusFilter = ApprovalView["status"] | "all";

export interface ClawhiveClient {
  /** Where requests go: a server's URL, or `in-process`. */
  readonly target: string;
  listTools(query?: { agent?: string }): Promise<ToolView[]>;
  listAgents(): Promise<AgentView[]>;
  getAgent(name: string): Promise<AgentDetailView>;
  listPlugins(): Promise<PluginView[]>;
  getPlugin(name: string): Promise<PluginDetailView>;
  /** Newest first; default the pending ones, at most `limit` (default 50). */
  listApprovals(query?: { status?: ApprovalStatusFilter; runId?: string; limit?: number }): Promise<ApprovalView[]>;
  getApproval(id: string): Promise<ApprovalView>;
  decideApproval(id: string, decision: ApprovalDecisionInput): Promise<ApprovalView>;
  /** Decides by pattern: the approval and the pattern it created. */
  /** `expiry`: when the pattern ends, said for a person (for `today`, the server's zone named). */
  approveByPattern(id: string, decision: ApprovalDecisionInput): Promise<{ approval: ApprovalView; pattern: ApprovalPatternView; expiry?: string }>;
  listApprovalPatterns(query?: { agent?: string; status?: ApprovalPatternView["status"] | "all"; limit?: number }): Promise<ApprovalPatternView[]>;
  revokeApprovalPattern(id: string): Promise<ApprovalPatternView>;
  listRuns(query?: { status?: RunView["status"]; limit?: number }): Promise<RunView[]>;
  getRun(id: string): Promise<RunView>;
  /** The run's todo list (`GET /v1/runs/:id/todo`). */
  getRunTodo(id: string): Promise<TodoView>;
  /** Starts a run; `wait`: answers once it has ended or waits for a person. */
  submitRun(body: SubmitRunBody, options?: { wait?: boolean }): Promise<RunView>;
  /**
   * Continues run `id`, whose approval is decided, here and now: the run once it has ended or
   * waits again, and the outcome of the call it replayed (a run without a plan). Refused (409)
   * with `run_ended`, `run_not_waiting`, `approval_pending`, `sub_agent_waiting`, `run_leased`.
   */
  resumeRun(id: string): Promise<{ run: RunView; outcome?: OutcomeView }>;
  cancelRun(id: string): Promise<RunView>;
  /** A run's events after `after`, oldest first, to its end. */
  runEvents(id: string, options?: { after?: number; signal?: AbortSignal }): AsyncGenerator<StreamedEvent>;
  listSecrets(): Promise<SecretView[]>;
  /** `redacted`: the value is redacted from the audit log from now on. */
  setSecret(name: string, value: string): Promise<{ secret: SecretView; redacted: boolean }>;
  removeSecret(name: string): Promise<void>;
  /** One page of audit records (the API's `/v1/audit` query), and the cursor of the next. */
  auditPage(query: Query): Promise<{ records: AuditRecordView[]; next_cursor: string | null }>;
  verifyAudit(query?: { expectHead?: string }): Promise<VerifyView>;
  // `clawhive plugin install | upgrade | remove` (list and info are listPlugins and getPlugin),
  // `clawhive agent put | rm | validate` (list and show are listAgents and getAgent).
  /**
   * Installs the plugin at `source`: a package folder, a source folder (built), a .tgz, a .wasm
   * with its manifest, or an https URL with its sha256. Over HTTP a local source is read here
   * and uploaded as a .tgz; in this process the runtime reads it.
   */
  installPlugin(source: string, options?: PluginChangeOptions & { allowSimilarName?: boolean }): Promise<PluginInstallView>;
  /** Upgrades plugin `name` to `source`; a widening upgrade without `accept` is refused (`upgrade_needs_acceptance`, its lines in the error's `diff`). */
  upgradePlugin(name: string, source: string, options?: PluginChangeOptions & { accept?: boolean }): Promise<PluginInstallView>;
  removePlugin(name: string): Promise<PluginView>;
  /** Stores (or replaces) agent `name` in the store; a name a manifest file or code defines is refused (409). */
  putAgent(name: string, manifest: AgentManifestText): Promise<AgentPutView>;
  removeAgent(name: string): Promise<AgentView>;
  /** Checks a manifest without storing it; `name`, when given, must be the manifest's. */
  validateAgent(manifest: AgentManifestText, options?: { name?: string }): Promise<AgentValidationView>;
  // secret, memory, schedule, mcp review: what `request` alone cannot do (every page of a list).
  /** Every schedule the caller may see (a client token: its own), oldest first. */
  listSchedules(query?: { status?: string }): Promise<ScheduleView[]>;
  /** Any `/v1` route, for what the methods above do not name. */
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
  close(): Promise<void>;
}

const PAGE = 1000;

/** The methods, written once over the API: what carries the requests is the implementation's. */
export class ApiClawhiveClient implements ClawhiveClient {
  readonly target: string;
  readonly api: ApiClient;
  readonly #close: () => Promise<void>;
  /** The routes take a source by its path (a runtime in this process reads it); else it is uploaded. */
  readonly #localSources: boolean;

  constructor(api: ApiClient, options: { target: string; close?: () => Promise<void>; localSources?: boolean }) {
    this.api = api;
    this.target = options.target;
    this.#close = options.close ?? (async () => undefined);
    this.#localSources = options.localSources === true;
  }

  async listTools(query: { agent?: string } = {}): Promise<ToolView[]> {
    return this.#all<ToolView>("/v1/tools", "tools", { agent: query.agent });
  }

  listAgents(): Promise<AgentView[]> {
    return this.#all<AgentView>("/v1/agents", "agents", {});
  }

  async getAgent(name: string): Promise<AgentDetailView> {
    return (await this.api.get<{ agent: AgentDetailView }>(`/v1/agents/${segment(name)}`)).agent;
  }

  listPlugins(): Promise<PluginView[]> {
    return this.#all<PluginView>("/v1/plugins", "plugins", {});
  }

  async getPlugin(name: string): Promise<PluginDetailView> {
    return (await this.api.get<{ plugin: PluginDetailView }>(`/v1/plugins/${segment(name)}`)).plugin;
  }

  async listApprovals(query: { status?: ApprovalStatusFilter; runId?: string; limit?: number } = {}): Promise<ApprovalView[]> {
    const { approvals } = await this.api.get<{ approvals: ApprovalView[] }>("/v1/approvals", { status: query.status, run_id: query.runId, limit: query.limit });
    return approvals;
  }

  async getApproval(id: string): Promise<ApprovalView> {
    return (await this.api.get<{ approval: ApprovalView }>(`/v1/approvals/${segment(id)}`)).approval;
  }

  async decideApproval(id: string, decision: ApprovalDecisionInput): Promise<ApprovalView> {
    return (await this.api.request<{ approval: ApprovalView }>("POST", `/v1/approvals/${segment(id)}`, { json: decision })).approval;
  }

  async approveByPattern(id: string, decision: ApprovalDecisionInput): Promise<{ approval: ApprovalView; pattern: ApprovalPatternView; expiry?: string }> {
    return this.api.request<{ approval: ApprovalView; pattern: ApprovalPatternView; expiry?: string }>("POST", `/v1/approvals/${segment(id)}`, { json: { ...decision, scope: "pattern" } });
  }

  async listApprovalPatterns(query: { agent?: string; status?: ApprovalPatternView["status"] | "all"; limit?: number } = {}): Promise<ApprovalPatternView[]> {
    return (await this.api.get<{ patterns: ApprovalPatternView[] }>("/v1/approval-patterns", { agent: query.agent, status: query.status, limit: query.limit })).patterns;
  }

  async revokeApprovalPattern(id: string): Promise<ApprovalPatternView> {
    return (await this.api.request<{ pattern: ApprovalPatternView }>("DELETE", `/v1/approval-patterns/${segment(id)}`)).pattern;
  }

  async listRuns(query: { status?: RunView["status"]; limit?: number } = {}): Promise<RunView[]> {
    return (await this.api.get<{ runs: RunView[] }>("/v1/runs", { status: query.status, limit: query.limit })).runs;
  }

  async getRun(id: string): Promise<RunView> {
    return (await this.api.get<{ run: RunView }>(`/v1/runs/${segment(id)}`)).run;
  }

  getRunTodo(id: string): Promise<TodoView> { return this.api.get<TodoView>(`/v1/runs/${segment(id)}/todo`); }

  async submitRun(body: SubmitRunBody, options: { wait?: boolean } = {}): Promise<RunView> {
    return (await this.api.request<{ run: RunView }>("POST", "/v1/runs", { json: body, ...(options.wait ? { query: { wait: "true" } } : {}) })).run;
  }

  resumeRun(id: string): Promise<{ run: RunView; outcome?: OutcomeView }> {
    return this.api.request<{ run: RunView; outcome?: OutcomeView }>("POST", `/v1/runs/${segment(id)}/resume`);
  }

  async cancelRun(id: string): Promise<RunView> {
    return (await this.api.request<{ run: RunView }>("POST", `/v1/runs/${segment(id)}/cancel`)).run;
  }

  runEvents(id: string, options: { after?: number; signal?: AbortSignal } = {}): AsyncGenerator<StreamedEvent> {
    return this.api.events(id, options);
  }

  listSecrets(): Promise<SecretView[]> {
    return this.#all<SecretView>("/v1/secrets", "secrets", {});
  }

  setSecret(name: string, value: string): Promise<{ secret: SecretView; redacted: boolean }> {
    return this.api.request<{ secret: SecretView; redacted: boolean }>("PUT", `/v1/secrets/${segment(name)}`, { json: { value } });
  }

  async removeSecret(name: string): Promise<void> {
    await this.api.request("DELETE", `/v1/secrets/${segment(name)}`);
  }

  listSchedules(query: { status?: string } = {}): Promise<ScheduleView[]> {
    return this.#all<ScheduleView>("/v1/schedules", "schedules", { status: query.status });
  }

  auditPage(query: Query): Promise<{ records: AuditRecordView[]; next_cursor: string | null }> {
    return this.api.get<{ records: AuditRecordView[]; next_cursor: string | null }>("/v1/audit", query);
  }

  verifyAudit(query: { expectHead?: string } = {}): Promise<VerifyView> {
    return this.api.get<VerifyView>("/v1/audit/verify", { expect_head: query.expectHead });
  }

  installPlugin(source: string, options: PluginChangeOptions & { allowSimilarName?: boolean } = {}): Promise<PluginInstallView> {
    return this.#sendPlugin("/v1/plugins", source, options, {}, "verifies and installs it");
  }

  upgradePlugin(name: string, source: string, options: PluginChangeOptions & { accept?: boolean } = {}): Promise<PluginInstallView> {
    const accept = options.accept === true;
    return this.#sendPlugin(`/v1/plugins/${segment(name)}/upgrade`, source, options, { accept: accept ? "true" : undefined }, accept ? `verifies it and upgrades ${name}` : `verifies it, compares its permissions and upgrades ${name}`);
  }

  async removePlugin(name: string): Promise<PluginView> {
    return (await this.api.request<{ removed: PluginView }>("DELETE", `/v1/plugins/${segment(name)}`)).removed;
  }

  putAgent(name: string, manifest: AgentManifestText): Promise<AgentPutView> {
    return this.api.request<AgentPutView>("PUT", `/v1/agents/${segment(name)}`, { raw: manifestBody(manifest) });
  }

  async removeAgent(name: string): Promise<AgentView> {
    return (await this.api.request<{ removed: AgentView }>("DELETE", `/v1/agents/${segment(name)}`)).removed;
  }

  validateAgent(manifest: AgentManifestText, options: { name?: string } = {}): Promise<AgentValidationView> {
    return this.api.request<AgentValidationView>("POST", "/v1/agents/validate", { query: { name: options.name }, raw: manifestBody(manifest) });
  }

  request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return this.api.request<T>(method, path, options);
  }

  close(): Promise<void> {
    return this.#close();
  }

  async #sendPlugin(path: string, source: string, options: PluginChangeOptions & { allowSimilarName?: boolean }, query: Query, does: string): Promise<PluginInstallView> {
    const { onProgress, allowSimilarName, sha256, manifestFile, allowUnsigned, registrySecret, plainHttp } = options;
    // An oci:// source is pulled by the runtime, here or on the server, from the registry it names.
    if (this.#localSources || /^oci:\/\//i.test(source)) {
      const signed = { ...(allowUnsigned ? { allow_unsigned: true } : {}), ...(registrySecret === undefined ? {} : { registry_secret: registrySecret }), ...(plainHttp ? { plain_http: true } : {}) };
      const json = { source, ...(sha256 === undefined ? {} : { sha256 }), ...(manifestFile === undefined ? {} : { manifest: manifestFile }), ...(allowSimilarName ? { allow_similar_name: true } : {}), ...signed };
      return this.api.request<PluginInstallView>("POST", path, { json, query });
    }
    const read = { ...(sha256 === undefined ? {} : { sha256 }), ...(manifestFile === undefined ? {} : { manifestFile }) };
    // Loaded when a plugin is sent: it reads and builds packages (the install code), which no other request needs.
    const { uploadOf } = await import("./plugin-upload.js");
    const upload = await uploadOf(source, { ...read, query: { ...query, ...(allowUnsigned ? { allow_unsigned: "true" } : {}) }, ...(allowSimilarName ? { allowSimilarName } : {}), ...(onProgress === undefined ? {} : { onProgress }) });
    onProgress?.(`sending ${upload.what} to ${this.target}; the server ${does}`);
    return this.api.request<PluginInstallView>("POST", path, upload.options);
  }

  /** Every page of a list route. */
  async #all<T>(path: string, key: string, query: Query): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.api.get<Record<string, unknown> & { next_cursor: string | null }>(path, { ...query, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
      out.push(...(page[key] as T[]));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return out;
  }
}

function manifestBody(manifest: AgentManifestText): { bytes: Uint8Array; mediaType: string } {
  const bytes = typeof manifest.text === "string" ? new TextEncoder().encode(manifest.text) : manifest.text;
  return { bytes, mediaType: manifest.format === "json" ? "application/json" : "application/yaml" };
}
