import type { Denial } from "../../host-proxies/types.js";

/**
 * A run's least-privilege report: what it was granted against what it used, what it was
 * denied and what people approved. Stored with the run when it ends.
 */
export interface LeastPrivilegeReport {
  granted: string[];
  used: string[];
  /** Granted but never used: candidates for narrowing the agent or the task. */
  unused: string[];
  denials: Array<{ capability: string; reason: string; count: number; example: string }>;
  approvals: Array<{ id: string; kind: string; tool: string; outcome: string }>;
  /**
   * ToolCall outcomes this node saw: `error` counts every failed one, `denied` those of them a
   * policy or a person refused (absent in reports stored before it was kept), `approvalRequired`
   * the pauses (a ToolCall that paused and then ran counts twice in `total`).
   */
  toolCalls: { total: number; ok: number; error: number; denied?: number; approvalRequired: number };
  /**
   * The ToolCalls that read stored secrets (a plugin's config naming one; every call to an MCP
   * server given some in its environment), by secret name, never value: a person judging the
   * run's outputs knows which could hold a secret changed beyond what redaction and the
   * transformed-output check catch.
   */
  secretsRead: SecretRead[];
}

/** One ToolCall that read stored secrets: their names. */
export interface SecretRead {
  toolCallId: string;
  tool: string;
  secrets: string[];
}

export class ReportBuilder {
  readonly #granted: string[];
  readonly #used = new Set<string>();
  readonly #denials = new Map<string, { capability: string; reason: string; count: number; example: string }>();
  readonly #approvals = new Map<string, { id: string; kind: string; tool: string; outcome: string }>();
  readonly #calls = { total: 0, ok: 0, error: 0, denied: 0, approvalRequired: 0 };
  readonly #secretsRead = new Map<string, SecretRead>();

  constructor(granted: readonly string[]) {
    this.#granted = [...granted].sort();
  }

  used(capability: string): void {
    this.#used.add(capability);
  }

  denied(denial: Denial): void {
    const key = `${denial.capability}\u0000${denial.reason}`;
    const entry = this.#denials.get(key);
    if (entry) entry.count++;
    else this.#denials.set(key, { capability: denial.capability, reason: denial.reason, count: 1, example: denial.message });
  }

  approval(entry: { id: string; kind: string; tool: string; outcome: string }): void {
    this.#approvals.set(entry.id, entry);
  }

  secretRead(entry: { toolCallId: string; tool: string; secret: string }): void {
    const seen = this.#secretsRead.get(entry.toolCallId) ?? { toolCallId: entry.toolCallId, tool: entry.tool, secrets: [] };
    if (!seen.secrets.includes(entry.secret)) seen.secrets.push(entry.secret);
    this.#secretsRead.set(entry.toolCallId, seen);
  }

  /** The ToolCalls so far that read secrets (see LeastPrivilegeReport.secretsRead). */
  secretsRead(): SecretRead[] {
    return [...this.#secretsRead.values()].map((r) => ({ ...r, secrets: [...r.secrets] }));
  }

  toolCall(outcome: { status: "ok" | "error" | "approval_required"; error?: { kind: string; denial?: unknown } }): void {
    this.#calls.total++;
    if (outcome.status === "approval_required") this.#calls.approvalRequired++;
    else this.#calls[outcome.status]++;
    if (outcome.status === "error" && (outcome.error?.denial !== undefined || outcome.error?.kind === "approval-denied")) this.#calls.denied++;
  }

  build(): LeastPrivilegeReport {
    const used = [...this.#used].sort();
    return {
      granted: this.#granted,
      used,
      unused: this.#granted.filter((c) => !this.#used.has(c)),
      denials: [...this.#denials.values()],
      approvals: [...this.#approvals.values()],
      toolCalls: { ...this.#calls },
      secretsRead: this.secretsRead(),
    };
  }
}
