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
  toolCalls: { total: number; ok: number; error: number; approvalRequired: number };
}

export class ReportBuilder {
  readonly #granted: string[];
  readonly #used = new Set<string>();
  readonly #denials = new Map<string, { capability: string; reason: string; count: number; example: string }>();
  readonly #approvals = new Map<string, { id: string; kind: string; tool: string; outcome: string }>();
  readonly #calls = { total: 0, ok: 0, error: 0, approvalRequired: 0 };

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

  toolCall(status: "ok" | "error" | "approval_required"): void {
    this.#calls.total++;
    if (status === "approval_required") this.#calls.approvalRequired++;
    else this.#calls[status]++;
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
    };
  }
}
