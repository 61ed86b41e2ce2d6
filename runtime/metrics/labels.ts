/**
 * Label values that come from free text (destroy reasons, worker exit reasons) are normalised
 * and capped: every distinct label value is a time series kept forever by Prometheus, so a
 * message with a number or a path in it must not mint a new one on each occurrence.
 */
export class BoundedLabel {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max = 32) {
    this.#max = max;
  }

  /** `Paused for approval` → `paused_for_approval`; past the cap, unseen values become `other`. */
  value(text: string): string {
    const label = text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "").slice(0, 48) || "unknown";
    if (this.#seen.has(label)) return label;
    if (this.#seen.size >= this.#max) return "other";
    this.#seen.add(label);
    return label;
  }
}

/** Why a worker exited, as a small fixed set (the messages carry numbers and error text). */
export function workerExitReason(reason: string): string {
  if (reason.startsWith("deadline")) return "deadline";
  if (reason.startsWith("worker crashed")) return "crashed";
  if (reason.startsWith("worker exited")) return "exited";
  if (reason.startsWith("task channel failed")) return "channel_failed";
  if (reason === "sandbox closed") return "sandbox_closed";
  return "other";
}
